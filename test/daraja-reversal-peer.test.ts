// The Daraja peer's Reversals API driven by Cowrie's Daraja client and by raw requests, results caught by a
// local receiver: a reversal of a paid receipt succeeds once, with Daraja's result shape; a second reversal of
// it, an unknown receipt, another amount or another initiator end in failed results; malformed requests are
// refused at once with Daraja's error shape; the client's result parser reads what the peer posts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { DarajaClient, DarajaError, parseReversalResult } from '../src/modules/rails/mpesa/daraja-client.js';
import { MPESA_TEST_CREDENTIALS } from './helpers/mpesa.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

describe('the Daraja peer’s reversals', () => {
  let peer: DarajaPeer;
  let rx: Receiver;
  let client: DarajaClient;
  const initiator = { initiator: 'api-op', securityCredential: 'cred==' };

  beforeAll(async () => {
    peer = await startDarajaPeer({ ...MPESA_TEST_CREDENTIALS, initiatorName: 'api-op', securityCredential: 'cred==' });
    rx = await startReceiver();
    client = new DarajaClient({ ...MPESA_TEST_CREDENTIALS, baseUrl: peer.url });
  });
  afterAll(async () => {
    await peer?.close();
    await rx?.close();
  });

  /** A payment the peer made: answers its receipt once the phone answered. */
  async function paid(amount: number): Promise<string> {
    peer.setNextBehaviour({ delayMs: 10, callback: 'never' });
    const push = await client.stkPush({
      amount,
      phone: '254712345678',
      callbackUrl: `${rx.url}/stk`,
      accountReference: 'x',
      description: 'y',
    });
    await new Promise((r) => setTimeout(r, 30));
    return peer.pushes.find((p) => p.checkoutRequestId === push.checkoutRequestId)!.receipt;
  }
  async function reverse(receipt: string, amount: number, who = initiator) {
    const path = `/r${Math.random().toString(36).slice(2)}`;
    const ack = await client.reversal({
      ...who,
      transactionId: receipt,
      amount,
      resultUrl: `${rx.url}${path}`,
      queueTimeOutUrl: `${rx.url}${path}/timeout`,
      remarks: 'Refund re_1',
      occasion: 'pi_1',
    });
    const [got] = (await rx.waitFor((l) => l.some((r) => r.path === path), 5000, 'the result')).filter((r) => r.path === path);
    return { ack, body: JSON.parse(got!.body), result: parseReversalResult(JSON.parse(got!.body)) };
  }

  it('reverses a paid receipt once, posting Daraja’s result shape', async () => {
    const receipt = await paid(120);
    const { ack, body, result } = await reverse(receipt, 120);
    expect(ack.conversationId).toMatch(/^AG_\d{8}_[0-9a-f]+$/);
    expect(result).toMatchObject({ succeeded: true, resultCode: '0', conversationId: ack.conversationId });
    expect(result.transactionId).toMatch(/^[A-Z0-9]{10}$/);
    expect(body.Result.ResultParameters.ResultParameter).toContainEqual({ Key: 'OriginalTransactionID', Value: receipt });
    expect(body.Result.OriginatorConversationID).toBe(ack.originatorConversationId);
    const again = await reverse(receipt, 120);
    expect(again.result).toMatchObject({ succeeded: false, resultCode: 'R000001', transactionId: null });
  });

  it('fails an unknown receipt, another amount, another initiator', async () => {
    expect((await reverse('ZZZ0000000', 10)).result).toMatchObject({ succeeded: false, resultCode: 'R000002' });
    const receipt = await paid(50);
    expect((await reverse(receipt, 49)).result).toMatchObject({ succeeded: false, resultCode: '2' });
    expect((await reverse(receipt, 50, { initiator: 'someone', securityCredential: 'cred==' })).result).toMatchObject({
      succeeded: false,
      resultCode: '2001',
    });
    expect((await reverse(receipt, 50)).result.succeeded).toBe(true);
  });

  it('refuses malformed requests at once with Daraja’s error shape', async () => {
    const token = (
      (await (
        await fetch(`${peer.url}/oauth/v1/generate?grant_type=client_credentials`, {
          headers: { authorization: `Basic ${Buffer.from('ck-test:cs-test').toString('base64')}` },
        })
      ).json()) as { access_token: string }
    ).access_token;
    const good = {
      Initiator: 'api-op',
      SecurityCredential: 'cred==',
      CommandID: 'TransactionReversal',
      TransactionID: 'ABC1234567',
      Amount: 10,
      ReceiverParty: MPESA_TEST_CREDENTIALS.shortcode,
      RecieverIdentifierType: '11',
      ResultURL: `${rx.url}/x`,
      QueueTimeOutURL: `${rx.url}/y`,
      Remarks: 'Refund',
      Occasion: 'pi',
    };
    const send = async (body: unknown) => {
      const res = await fetch(`${peer.url}/mpesa/reversal/v1/request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, string> };
    };
    expect((await send(good)).status).toBe(200);
    for (const [field, value] of [
      ['CommandID', 'SalaryPayment'],
      ['RecieverIdentifierType', '4'],
      ['ReceiverParty', '600000'],
      ['ResultURL', 'not a url'],
      ['Remarks', 'x'],
      ['Amount', 0],
    ] as const) {
      const r = await send({ ...good, [field]: value });
      expect(r.status, field).toBe(400);
      expect(r.json).toMatchObject({ errorCode: '400.002.02', errorMessage: `Bad Request - Invalid ${field}` });
    }
    peer.failNext('reversal', 503);
    await expect(
      client.reversal({
        ...initiator,
        transactionId: 'A',
        amount: 1,
        resultUrl: rx.url,
        queueTimeOutUrl: rx.url,
        remarks: 'ab',
        occasion: '',
      }),
    ).rejects.toBeInstanceOf(DarajaError);
  });

  it('the result parser refuses what Daraja does not send', () => {
    expect(() => parseReversalResult({})).toThrow(/Result/);
    expect(() => parseReversalResult({ Result: { ResultCode: 0, ConversationID: 'AG_1' } })).toThrow(/TransactionID/);
    expect(() => parseReversalResult({ Result: { ResultCode: { x: 1 }, ConversationID: 'AG_1' } })).toThrow(/ResultCode/);
    expect(parseReversalResult({ Result: { ResultCode: 'R000002', ResultDesc: 'bad', ConversationID: 'AG_1' } })).toEqual({
      succeeded: false,
      resultCode: 'R000002',
      resultDesc: 'bad',
      conversationId: 'AG_1',
      transactionId: null,
    });
  });
});
