// Live card payments through Paystack, against the Paystack peer: the card panel's email (from the intent's
// customer), `/transaction/initialize` exactly as Paystack wants it (subunits, a new reference per attempt,
// card only, the return URL), the attempt recorded before the redirect; the outcome by the customer's
// return, the signed webhook and the questions, each confirmed by verify; decline, insufficient funds and
// abandon as failed attempts; another amount; bad and missing signatures; duplicates; Paystack's refusals.
// Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { paystackSignature } from '../src/modules/rails/card/paystack-client.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { eventTypes, openCheckout, pay, waitForStatus } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';
import { waitFor } from './helpers/wait.js';

describe(`live card payments against the Paystack peer (${ENGINE})`, () => {
  let s: TestServer;
  let peer: PaystackPeer;
  let livePort: number;

  beforeAll(async () => {
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointWebhooksAt(peer, live);
    s = await startTestServer({
      noLiveRails: true,
      env: { ...cardEnv(peer, live, sandbox), COWRIE_PAYSTACK_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  async function liveIntent(body: Record<string, unknown> = {}): Promise<any> {
    const r = await live('POST', '/payment-intents', { amount: '1500.50', currency: 'KES', ...body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }
  /** Opens the live checkout and sends the card panel; answers the page, the answer and the peer's transaction. */
  async function payByCard(pi: any, email?: string) {
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect(page.status).toBe(200);
    const r = await pay(s, page, { method: 'card', ...(email === undefined ? {} : { email }) });
    const reference = r.json?.next_action?.url ? [...peer.transactions.values()].at(-1)!.reference : null;
    return { page, r, reference };
  }
  /** The customer comes back from Paystack's page (the peer's redirect), as the browser would. */
  async function comeBack(back: string) {
    const url = new URL(back);
    const res = await fetch(`http://127.0.0.1:${livePort}${url.pathname}${url.search}`, { redirect: 'manual' });
    return res;
  }
  const intentOf = async (id: string) => (await live('GET', `/payment-intents/${id}`)).json;

  it('offers card for KES and USD, never for other currencies; the panel asks for the email, filled from the customer', async () => {
    const kes = await liveIntent({ customer: { email: 'ada@example.com' } });
    expect(kes.payment_methods).toEqual(['card']);
    const usd = await liveIntent({ currency: 'USD', amount: '12.00' });
    expect(usd.payment_methods).toEqual(['card']);
    const eur = await live('POST', '/payment-intents', { amount: '10.00', currency: 'EUR' });
    expect(eur.status).toBe(400);
    const page = await openCheckout(s, kes.checkout_url, 'live');
    expect(page.html).toContain('value="card"');
    expect(page.html).toMatch(/name="email"[^>]*value="ada@example.com"/);
    expect(page.html).not.toContain('card_number');
  });

  it('initializes exactly as Paystack wants, records the attempt first, and the return pays once verify says success', async () => {
    const pi = await liveIntent({ customer: { email: 'ada@example.com' } });
    const { page, r, reference } = await payByCard(pi);
    expect(r.status, r.text).toBe(200);
    const t = peer.transactions.get(reference!)!;
    const step = `/checkout/${pi.id}/card/${reference!.replace('-', '_')}`;
    expect(r.json).toMatchObject({ state: 'pending', next_action: { type: 'redirect', url: step } });
    // The checkout's step answers 303 to Paystack's authorization_url.
    const to = await fetch(`http://127.0.0.1:${livePort}${step}`, { redirect: 'manual' });
    expect(to.status).toBe(303);
    expect(to.headers.get('location')).toBe(`${peer.url}/checkout/${t.accessCode}`);
    const init = peer.requests.find((q) => q.path === '/transaction/initialize' && (q.body as any).reference === reference)!;
    expect(init.headers['authorization']).toBe(`Bearer ${PAYSTACK_TEST_SECRET}`);
    expect(init.body).toEqual({
      email: 'ada@example.com',
      amount: 150050,
      currency: 'KES',
      reference,
      callback_url: `${new URL(s.config.liveUrl).origin}/rails/paystack/return`,
      channels: ['card'],
      metadata: { payment_intent: pi.id },
    });
    expect(reference).toMatch(/^rp-[0-9A-Za-z]{24}$/);
    peer.webhookFault = 'never';
    const back = await peer.complete(reference!, 'success');
    const res = await comeBack(back);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/checkout/${pi.id}`);
    // Once the attempt is over, its step goes back to the checkout.
    const over = await fetch(`http://127.0.0.1:${livePort}${step}`, { redirect: 'manual' });
    expect(over.headers.get('location')).toBe(`/checkout/${pi.id}`);
    // Verify ran before the redirect: the intent is paid already.
    const after = await intentOf(pi.id);
    expect(after).toMatchObject({ status: 'paid', payment_method: 'card', provider_reference: String(t.id), last_payment_error: null });
    const st = await waitForStatus(s, page, (x) => x.status === 'paid');
    expect(st.headline).toMatch(/^Paid/);
    peer.webhookFault = 'once';
  });

  it('a second attempt gets a new reference; decline and insufficient funds are failed attempts, then a card pays', async () => {
    const pi = await liveIntent();
    const first = await payByCard(pi, 'bo@example.com');
    await comeBack(await peer.complete(first.reference!, 'decline'));
    let after = await intentOf(pi.id);
    expect(after.status).toBe('awaiting_payment');
    expect(after.last_payment_error).toMatchObject({ code: 'card_declined', payment_method: 'card' });
    const second = await payByCard(pi, 'bo@example.com');
    expect(second.reference).not.toBe(first.reference);
    await comeBack(await peer.complete(second.reference!, 'insufficient_funds'));
    after = await intentOf(pi.id);
    expect(after.last_payment_error.code).toBe('insufficient_funds');
    const third = await payByCard(pi, 'bo@example.com');
    await comeBack(await peer.complete(third.reference!, 'success'));
    after = await intentOf(pi.id);
    expect(after).toMatchObject({ status: 'paid', last_payment_error: null });
    const types = await eventTypes(s, pi.id);
    expect(types.filter((t) => t === 'payment_intent.payment_failed')).toHaveLength(2);
    expect(types.filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
  });

  it('a customer who comes back without paying (abandoned) is customer_cancelled; abandoned before the return waits', async () => {
    const pi = await liveIntent();
    const { reference } = await payByCard(pi, 'cy@example.com');
    // Asked before the customer came back: abandoned is not final.
    const row = () =>
      s.running.database.db.selectFrom('rail_payments').selectAll().where('external_id', '=', reference!).executeTakeFirstOrThrow();
    await waitFor('a first question', row, (r) => r.queries >= 1);
    expect((await row()).state).toBe('pending');
    await comeBack(await peer.complete(reference!, 'abandon'));
    const after = await intentOf(pi.id);
    expect(after.status).toBe('awaiting_payment');
    expect(after.last_payment_error.code).toBe('customer_cancelled');
  });

  it('the signed webhook pays without a return, confirmed by verify; a twice-sent one pays once', async () => {
    const pi = await liveIntent({ currency: 'USD', amount: '12.34' });
    const { reference } = await payByCard(pi, 'di@example.com');
    expect(peer.transactions.get(reference!)!.amount).toBe(1234);
    peer.webhookFault = 'twice';
    await peer.complete(reference!, 'success');
    await waitFor(
      'the intent paid by the webhook',
      () => intentOf(pi.id),
      (x) => x.status === 'paid',
    );
    await waitFor(
      'both webhooks answered',
      () => peer.webhooks.filter((w) => w.event === 'charge.success').length,
      (n) => n >= 2,
    );
    peer.webhookFault = 'once';
    expect(peer.webhooks.filter((w) => w.event === 'charge.success').every((w) => w.status === 200)).toBe(true);
    expect((await eventTypes(s, pi.id)).filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
  });

  it('a webhook with a bad or missing signature answers 401 and changes nothing; a made-up charge.success pays nothing', async () => {
    const pi = await liveIntent();
    const { reference } = await payByCard(pi, 'ed@example.com');
    const body = JSON.stringify({ event: 'charge.success', data: { reference, status: 'success', amount: 150050, currency: 'KES' } });
    const send = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${livePort}/rails/paystack/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    expect((await send({})).status).toBe(401);
    expect((await send({ 'x-paystack-signature': paystackSignature('another key', body) })).status).toBe(401);
    expect((await send({ 'x-paystack-signature': paystackSignature(PAYSTACK_TEST_SECRET, `${body} `) })).status).toBe(401);
    // Correctly signed but untrue (the peer's transaction is still unpaid): verify says no, nothing moves.
    const good = await send({ 'x-paystack-signature': paystackSignature(PAYSTACK_TEST_SECRET, body) });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ received: true });
    await waitFor('verify asked', () => peer.requests.some((q) => q.path === `/transaction/verify/${reference}`));
    expect((await intentOf(pi.id)).status).toBe('awaiting_payment');
  });

  it('a lost webhook and no return: the questions (verify with backoff) pay it', async () => {
    const pi = await liveIntent();
    const { reference } = await payByCard(pi, 'fa@example.com');
    peer.webhookFault = 'never';
    await peer.complete(reference!, 'success');
    await waitFor(
      'the intent paid by the questions',
      () => intentOf(pi.id),
      (x) => x.status === 'paid',
      { timeoutMs: 15_000 },
    );
    peer.webhookFault = 'once';
  });

  it('another amount charged is underpaid or overpaid; Paystack refusing initialize is a failed attempt in its words', async () => {
    const pi = await liveIntent({ amount: '100.00' });
    const { reference } = await payByCard(pi, 'gu@example.com');
    await comeBack(await peer.complete(reference!, 'success', { chargedAmount: 5000 }));
    const after = await intentOf(pi.id);
    expect(after.status).toBe('awaiting_payment');
    expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.underpaid');

    const pj = await liveIntent();
    peer.failNext(1, 400);
    const { r } = await payByCard(pj, 'ha@example.com');
    expect(r.status).toBe(200);
    expect(r.json.state).toBe('completed');
    const failed = await intentOf(pj.id);
    expect(failed.status).toBe('awaiting_payment');
    expect(failed.last_payment_error).toMatchObject({ code: 'provider_error', payment_method: 'card' });
    expect(failed.last_payment_error.message).toContain('An error occurred');
  });

  it('a missing email is refused on its field; an unknown return reference answers 404', async () => {
    const pi = await liveIntent();
    const { r } = await payByCard(pi, '');
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    const res = await fetch(`http://127.0.0.1:${livePort}/rails/paystack/return?reference=rp-000000000000000000000000`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(404);
  });

  it('Paystack’s webhook signed with another key is refused (401) and pays nothing; a late one after the payment changes nothing', async () => {
    const pi = await liveIntent();
    const { reference } = await payByCard(pi, 'ib@example.com');
    peer.webhookFault = 'bad_signature';
    const before = peer.webhooks.length;
    await peer.complete(reference!, 'success');
    await waitFor(
      'the badly signed webhook answered',
      () => peer.webhooks.slice(before),
      (w) => w.length >= 1,
    );
    peer.webhookFault = 'once';
    expect(peer.webhooks[before]).toEqual({ event: 'charge.success', status: 401 });
    // The questions still find the payment.
    await waitFor(
      'the intent paid by the questions',
      () => intentOf(pi.id),
      (x) => x.status === 'paid',
      { timeoutMs: 15_000 },
    );

    const pj = await liveIntent();
    const late = await payByCard(pj, 'jo@example.com');
    peer.webhookFault = 'late';
    const count = peer.webhooks.length;
    await comeBack(await peer.complete(late.reference!, 'success'));
    peer.webhookFault = 'once';
    expect((await intentOf(pj.id)).status).toBe('paid');
    await waitFor(
      'the late webhook answered',
      () => peer.webhooks.slice(count),
      (w) => w.some((x) => x.event === 'charge.success'),
    );
    expect(peer.webhooks.at(-1)).toEqual({ event: 'charge.success', status: 200 });
    expect((await eventTypes(s, pj.id)).filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
  });
});
