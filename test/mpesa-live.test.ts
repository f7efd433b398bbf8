// The live M-Pesa rail against the Daraja peer: an STK push from the live checkout with Daraja's Password,
// Nairobi Timestamp and whole shillings, the attempt recorded with Daraja's ids; each result code through the
// callback; duplicate, late and lost callbacks (the last answered by the STK query); one OAuth token for many
// payments and a new one when Daraja forgets it; Daraja's error answers as failed attempts; an amount other
// than asked; unknown and malformed callbacks; refunds left for the operator's review. Runs on SQLite and
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { openCheckout, pay, waitForStatus, eventTypes } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { MPESA_TEST_CREDENTIALS, mpesaEnv } from './helpers/mpesa.js';
import { waitFor } from './helpers/wait.js';

describe(`live M-Pesa against the Daraja peer (${ENGINE})`, () => {
  let s: TestServer;
  let peer: DarajaPeer;
  let livePort: number;

  beforeAll(async () => {
    peer = await startDarajaPeer(MPESA_TEST_CREDENTIALS);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    s = await startTestServer({
      noLiveRails: true,
      env: { ...mpesaEnv(peer, live, sandbox), COWRIE_MPESA_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  async function liveIntent(amount = '1500.50'): Promise<any> {
    const r = await live('POST', '/payment-intents', { amount, currency: 'KES' });
    expect(r.status, r.text).toBe(201);
    expect(r.json.payment_methods).toEqual(['mpesa']);
    return r.json;
  }
  async function payByPhone(pi: any, phone: string) {
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect(page.status).toBe(200);
    expect(page.html).toContain('value="mpesa"');
    const r = await pay(s, page, { method: 'mpesa', phone });
    return { page, r };
  }
  /** Daraja's callbacks for `push` that the server has answered (each callback URL is the push's own). */
  const answeredCallbacks = (push: { body: Record<string, unknown> }) => {
    const path = new URL(String(push.body['CallBackURL'])).pathname;
    return s.logs.filter((l) => l['msg'] === 'request completed' && (l['req'] as { url?: string })?.url === path).length;
  };
  const railRow = (intentId: string) =>
    s.running.database.db
      .selectFrom('rail_payments')
      .selectAll()
      .where('payment_intent_id', '=', intentId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();

  it('pays: Daraja gets a valid STK push for whole shillings; the callback pays the intent with the receipt kept', async () => {
    const pi = await liveIntent('1500.50');
    const before = peer.pushes.length;
    const { page, r } = await payByPhone(pi, '0700000001');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ state: 'pending', next_action: { type: 'stk_push' } });
    const push = peer.pushes[before]!;
    expect(push.body).toMatchObject({
      BusinessShortCode: '174379',
      Amount: 1501,
      PartyA: '254700000001',
      PhoneNumber: '254700000001',
      PartyB: '174379',
    });
    expect(String(push.body['AccountReference']).length).toBeLessThanOrEqual(12);
    expect(String(push.body['CallBackURL'])).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${livePort}/rails/mpesa/callback/[A-Za-z0-9_-]{32}$`),
    );
    // The attempt was recorded with Daraja's ids before the customer was told to check the phone.
    const row = await railRow(pi.id);
    expect(row.external_id).toBe(push.checkoutRequestId);
    expect(JSON.parse(row.details).merchant_request_id).toBe(push.merchantRequestId);
    const st = await waitForStatus(s, page, (x) => x.status === 'paid');
    expect(st.headline).toMatch(/^Paid/);
    const after = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(after).toMatchObject({ status: 'paid', payment_method: 'mpesa', provider_reference: push.receipt, last_payment_error: null });
    expect((await railRow(pi.id)).provider_reference).toBe(push.receipt);
  });

  it.each([
    ['254700000002', 'customer_cancelled'],
    ['254700000003', 'insufficient_funds'],
    ['254700000004', 'timeout'],
    ['254700000005', 'invalid_pin'],
  ])('result code of %s: a failed attempt (%s); the intent stays payable', async (phone, code) => {
    const pi = await liveIntent('200');
    const { page } = await payByPhone(pi, `+${phone}`);
    const st = await waitForStatus(s, page, (x) => x.attempt?.state === 'failed');
    expect(st.status).toBe('awaiting_payment');
    expect(st.detail).toMatch(/Try again/);
    const after = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(after.last_payment_error.code).toBe(code);
    expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.payment_failed');
  });

  it('any other result code is a provider error with Daraja’s words', async () => {
    const pi = await liveIntent('200');
    peer.setNextBehaviour({ resultCode: 9999, resultDesc: 'System busy, try later' });
    const { page } = await payByPhone(pi, '0712345678');
    await waitForStatus(s, page, (x) => x.attempt?.state === 'failed');
    const after = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(after.last_payment_error).toMatchObject({ code: 'provider_error', payment_method: 'mpesa' });
    expect(after.last_payment_error.message).toContain('System busy, try later');
  });

  it('a duplicate callback changes nothing; a lost one is answered by the STK query', async () => {
    const dup = await liveIntent('300');
    peer.setNextBehaviour({ callback: 'twice' });
    const a = await payByPhone(dup, '0712345678');
    await waitForStatus(s, a.page, (x) => x.status === 'paid');
    await waitFor(
      'both callbacks answered',
      () => answeredCallbacks(peer.pushes.at(-1)!),
      (n) => n === 2,
    );
    expect((await eventTypes(s, dup.id)).filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
    expect(peer.pushes.at(-1)!.callbacks).toBe(2);

    const lost = await liveIntent('300');
    peer.setNextBehaviour({ callback: 'never' });
    const b = await payByPhone(lost, '0712345678');
    const st = await waitForStatus(s, b.page, (x) => x.status === 'paid', 15_000);
    expect(st.status).toBe('paid');
    const row = await railRow(lost.id);
    expect(row.queries).toBeGreaterThanOrEqual(1);
    expect(peer.calls.some((c) => c.path === '/mpesa/stkpushquery/v1/query' && c.status === 200)).toBe(true);
  });

  it('one OAuth token for many payments at once; a new one when Daraja forgets it', async () => {
    const startTokens = peer.tokenRequests;
    const intents = await Promise.all(Array.from({ length: 5 }, () => liveIntent('100')));
    const results = await Promise.all(intents.map((pi) => payByPhone(pi, '0712345678')));
    for (const { r } of results) expect(r.json.state).toBe('pending');
    expect(peer.tokenRequests - startTokens).toBeLessThanOrEqual(1);
    peer.expireTokens();
    const again = await payByPhone(await liveIntent('100'), '0712345678');
    expect(again.r.json.state).toBe('pending');
    expect(peer.tokenRequests - startTokens).toBeLessThanOrEqual(2);
    expect(peer.calls.some((c) => c.status === 404)).toBe(true);
  });

  it('Daraja’s error answer is a failed attempt in plain words, never a 500', async () => {
    const pi = await liveIntent('100');
    peer.failNext('stkpush', 503);
    const { r } = await payByPhone(pi, '0712345678');
    expect(r.status, r.text).toBe(200);
    expect(r.json.state).toBe('completed');
    const after = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(after.status).toBe('awaiting_payment');
    expect(after.last_payment_error).toMatchObject({ code: 'provider_error' });
    expect(after.last_payment_error.message).toContain('Service Unavailable');
  });

  it('an amount other than asked is underpaid; unknown and malformed callbacks change nothing', async () => {
    const pi = await liveIntent('1000');
    peer.setNextBehaviour({ amountPaid: 400 });
    const { page } = await payByPhone(pi, '0712345678');
    await waitForStatus(s, page, (x) => x.attempt?.state !== 'pending');
    const after = (await live('GET', `/payment-intents/${pi.id}`)).json;
    expect(after.status).toBe('awaiting_payment');
    expect(Number(after.amount_received)).toBeCloseTo(Number(pi.pay_amount) * 0.4, 5);
    expect(await eventTypes(s, pi.id)).toContain('payment_intent.underpaid');

    const unknown = await fetch(`http://127.0.0.1:${livePort}/rails/mpesa/callback/${'x'.repeat(32)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Body: { stkCallback: { ResultCode: 0 } } }),
    });
    expect(unknown.status).toBe(404);
    // A malformed body at a real token: 400, nothing moves.
    const open = await liveIntent('100');
    peer.setNextBehaviour({ callback: 'never', delayMs: 60_000 });
    await payByPhone(open, '0712345678');
    const url = String(peer.pushes.at(-1)!.body['CallBackURL']).replace(/^http:\/\/127\.0\.0\.1:\d+/, `http://127.0.0.1:${livePort}`);
    for (const body of [{}, { Body: {} }, { Body: { stkCallback: { MerchantRequestID: 'a', CheckoutRequestID: 'b', ResultCode: '0' } } }]) {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { ResultCode: number }).ResultCode).toBe(1);
    }
    expect((await live('GET', `/payment-intents/${open.id}`)).json.status).toBe('awaiting_payment');
  });

  it('a refund of a live M-Pesa payment waits for review, which records the reversal’s reference', async () => {
    const pi = await liveIntent('100');
    const { page } = await payByPhone(pi, '0712345678');
    await waitForStatus(s, page, (x) => x.status === 'paid');
    const refund = await live('POST', '/refunds', { payment_intent: pi.id });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.json.status).toBe('requested');
    const reviewed = await s.running.services.refunds.review(refund.json.id, 'succeeded', 'RKT1234567');
    expect(reviewed).toMatchObject({ status: 'succeeded', rail_reference: 'RKT1234567' });
  });

  it('a payment two processes ask about at once is asked about once', async () => {
    const pi = await liveIntent('100');
    peer.setNextBehaviour({ callback: 'never', delayMs: 60_000 });
    await payByPhone(pi, '0712345678');
    const queries = () => peer.calls.filter((c) => c.path === '/mpesa/stkpushquery/v1/query').length;
    const first = queries();
    // The server's own poller asks 1 s after the push: that question is let finish first (claimed, next one
    // seconds away, received by the peer), so that the one counted below is the only one under way.
    const row = await waitFor(
      "the poller's first question",
      async () => ({ row: await railRow(pi.id), asked: queries() - first }),
      (x) => x.row.queries >= 1 && Number(x.row.resolve_at) > Date.now() && x.asked >= x.row.queries,
      { timeoutMs: 15_000 },
    ).then((x) => x.row);
    // Due now: every asker sees it due, one wins the claim.
    await s.running.database.db
      .updateTable('rail_payments')
      .set({ resolve_at: Date.now() - 1 })
      .where('id', '=', row.id)
      .where('queries', '=', row.queries)
      .execute();
    const before = queries();
    const rail = s.running.services.mpesa!;
    const scope = { merchantId: row.merchant_id, environment: row.environment };
    await Promise.all([rail.poll(scope, row.id), rail.poll(scope, row.id), rail.poll(scope, row.id)]);
    expect(queries() - before).toBe(1);
    const after = await railRow(pi.id);
    expect(after.queries).toBe(row.queries + 1);
    expect(after.state).toBe('pending');
    expect(Number(after.resolve_at)).toBeGreaterThan(Date.now());
  });
});
