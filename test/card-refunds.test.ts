// Refunds of live card payments through Paystack: requested until the operator decides; `cowrie refunds
// approve` sends Paystack `POST /refund` of the paying transaction and the refund is `pending` with
// Paystack's refund id; the `refund.processed` webhook (confirmed by `GET /refund/{id}`) or the questions
// make it `succeeded` and the intent `refunded`; `refund.failed` makes it `failed` with a reason, and it can be
// asked for again; `refunds reject --reason` fails it; `refund.updated` fires at every move. A send that
// failed is sent again by the questions, and a refund an earlier call made at Paystack is never made twice.
// Runs on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { runCliIn } from './helpers/cli.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { openCheckout, pay } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';
import { consoleHttp, csrfOf } from './helpers/console.js';
import { applyLive, expectLedgerInvariant } from './helpers/ledger-invariant.js';
import { LiveStandInRail } from './helpers/live-rail.js';
import { waitFor } from './helpers/wait.js';

describe(`refunds of live card payments through Paystack (${ENGINE})`, () => {
  let s: TestServer;
  let peer: PaystackPeer;
  let livePort: number;
  let env: Record<string, string>;

  beforeAll(async () => {
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET, refundDelayMs: 100 });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointWebhooksAt(peer, live);
    env = { ...cardEnv(peer, live, sandbox), COWRIE_PAYSTACK_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
    s = await startTestServer({ noLiveRails: true, env });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  const cli = (...argv: string[]) =>
    runCliIn({ ...env, COWRIE_DATABASE_URL: s.config.databaseUrl, COWRIE_LIVE_PORT: String(livePort) }, [...argv, '--json']);
  /** A live KES intent paid by card through the peer; answers the intent and Paystack's transaction. */
  async function paidByCard(amount = '300.00') {
    const pi = (await live('POST', '/payment-intents', { amount, currency: 'KES' })).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect((await pay(s, page, { method: 'card', email: 'refund@example.com' })).status).toBe(200);
    const tx = [...peer.transactions.values()].at(-1)!;
    const back = new URL(await peer.complete(tx.reference, 'success'));
    await fetch(`http://127.0.0.1:${livePort}${back.pathname}${back.search}`, { redirect: 'manual' });
    expect((await live('GET', `/payment-intents/${pi.id}`)).json.status).toBe('paid');
    return { pi, tx };
  }
  const refundOf = async (id: string) => (await live('GET', `/refunds/${id}`)).json;
  const refundEvents = async (id: string) =>
    (await s.running.database.db.selectFrom('events').select(['payload']).where('type', '=', 'refund.updated').orderBy('seq').execute())
      .map((e) => JSON.parse(e.payload).data)
      .filter((d: any) => d.id === id)
      .map((d: any) => d.status);
  const peerRefundsOf = (reference: string) => [...peer.refunds.values()].filter((r) => r.transaction.reference === reference);

  it('approve sends POST /refund and makes it pending; the refund.processed webhook makes it succeeded and the intent refunded', async () => {
    const { pi, tx } = await paidByCard();
    const r = await live('POST', '/refunds', { payment_intent: pi.id, reason: 'requested_by_customer' });
    expect(r.status, r.text).toBe(201);
    expect(r.json).toMatchObject({ status: 'requested', provider_reference: null, failure_reason: null });
    const approved = await cli('refunds', 'approve', r.json.id);
    expect(approved.code, approved.out).toBe(0);
    const [sent] = peerRefundsOf(tx.reference);
    expect(approved.json.refund).toMatchObject({ id: r.json.id, status: 'pending', provider_reference: String(sent!.id) });
    const post = peer.requests.find((q) => q.method === 'POST' && q.path === '/refund')!;
    expect(post.body).toEqual({ transaction: tx.reference });
    await waitFor(
      'the refund succeeded',
      () => refundOf(r.json.id),
      (x) => x.status === 'succeeded',
    );
    expect(peer.webhooks.some((w) => w.event === 'refund.processed' && w.status === 200)).toBe(true);
    expect(peer.requests.some((q) => q.method === 'GET' && q.path === `/refund/${sent!.id}`)).toBe(true);
    expect((await live('GET', `/payment-intents/${pi.id}`)).json.status).toBe('refunded');
    expect(await refundEvents(r.json.id)).toEqual(['pending', 'succeeded']);
    expect(peerRefundsOf(tx.reference)).toHaveLength(1);
    const again = await cli('refunds', 'approve', r.json.id);
    expect(again.code).not.toBe(0);
    expect(again.out).toContain('refund_exists');
  });

  it('with the webhook lost, the questions (GET /refund/{id}) settle it', async () => {
    const { pi } = await paidByCard();
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    peer.webhookFault = 'never';
    try {
      expect((await cli('refunds', 'approve', r.json.id)).code).toBe(0);
      await waitFor(
        'the refund succeeded',
        () => refundOf(r.json.id),
        (x) => x.status === 'succeeded',
        { timeoutMs: 15_000 },
      );
    } finally {
      peer.webhookFault = 'once';
    }
  });

  it('refund.failed makes it failed with a reason; the payment can be refunded again', async () => {
    const { pi } = await paidByCard();
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    peer.failNextRefund = true;
    expect((await cli('refunds', 'approve', r.json.id)).code).toBe(0);
    const failed = await waitFor(
      'the refund failed',
      () => refundOf(r.json.id),
      (x) => x.status === 'failed',
    );
    expect(failed.failure_reason).toMatch(/Paystack/);
    expect((await live('GET', `/payment-intents/${pi.id}`)).json.status).toBe('paid');
    expect(await refundEvents(r.json.id)).toEqual(['pending', 'failed']);
    const second = await live('POST', '/refunds', { payment_intent: pi.id });
    expect(second.status, second.text).toBe(201);
  });

  it('reject --reason fails a requested refund with that reason and sends nothing', async () => {
    const { pi, tx } = await paidByCard();
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    const rejected = await cli('refunds', 'reject', r.json.id, '--reason', 'Goods were never returned');
    expect(rejected.code, rejected.out).toBe(0);
    expect(rejected.json.refund).toMatchObject({ status: 'failed', failure_reason: 'Goods were never returned' });
    expect(await refundOf(r.json.id)).toMatchObject({ status: 'failed', failure_reason: 'Goods were never returned' });
    expect(peerRefundsOf(tx.reference)).toHaveLength(0);
    expect((await cli('refunds', 'reject', 're_000000000000000000000000', '--reason', 'x')).out).toContain('resource_missing');
  });

  it('a send Paystack failed is sent again by the questions; a refund an earlier call made is adopted, never made twice', async () => {
    const first = await paidByCard();
    const r1 = await live('POST', '/refunds', { payment_intent: first.pi.id });
    peer.failNext(2, 503);
    const approved = await cli('refunds', 'approve', r1.json.id);
    expect(approved.json.refund).toMatchObject({ status: 'pending', provider_reference: null });
    await waitFor(
      'the refund succeeded',
      () => refundOf(r1.json.id),
      (x) => x.status === 'succeeded',
      { timeoutMs: 15_000 },
    );
    expect(peerRefundsOf(first.tx.reference)).toHaveLength(1);

    // An earlier approval's POST /refund reached Paystack but its answer was lost (a crash).
    const second = await paidByCard();
    const r2 = await live('POST', '/refunds', { payment_intent: second.pi.id });
    const made = await fetch(`${peer.url}/refund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PAYSTACK_TEST_SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify({ transaction: second.tx.reference }),
    });
    const madeId = String(((await made.json()) as any).data.id);
    const adopted = await cli('refunds', 'approve', r2.json.id);
    expect(adopted.json.refund.provider_reference).toBe(madeId);
    await waitFor(
      'the refund succeeded',
      () => refundOf(r2.json.id),
      (x) => x.status === 'succeeded',
      { timeoutMs: 15_000 },
    );
    expect(peerRefundsOf(second.tx.reference)).toHaveLength(1);
  });

  it('an owner approves and rejects in the console; a developer sees no buttons and is refused', async () => {
    const http = consoleHttp(() => s);
    const owner = await http.signedInUser(s.merchant.merchant.id, 'owner-refunds@example.com', 'owner');
    const dev = await http.signedInUser(s.merchant.merchant.id, 'dev-refunds@example.com', 'developer');
    const { pi: a, tx: txA } = await paidByCard();
    const { pi: b, tx: txB } = await paidByCard();
    const ra = (await live('POST', '/refunds', { payment_intent: a.id })).json;
    const rb = (await live('POST', '/refunds', { payment_intent: b.id })).json;
    const home = await http.request('GET', '/console?env=live', { cookie: owner.cookie });
    expect(home.html).toContain('On: card in KES and USD (Paystack).');
    const page = await http.request('GET', '/console/refunds?env=live', { cookie: owner.cookie });
    expect(page.html).toContain(`/console/refunds/${ra.id}/approve?env=live`);
    const devPage = await http.request('GET', '/console/refunds?env=live', { cookie: dev.cookie });
    expect(devPage.html).not.toContain('/approve?env=live');
    const refused = await http.request('POST', `/console/refunds/${ra.id}/approve?env=live`, {
      cookie: dev.cookie,
      form: { _csrf: csrfOf(devPage.html) },
    });
    expect(refused.status).toBe(403);
    const unconfirmed = await http.request('POST', `/console/refunds/${ra.id}/approve?env=live`, {
      cookie: owner.cookie,
      form: { _csrf: csrfOf(page.html) },
    });
    expect(unconfirmed.status).toBe(400);
    expect(peerRefundsOf(txA.reference)).toHaveLength(0);
    const approved = await http.request('POST', `/console/refunds/${ra.id}/approve?env=live`, {
      cookie: owner.cookie,
      form: { _csrf: csrfOf(page.html), confirm: 'yes' },
    });
    expect(approved.status, approved.html).toBe(303);
    await waitFor(
      'the refund succeeded',
      () => refundOf(ra.id),
      (x) => x.status === 'succeeded',
    );
    const noReason = await http.request('POST', `/console/refunds/${rb.id}/reject?env=live`, {
      cookie: owner.cookie,
      form: { _csrf: csrfOf(page.html), reason: ' ' },
    });
    expect(noReason.status).toBe(400);
    const rejected = await http.request('POST', `/console/refunds/${rb.id}/reject?env=live`, {
      cookie: owner.cookie,
      form: { _csrf: csrfOf(page.html), reason: 'Duplicate request' },
    });
    expect(rejected.status).toBe(303);
    expect(await refundOf(rb.id)).toMatchObject({ status: 'failed', failure_reason: 'Duplicate request' });
    expect(peerRefundsOf(txB.reference)).toHaveLength(0);
  });

  it('a rail that cannot send refunds refuses the approval (409 refund_rail_unavailable) and the refund stays requested', async () => {
    // M-Pesa here is a stand-in rail in the server (it takes payments' outcomes); no M-Pesa rail sends refunds.
    s.running.services.rails.register('live', new LiveStandInRail(['mpesa']));
    const pi = (await live('POST', '/payment-intents', { amount: '90.00', currency: 'KES', payment_methods: ['mpesa'] })).json;
    await applyLive(s, pi.id, 'mpesa');
    const r = await live('POST', '/refunds', { payment_intent: pi.id });
    expect(r.status, r.text).toBe(201);
    const refused = await cli('refunds', 'approve', r.json.id);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('refund_rail_unavailable');
    expect(await refundOf(r.json.id)).toMatchObject({ status: 'requested', provider_reference: null });
  });
});
