// The Daraja peer and the Daraja client: the peer checks what it receives as strictly as
// Daraja (token, Password, Timestamp, Amount, phone, field lengths) and answers in Daraja's shapes; the
// client computes what Daraja checks, caches its token, fetches it once for many calls and again when
// Daraja forgets it; callbacks are parsed strictly. No database: the same on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DarajaClient,
  DarajaError,
  nairobiTimestamp,
  outcomeOfResultCode,
  parseStkCallback,
  stkPassword,
} from '../src/modules/rails/mpesa/daraja-client.js';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { loadConfig } from '../src/config.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

const CREDS = { consumerKey: 'ck', consumerSecret: 'cs', shortcode: '174379', passkey: 'passkey-1' };

describe('Daraja peer and client', () => {
  let peer: DarajaPeer;
  let receiver: Receiver;
  let callbackUrl: string;

  beforeAll(async () => {
    peer = await startDarajaPeer({ ...CREDS, tokenTtlS: 2 });
    receiver = await startReceiver();
    callbackUrl = `${receiver.url}/cb`;
  });
  afterAll(async () => {
    await peer?.close();
    await receiver?.close();
  });

  const client = (o: Partial<typeof CREDS> = {}) => new DarajaClient({ baseUrl: peer.url, ...CREDS, ...o });
  async function token(): Promise<string> {
    const r = await fetch(`${peer.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: `Basic ${Buffer.from('ck:cs').toString('base64')}` },
    });
    expect(r.status).toBe(200);
    const j = (await r.json()) as { access_token: string; expires_in: string };
    expect(j.expires_in).toBe('2');
    return j.access_token;
  }
  const push = async (tok: string, over: Record<string, unknown>) => {
    const ts = nairobiTimestamp(new Date());
    const body = {
      BusinessShortCode: '174379',
      Password: stkPassword('174379', 'passkey-1', ts),
      Timestamp: ts,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 10,
      PartyA: '254712345678',
      PartyB: '174379',
      PhoneNumber: '254712345678',
      CallBackURL: callbackUrl,
      AccountReference: 'ref',
      TransactionDesc: 'Payment',
      ...over,
    };
    const r = await fetch(`${peer.url}/mpesa/stkpush/v1/processrequest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };

  it('refuses bad credentials, an unknown token, and every malformed field as Daraja does', async () => {
    const bad = await fetch(`${peer.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: `Basic ${Buffer.from('ck:wrong').toString('base64')}` },
    });
    expect(bad.status).toBe(400);
    expect((await push('nope', {})).json['errorCode']).toBe('404.001.03');
    const tok = await token();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ Password: 'x' }, 'Password'],
      [{ Timestamp: '20200101000000' }, 'Timestamp'],
      [{ Timestamp: 'soon' }, 'Timestamp'],
      [{ BusinessShortCode: '999' }, 'BusinessShortCode'],
      [{ Amount: 10.5 }, 'Amount'],
      [{ Amount: '10' }, 'Amount'],
      [{ Amount: 0 }, 'Amount'],
      [{ PhoneNumber: '0712345678' }, 'PhoneNumber'],
      [{ PartyA: '+254712345678' }, 'PartyA'],
      [{ CallBackURL: 'not a url' }, 'CallBackURL'],
      [{ AccountReference: 'x'.repeat(13) }, 'AccountReference'],
      [{ TransactionDesc: 'x'.repeat(14) }, 'TransactionDesc'],
      [{ TransactionType: 'Other' }, 'TransactionType'],
    ];
    for (const [over, field] of cases) {
      const r = await push(tok, over);
      expect(r.status, field).toBe(400);
      expect(r.json, field).toMatchObject({ errorCode: '400.002.02', errorMessage: `Bad Request - Invalid ${field}` });
      expect(typeof r.json['requestId']).toBe('string');
    }
    const ok = await push(tok, {});
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ ResponseCode: '0' });
    expect(String(ok.json['CheckoutRequestID'])).toMatch(/^ws_CO_/);
  });

  it('the client: one token for 20 calls at once, a new one after expiry or when Daraja forgets it', async () => {
    const c = client();
    const before = peer.tokenRequests;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        c.stkPush({
          amount: 5,
          phone: '254712345678',
          callbackUrl,
          accountReference: 'a-long-account-ref',
          description: 'A long description',
        }),
      ),
    );
    expect(new Set(answers.map((a) => a.checkoutRequestId)).size).toBe(20);
    expect(peer.tokenRequests - before).toBe(1);
    // Daraja's limits: AccountReference 12, TransactionDesc 13
    expect(peer.pushes.at(-1)!.body).toMatchObject({ AccountReference: 'a-long-accou', TransactionDesc: 'A long descri' });
    peer.expireTokens();
    await c.stkPush({ amount: 5, phone: '254712345678', callbackUrl, accountReference: 'r', description: 'd' });
    expect(peer.tokenRequests - before).toBe(2);
    expect(c.tokenFetches).toBe(2);
  });

  it('the client: error answers typed; the query is pending, then final', async () => {
    const c = client({ passkey: 'wrong' });
    await expect(
      c.stkPush({ amount: 5, phone: '254712345678', callbackUrl, accountReference: 'r', description: 'd' }),
    ).rejects.toMatchObject({
      status: 400,
      errorCode: '400.002.02',
      errorMessage: 'Bad Request - Invalid Password',
    });
    await expect(
      client().stkPush({ amount: 1.5, phone: '254712345678', callbackUrl, accountReference: 'r', description: 'd' }),
    ).rejects.toThrow(RangeError);
    peer.failNext('stkpush', 503);
    await expect(
      client().stkPush({ amount: 5, phone: '254712345678', callbackUrl, accountReference: 'r', description: 'd' }),
    ).rejects.toBeInstanceOf(DarajaError);
    peer.setBehaviour('254711111111', { resultCode: 1032, delayMs: 400 });
    const c2 = client();
    const p = await c2.stkPush({ amount: 5, phone: '254711111111', callbackUrl, accountReference: 'r', description: 'd' });
    expect(await c2.stkQuery(p.checkoutRequestId)).toEqual({ state: 'pending' });
    // The phone answers: its callback arrives, and from then on the query is final.
    await receiver.waitFor((got) => got.some((r) => r.body.includes(p.checkoutRequestId)), 5000, 'the callback of the push');
    expect(await c2.stkQuery(p.checkoutRequestId)).toEqual({ state: 'final', resultCode: 1032, resultDesc: 'Request cancelled by user' });
  });

  it('callbacks: once, twice, late or never, in Daraja’s shape, parsed strictly', async () => {
    const c = client();
    receiver.received.length = 0;
    peer.setBehaviour('254722222222', { callback: 'twice', delayMs: 50 });
    const twice = await c.stkPush({ amount: 7, phone: '254722222222', callbackUrl, accountReference: 'r', description: 'd' });
    peer.setBehaviour('254733333333', { callback: 'never', delayMs: 50 });
    const never = await c.stkPush({ amount: 7, phone: '254733333333', callbackUrl, accountReference: 'r', description: 'd' });
    // Every callback the peer sends for them has been sent, none is left to send, and what was sent has arrived
    // (counting only these two pushes' callbacks: an earlier test's late one may still come in).
    const ids = [twice.checkoutRequestId, never.checkoutRequestId];
    const pushes = peer.pushes.filter((x) => ids.includes(x.checkoutRequestId));
    const ours = () => receiver.received.filter((got) => ids.includes(JSON.parse(got.body)?.Body?.stkCallback?.CheckoutRequestID));
    await waitFor(
      'the peer’s callbacks sent and received',
      () => ({
        scheduled: peer.pendingCallbacks,
        sent: pushes.reduce((n, x) => n + x.callbacks, 0),
        received: ours().length,
      }),
      (v) => v.scheduled === 0 && v.sent === 2 && v.received >= v.sent,
    );
    expect(ours()).toHaveLength(2);
    for (const got of ours()) {
      const cb = parseStkCallback(JSON.parse(got.body));
      expect(cb).toMatchObject({ checkoutRequestId: twice.checkoutRequestId, resultCode: 0, amount: 7 });
      expect(cb.receipt).toMatch(/^[A-Z0-9]{10}$/);
    }
    for (const bad of [
      null,
      [],
      {},
      { Body: { stkCallback: { ResultCode: '0' } } },
      { Body: { stkCallback: { MerchantRequestID: 'a', CheckoutRequestID: 'b', ResultCode: 0 } } },
    ]) {
      expect(() => parseStkCallback(bad)).toThrow();
    }
    expect(
      parseStkCallback({ Body: { stkCallback: { MerchantRequestID: 'a', CheckoutRequestID: 'b', ResultCode: 1032, ResultDesc: 'x' } } }),
    ).toEqual({
      merchantRequestId: 'a',
      checkoutRequestId: 'b',
      resultCode: 1032,
      resultDesc: 'x',
    });
  });

  it('result codes map as documented', () => {
    expect(outcomeOfResultCode(0, '')).toEqual({ outcome: 'success' });
    expect(outcomeOfResultCode(1032, '')).toMatchObject({ failureCode: 'customer_cancelled' });
    expect(outcomeOfResultCode(1, '')).toMatchObject({ failureCode: 'insufficient_funds' });
    expect(outcomeOfResultCode(1037, '')).toMatchObject({ failureCode: 'timeout' });
    expect(outcomeOfResultCode(1019, '')).toMatchObject({ failureCode: 'timeout' });
    expect(outcomeOfResultCode(2001, '')).toMatchObject({ failureCode: 'invalid_pin' });
    expect(outcomeOfResultCode(17, 'Rule limited')).toEqual({
      outcome: 'attempt_failed',
      failureCode: 'provider_error',
      providerText: 'Rule limited',
    });
  });

  it('Timestamp and Password are Daraja’s: Nairobi time, base64 of shortcode, passkey and timestamp', () => {
    expect(nairobiTimestamp(new Date('2026-11-24T21:30:05Z'))).toBe('20261125003005');
    expect(stkPassword('174379', 'abc', '20261125003005')).toBe(Buffer.from('174379abc20261125003005').toString('base64'));
  });

  it('configuration: all four credentials turn the rail on; some without the others, or a malformed value, names itself', () => {
    const all = {
      COWRIE_MPESA_CONSUMER_KEY: 'k',
      COWRIE_MPESA_CONSUMER_SECRET: 's',
      COWRIE_MPESA_SHORTCODE: '174379',
      COWRIE_MPESA_PASSKEY: 'p',
    };
    expect(loadConfig({}).mpesa).toBeNull();
    expect(loadConfig(all).mpesa).toMatchObject({
      baseUrl: 'https://api.safaricom.co.ke',
      shortcode: '174379',
      callbackOrigin: 'http://localhost:4000',
      queryAfterS: 30,
    });
    expect(() => loadConfig({ COWRIE_MPESA_CONSUMER_KEY: 'k', COWRIE_MPESA_PASSKEY: 'p' })).toThrow(
      /missing: COWRIE_MPESA_CONSUMER_SECRET, COWRIE_MPESA_SHORTCODE/,
    );
    expect(() => loadConfig({ ...all, COWRIE_MPESA_SHORTCODE: '12ab' })).toThrow(/COWRIE_MPESA_SHORTCODE/);
    expect(() => loadConfig({ ...all, COWRIE_MPESA_CALLBACK_URL: 'ftp://x' })).toThrow(/COWRIE_MPESA_CALLBACK_URL/);
    expect(() => loadConfig({ ...all, COWRIE_MPESA_QUERY_AFTER_S: '0' })).toThrow(/COWRIE_MPESA_QUERY_AFTER_S/);
    expect(() => loadConfig({ ...all, COWRIE_MPESA_BASE_URL: 'nope' })).toThrow(/COWRIE_MPESA_BASE_URL/);
  });
});
