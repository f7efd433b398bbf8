// Refunds of live M-Pesa payments sent for real, through a real server against the Daraja peer: `cowrie
// refunds approve` sends a Daraja reversal (`POST /mpesa/reversal/v1/request`, the receipt as TransactionID,
// the shillings paid, the initiator variables, an unguessable per-refund ResultURL) and the refund is
// `pending`; the result callback makes it `succeeded` (the reversal's receipt as provider_reference), the
// intent `refunded`, with `refund.updated` and `payment_intent.refunded` events (what webhooks send); a failed
// result (or a queue time-out) makes it `failed` with Daraja's words, and it can be asked for again;
// repeated callbacks change nothing; unknown callback paths answer 404; Daraja's refusal to take the
// request is sent again, a request Daraja may have taken never is. Without the initiator variables refunds
// stay `requested` and say why. Runs on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { runCliIn } from './helpers/cli.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { openCheckout, pay, waitForStatus } from './helpers/checkout.js';
import { spawn } from 'node:child_process';
import { ConfigError, loadConfig } from '../src/config.js';
import { freePorts, SERVER_MAIN } from './helpers/server-process.js';
import { MPESA_TEST_CREDENTIALS, mpesaEnv } from './helpers/mpesa.js';
import { expectLedgerInvariant } from './helpers/ledger-invariant.js';
import { waitFor } from './helpers/wait.js';

const INITIATOR = { COWRIE_MPESA_INITIATOR_NAME: 'cowrie-api', COWRIE_MPESA_SECURITY_CREDENTIAL: 'c2VjcmV0IGNyZWRlbnRpYWw=' };

describe(`refunds of live M-Pesa payments as Daraja reversals (${ENGINE})`, () => {
  let s: TestServer;
  let peer: DarajaPeer;
  let livePort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    peer = await startDarajaPeer({
      ...MPESA_TEST_CREDENTIALS,
      initiatorName: INITIATOR.COWRIE_MPESA_INITIATOR_NAME,
      securityCredential: INITIATOR.COWRIE_MPESA_SECURITY_CREDENTIAL,
    });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    env = { ...mpesaEnv(peer, live, sandbox), ...INITIATOR, COWRIE_MPESA_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
    s = await startTestServer({ noLiveRails: true, env });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  function live_(method: string, path: string, body?: unknown) {
    return s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  }
  const cli = (...argv: string[]) =>
    runCliIn({ ...env, COWRIE_DATABASE_URL: s.config.databaseUrl, COWRIE_LIVE_PORT: String(livePort) }, [...argv, '--json']);
  /** A live KES intent paid through the peer's STK push; answers the intent and its receipt. */
  async function paidByMpesa(amount = '250.40') {
    const pi = (await live_('POST', '/payment-intents', { amount, currency: 'KES' })).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect((await pay(s, page, { method: 'mpesa', phone: '0712345678' })).status).toBe(200);
    await waitForStatus(s, page, (x) => x.status === 'paid');
    const paid = (await live_('GET', `/payment-intents/${pi.id}`)).json;
    return { pi, receipt: paid.provider_reference as string };
  }
  async function requested(pi: any) {
    const r = await live_('POST', '/refunds', { payment_intent: pi.id, reason: 'requested_by_customer' });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toBe('requested');
    return r.json;
  }
  const refundOf = async (id: string) => (await live_('GET', `/refunds/${id}`)).json;
  const waitRefund = (id: string, status: string) =>
    waitFor(
      `refund ${id} ${status}`,
      () => refundOf(id),
      (x) => x.status === status,
      { timeoutMs: 15_000 },
    );
  const refundEvents = async (id: string) =>
    (await s.running.database.db.selectFrom('events').select(['payload']).where('type', '=', 'refund.updated').orderBy('seq').execute())
      .map((e) => JSON.parse(e.payload).data)
      .filter((d: any) => d.id === id)
      .map((d: any) => d.status);
  const reversalsOf = (receipt: string) => peer.reversals.filter((r) => r.body['TransactionID'] === receipt);

  it('approve sends the reversal and makes the refund pending; the result callback settles it, the intent refunded, with its events', async () => {
    const { pi, receipt } = await paidByMpesa('250.40');
    const refund = await requested(pi);
    const approved = await cli('refunds', 'approve', refund.id);
    expect(approved.code, approved.out).toBe(0);
    expect(approved.json.refund).toMatchObject({ id: refund.id, status: 'pending' });
    const [sent] = reversalsOf(receipt);
    expect(sent!.body).toMatchObject({
      Initiator: 'cowrie-api',
      SecurityCredential: INITIATOR.COWRIE_MPESA_SECURITY_CREDENTIAL,
      CommandID: 'TransactionReversal',
      TransactionID: receipt,
      Amount: 251,
      ReceiverParty: MPESA_TEST_CREDENTIALS.shortcode,
      RecieverIdentifierType: '11',
    });
    const result = new RegExp(`^http://127\\.0\\.0\\.1:${livePort}/rails/mpesa/reversal/[A-Za-z0-9_-]{32}/result$`);
    expect(String(sent!.body['ResultURL'])).toMatch(result);
    expect(String(sent!.body['QueueTimeOutURL'])).toBe(String(sent!.body['ResultURL']).replace(/result$/, 'timeout'));
    const done = await waitRefund(refund.id, 'succeeded');
    expect(done).toMatchObject({ provider_reference: sent!.receipt, failure_reason: null, amount: pi.amount, currency: 'KES' });
    expect(sent!.answers).toEqual([200]);
    expect((await live_('GET', `/payment-intents/${pi.id}`)).json.status).toBe('refunded');
    expect(await refundEvents(refund.id)).toEqual(['pending', 'succeeded']);
    // The events every webhook endpoint of the merchant is sent (live endpoints are https to public hosts only).
    const refunded = await s.running.database.db
      .selectFrom('events')
      .select(['payload'])
      .where('type', '=', 'payment_intent.refunded')
      .execute();
    expect(refunded.map((e) => JSON.parse(e.payload).data.id)).toContain(pi.id);
    // The same result again: nothing changes.
    expect(await peer.resendReversalResult(sent!.conversationId)).toBe(200);
    expect(await refundEvents(refund.id)).toEqual(['pending', 'succeeded']);
    expect(reversalsOf(receipt)).toHaveLength(1);
    const again = await cli('refunds', 'approve', refund.id);
    expect(again.code).not.toBe(0);
    expect(again.out).toContain('refund_exists');
  });

  it('a failed result makes the refund failed with Daraja’s words; the payment can be refunded again', async () => {
    const { pi, receipt } = await paidByMpesa('120');
    const refund = await requested(pi);
    peer.setNextReversal({ resultCode: 'R000001', resultDesc: 'The transaction has already been reversed.', callback: 'twice' });
    expect((await cli('refunds', 'approve', refund.id)).code).toBe(0);
    const failed = await waitRefund(refund.id, 'failed');
    expect(failed.failure_reason).toMatch(/already been reversed.*R000001/);
    await waitFor(
      'both results answered',
      async () => reversalsOf(receipt)[0]!.answers,
      (a) => a.length === 2,
    );
    expect(reversalsOf(receipt)[0]!.answers).toEqual([200, 200]);
    expect(await refundEvents(refund.id)).toEqual(['pending', 'failed']);
    expect((await live_('GET', `/payment-intents/${pi.id}`)).json.status).toBe('paid');
    const second = await requested(pi);
    expect((await cli('refunds', 'approve', second.id)).code).toBe(0);
    await waitRefund(second.id, 'succeeded');
    expect(reversalsOf(receipt)).toHaveLength(2);
    expect((await live_('GET', `/payment-intents/${pi.id}`)).json.status).toBe('refunded');
  });

  it('a queue time-out fails the refund', async () => {
    const { pi } = await paidByMpesa('90');
    const refund = await requested(pi);
    peer.setNextReversal({ callback: 'timeout' });
    expect((await cli('refunds', 'approve', refund.id)).code).toBe(0);
    const failed = await waitRefund(refund.id, 'failed');
    expect(failed.failure_reason).toMatch(/queue timed out/);
  });

  it('unknown and malformed result callbacks answer 404 and 400 and change nothing', async () => {
    const base = `http://127.0.0.1:${livePort}/rails/mpesa/reversal`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const some = { Result: { ResultType: 0, ResultCode: 0, ResultDesc: 'ok', ConversationID: 'AG_1', TransactionID: 'RKT1234567' } };
    expect((await post('A'.repeat(32) + '/result', some)).status).toBe(404);
    expect((await post('short/result', some)).status).toBe(404);
    // A known token with a body that is not a result, or another conversation's result.
    const { pi, receipt } = await paidByMpesa('60');
    const refund = await requested(pi);
    peer.setNextReversal({ callback: 'never' });
    expect((await cli('refunds', 'approve', refund.id)).code).toBe(0);
    const [sent] = reversalsOf(receipt);
    const path = new URL(String(sent!.body['ResultURL'])).pathname.replace('/rails/mpesa/reversal/', '');
    expect((await post(path.replace(/result$/, 'other'), some)).status).toBe(404);
    expect((await post(path, { Body: {} })).status).toBe(400);
    expect((await post(path, some)).status).toBe(400);
    expect((await refundOf(refund.id)).status).toBe('pending');
    // The real result, late: settles it.
    expect(await peer.resendReversalResult(sent!.conversationId)).toBe(200);
    await waitRefund(refund.id, 'succeeded');
  });

  it('Daraja refusing to take the request is sent again by the questions; a request it may have taken is never sent twice', async () => {
    const { pi, receipt } = await paidByMpesa('75');
    const refund = await requested(pi);
    peer.failNext('reversal', 503);
    expect((await cli('refunds', 'approve', refund.id)).code).toBe(0);
    expect((await refundOf(refund.id)).status).toBe('pending');
    await waitRefund(refund.id, 'succeeded');
    expect(reversalsOf(receipt)).toHaveLength(1); // the 503 took nothing
    expect(
      peer.calls
        .filter((c) => c.path === '/mpesa/reversal/v1/request')
        .map((c) => c.status)
        .slice(-2),
    ).toEqual([503, 200]);

    // A request whose acknowledgement never came back in time (Daraja slow): it is not sent again; its result settles it.
    const second = await paidByMpesa('76');
    const r2 = await requested(second.pi);
    peer.holdNext('reversal', 20_000);
    peer.setNextReversal({ delayMs: 300 });
    const before = peer.received.reversal;
    const approved = cli('refunds', 'approve', r2.id);
    await waitRefund(r2.id, 'succeeded');
    expect(peer.received.reversal).toBe(before + 1);
    expect(reversalsOf(second.receipt)).toHaveLength(1);
    expect((await approved).code).toBe(0);
  }, 40_000);

  it('kill -9 of the approving process after Daraja got the reversal: asked again, never reversed twice, settled by the result', async () => {
    const { pi, receipt } = await paidByMpesa('310');
    const refund = await requested(pi);
    peer.holdNext('reversal', 10_000);
    peer.setNextReversal({ delayMs: 3_000 });
    const before = peer.received.reversal;
    const childEnv: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COWRIE_')) childEnv[k] = v;
    Object.assign(childEnv, env, { COWRIE_DATABASE_URL: s.config.databaseUrl });
    const child = spawn(process.execPath, [SERVER_MAIN, 'refunds', 'approve', refund.id, '--json'], { env: childEnv, stdio: 'pipe' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await waitFor(
      'Daraja got the reversal',
      async () => peer.received.reversal,
      (n) => n === before + 1,
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const row = await s.running.database.db
      .selectFrom('mpesa_reversals')
      .selectAll()
      .where('refund_id', '=', refund.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'sending', conversation_id: null, transaction_id: receipt, amount_kes: 310 });
    expect((await refundOf(refund.id)).status).toBe('pending');
    // The server's questions find the reversal written before the call and do not send another.
    await waitFor(
      'the refund was asked about again',
      () =>
        s.running.database.db
          .selectFrom('refunds')
          .select(['queries', 'rail_reference'])
          .where('id', '=', refund.id)
          .executeTakeFirstOrThrow(),
      (r) => r.queries > 0 && r.rail_reference === refund.id,
    );
    const done = await waitRefund(refund.id, 'succeeded');
    expect(done.provider_reference).toBe(reversalsOf(receipt)[0]!.receipt);
    expect(peer.received.reversal).toBe(before + 1);
    expect(reversalsOf(receipt)).toHaveLength(1);
    expect((await live_('GET', `/payment-intents/${pi.id}`)).json.status).toBe('refunded');
  }, 40_000);
});

describe('M-Pesa reversal configuration', () => {
  const all = {
    COWRIE_MPESA_CONSUMER_KEY: 'k',
    COWRIE_MPESA_CONSUMER_SECRET: 's',
    COWRIE_MPESA_SHORTCODE: '174379',
    COWRIE_MPESA_PASSKEY: 'p',
  };
  it('both initiator variables turn reversals on; one alone, or without the rail, stops the start naming what is missing', () => {
    expect(loadConfig(all).mpesa?.initiator).toBeNull();
    expect(loadConfig({ ...all, ...INITIATOR }).mpesa?.initiator).toEqual({
      name: 'cowrie-api',
      securityCredential: INITIATOR.COWRIE_MPESA_SECURITY_CREDENTIAL,
    });
    expect(() => loadConfig({ ...all, COWRIE_MPESA_INITIATOR_NAME: 'x' })).toThrow(/missing: COWRIE_MPESA_SECURITY_CREDENTIAL/);
    expect(() => loadConfig({ ...all, COWRIE_MPESA_SECURITY_CREDENTIAL: 'y' })).toThrow(/missing: COWRIE_MPESA_INITIATOR_NAME/);
    expect(() => loadConfig(INITIATOR)).toThrow(/COWRIE_MPESA_INITIATOR_NAME is set but the live M-Pesa rail is not/);
  });
  it('a malformed credential is refused without repeating it', () => {
    const long = 'S3cr3t'.repeat(1000);
    let message = '';
    try {
      loadConfig({ ...all, COWRIE_MPESA_INITIATOR_NAME: 'x', COWRIE_MPESA_SECURITY_CREDENTIAL: long });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain('COWRIE_MPESA_SECURITY_CREDENTIAL');
    expect(message).not.toContain('S3cr3t');
  });
});

describe(`live M-Pesa without the initiator variables (${ENGINE})`, () => {
  let s: TestServer;
  let peer: DarajaPeer;
  let livePort: number;

  beforeAll(async () => {
    peer = await startDarajaPeer(MPESA_TEST_CREDENTIALS);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    s = await startTestServer({ noLiveRails: true, env: { ...mpesaEnv(peer, live, sandbox), COWRIE_JOB_INTERVAL_MS: '200' } });
  });
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  it('an approved refund stays requested and says why; nothing reaches Daraja', async () => {
    const pi = (
      await s.call('live', 'POST', '/payment-intents', { key: s.merchant.keys.live_secret!, body: { amount: '100', currency: 'KES' } })
    ).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    await pay(s, page, { method: 'mpesa', phone: '0712345678' });
    await waitForStatus(s, page, (x) => x.status === 'paid');
    const refund = (await s.call('live', 'POST', '/refunds', { key: s.merchant.keys.live_secret!, body: { payment_intent: pi.id } })).json;
    await expect(s.running.services.refundDecisions.approve(refund.id)).rejects.toThrow(/not configured to send refunds/);
    expect((await s.call('live', 'GET', `/refunds/${refund.id}`, { key: s.merchant.keys.live_secret! })).json.status).toBe('requested');
    expect(peer.received.reversal).toBe(0);
    const cb = await fetch(`http://127.0.0.1:${livePort}/rails/mpesa/reversal/${'A'.repeat(32)}/result`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(cb.status).toBe(404);
  });
});
