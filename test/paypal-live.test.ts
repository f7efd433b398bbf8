// Live PayPal payments against the PayPal peer: offered for every currency but KES; the token fetched once
// and cached; the order created exactly as DECISIONS says (PayPal-Request-Id, reference_id, custom_id,
// PayPal's decimals, the experience context) with the attempt recorded first; the 303 to the payer-action
// link; the return capturing (COMPLETED pays with the capture id); the cancel URL; INSTRUMENT_DECLINED back
// to approval; PayPal's refusals in its words. Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaypalPeer, type PaypalPeer } from '../peers/paypal/peer.js';
import { PaypalClient, PaypalError } from '../src/modules/rails/paypal/paypal-client.js';
import { paypalValue } from '../src/modules/rails/paypal/paypal-rail.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { eventTypes, openCheckout, pay, waitForStatus } from './helpers/checkout.js';
import { freePorts } from './helpers/server-process.js';
import { PAYPAL_TEST, paypalEnv, pointPaypalWebhooksAt } from './helpers/paypal.js';

describe(`live PayPal payments against the PayPal peer (${ENGINE})`, () => {
  let s: TestServer;
  let peer: PaypalPeer;
  let livePort: number;

  beforeAll(async () => {
    peer = await startPaypalPeer(PAYPAL_TEST);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointPaypalWebhooksAt(peer, live);
    s = await startTestServer({
      noLiveRails: true,
      env: { ...paypalEnv(peer, live, sandbox), COWRIE_PAYPAL_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  const live = (method: string, path: string, body?: unknown) =>
    s.call('live', method, path, { key: s.merchant.keys.live_secret!, ...(body === undefined ? {} : { body }) });
  async function liveIntent(body: Record<string, unknown> = {}): Promise<any> {
    const r = await live('POST', '/payment-intents', { amount: '25.50', currency: 'USD', ...body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }
  const intentOf = async (id: string) => (await live('GET', `/payment-intents/${id}`)).json;
  /** Opens the live checkout and picks PayPal; answers the page, the answer and the peer's order. */
  async function payByPaypal(pi: any) {
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect(page.status).toBe(200);
    const before = peer.orders.size;
    const r = await pay(s, page, { method: 'paypal' });
    const order = peer.orders.size > before ? [...peer.orders.values()].at(-1)! : null;
    return { page, r, order };
  }
  /** The browser following a redirect to the server (the return or cancel URL). */
  const follow = (url: string) => {
    const u = new URL(url);
    return fetch(`http://127.0.0.1:${livePort}${u.pathname}${u.search}`, { redirect: 'manual' });
  };

  it('offers PayPal for every currency but KES', async () => {
    const usd = await liveIntent();
    expect(usd.payment_methods).toEqual(['paypal']);
    const eur = await liveIntent({ currency: 'EUR', amount: '10.00' });
    expect(eur.payment_methods).toEqual(['paypal']);
    const kes = await live('POST', '/payment-intents', { amount: '100.00', currency: 'KES' });
    expect(kes.status).toBe(400);
    const page = await openCheckout(s, usd.checkout_url, 'live');
    expect(page.html).toContain('value="paypal"');
  });

  it('creates the order exactly as PayPal wants, records the attempt first, and the return captures and pays', async () => {
    const pi = await liveIntent({ amount: '25.50' });
    peer.webhookFault = 'never';
    const { page, r, order } = await payByPaypal(pi);
    expect(r.status, r.text).toBe(200);
    const attempt = order!.customId!;
    const step = `/checkout/${pi.id}/paypal/${attempt}`;
    expect(r.json).toMatchObject({ state: 'pending', next_action: { type: 'redirect', url: step } });
    const create = peer.requests.find(
      (q) => q.path === '/v2/checkout/orders' && q.method === 'POST' && (q.body as any).purchase_units[0].custom_id === attempt,
    )!;
    expect(create.headers['paypal-request-id']).toBe(attempt);
    expect(create.headers['authorization']).toMatch(/^Bearer A21AA/);
    const origin = new URL(s.config.liveUrl).origin;
    expect(create.body).toEqual({
      intent: 'CAPTURE',
      purchase_units: [{ reference_id: pi.id, custom_id: attempt, amount: { currency_code: 'USD', value: '25.50' } }],
      payment_source: {
        paypal: {
          experience_context: {
            return_url: `${origin}/rails/paypal/return`,
            cancel_url: `${origin}/rails/paypal/cancel`,
            user_action: 'PAY_NOW',
            shipping_preference: 'NO_SHIPPING',
          },
        },
      },
    });
    const row = await s.running.database.db.selectFrom('rail_payments').selectAll().where('id', '=', attempt).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ method: 'paypal', state: 'pending', external_id: order!.id });
    const to = await fetch(`http://127.0.0.1:${livePort}${step}`, { redirect: 'manual' });
    expect(to.status).toBe(303);
    expect(to.headers.get('location')).toBe(`${peer.url}/checkoutnow?token=${order!.id}`);
    expect((await waitForStatus(s, page, (x) => x.status === 'awaiting_payment')).headline).toBe('Checking your PayPal payment');
    const back = await follow(peer.approve(order!.id));
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(`/checkout/${pi.id}`);
    const capture = peer.requests.find((q) => q.path === `/v2/checkout/orders/${order!.id}/capture`)!;
    expect(capture.headers['paypal-request-id']).toBe(`capture-${attempt}`);
    const after = await intentOf(pi.id);
    expect(after).toMatchObject({
      status: 'paid',
      payment_method: 'paypal',
      provider_reference: order!.capture!.id,
      last_payment_error: null,
    });
    const st = await waitForStatus(s, page, (x) => x.status === 'paid');
    expect(st.headline).toMatch(/^Paid/);
    // Once the attempt is over, its step goes back to the checkout; a second return changes nothing.
    expect((await fetch(`http://127.0.0.1:${livePort}${step}`, { redirect: 'manual' })).headers.get('location')).toBe(`/checkout/${pi.id}`);
    await follow(peer.approve(order!.id));
    expect((await eventTypes(s, pi.id)).filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
    peer.webhookFault = 'once';
  });

  it('PayPal’s decimals: none for HUF, JPY and TWD, two otherwise, rounded up', () => {
    expect(paypalValue('1500', 'JPY')).toBe('1500');
    expect(paypalValue('1500.2', 'HUF')).toBe('1501');
    expect(paypalValue('99.01', 'TWD')).toBe('100');
    expect(paypalValue('10', 'EUR')).toBe('10.00');
    expect(paypalValue('7.251', 'GBP')).toBe('7.26');
  });

  it('a new client fetches one token however many calls start together, and keeps it', async () => {
    const client = new PaypalClient({ baseUrl: peer.url, ...PAYPAL_TEST });
    const issued = peer.tokensIssued;
    const order = [...peer.orders.values()][0]!;
    await Promise.all(Array.from({ length: 5 }, () => client.getOrder(order.id)));
    expect(peer.tokensIssued).toBe(issued + 1);
    await client.getOrder(order.id);
    expect(peer.tokensIssued).toBe(issued + 1);
    const token = peer.requests.filter((q) => q.path === '/v1/oauth2/token').at(-1)!;
    expect(token.headers['authorization']).toBe(
      `Basic ${Buffer.from(`${PAYPAL_TEST.clientId}:${PAYPAL_TEST.clientSecret}`).toString('base64')}`,
    );
    expect(token.body).toBe('grant_type=client_credentials');
    // Kept until shortly before expires_in: a client whose clock passed that fetches a new one.
    let now = Date.now();
    const timed = new PaypalClient({ baseUrl: peer.url, ...PAYPAL_TEST, nowMs: () => now });
    await timed.getOrder(order.id);
    now += 32_400_000 - 30_000;
    await timed.getOrder(order.id);
    expect(peer.tokensIssued).toBe(issued + 3);
  });

  it('PayPal’s error shape becomes a clear message with its issue and debug id', async () => {
    const client = new PaypalClient({ baseUrl: peer.url, ...PAYPAL_TEST });
    const err = await client.getOrder('NOSUCHORDER0').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaypalError);
    expect(err).toMatchObject({ httpStatus: 404, errorName: 'RESOURCE_NOT_FOUND', issue: 'INVALID_RESOURCE_ID' });
    expect((err as PaypalError).debugId).toMatch(/^[0-9a-f]+$/);
    expect((err as PaypalError).clearText).toContain('INVALID_RESOURCE_ID');
  });

  it('a token PayPal refuses (401) is fetched again once and the call goes through', async () => {
    const pi = await liveIntent();
    const issued = peer.tokensIssued;
    peer.revokeTokens();
    const { r } = await payByPaypal(pi);
    expect(r.json.state, r.text).toBe('pending');
    expect(peer.tokensIssued).toBe(issued + 1);
  });

  it('the cancel URL is a failed attempt customer_cancelled; the intent stays payable and PayPal pays it next', async () => {
    const pi = await liveIntent();
    const first = await payByPaypal(pi);
    const res = await follow(peer.cancel(first.order!.id));
    expect(res.status).toBe(303);
    let after = await intentOf(pi.id);
    expect(after.status).toBe('awaiting_payment');
    expect(after.last_payment_error).toMatchObject({ code: 'customer_cancelled', payment_method: 'paypal' });
    const status = await waitForStatus(s, first.page, (x) => /cancelled on PayPal/.test(x.detail ?? ''));
    expect(status.status).toBe('awaiting_payment');
    const second = await payByPaypal(pi);
    expect(second.order!.id).not.toBe(first.order!.id);
    await follow(peer.approve(second.order!.id));
    after = await intentOf(pi.id);
    expect(after).toMatchObject({ status: 'paid', last_payment_error: null });
  });

  it('INSTRUMENT_DECLINED sends the customer back to PayPal’s approval; approving again pays', async () => {
    const pi = await liveIntent();
    const { order } = await payByPaypal(pi);
    peer.webhookFault = 'never';
    const res = await follow(peer.approve(order!.id, { declining: true }));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${peer.url}/checkoutnow?token=${order!.id}`);
    expect((await intentOf(pi.id)).status).toBe('awaiting_payment');
    await follow(peer.approve(order!.id));
    expect((await intentOf(pi.id)).status).toBe('paid');
    peer.webhookFault = 'once';
  });

  it('PayPal refusing the order is a failed attempt in its words (its issue named); an unknown return answers 404', async () => {
    const pi = await liveIntent();
    // Only the create is refused: the questions about earlier orders go on meanwhile.
    peer.refuseNextOrder = 'PAYEE_ACCOUNT_RESTRICTED';
    const { r } = await payByPaypal(pi);
    expect(r.json.state).toBe('completed');
    const after = await intentOf(pi.id);
    expect(after.status).toBe('awaiting_payment');
    expect(after.last_payment_error).toMatchObject({ code: 'provider_error', payment_method: 'paypal' });
    expect(after.last_payment_error.message).toContain('PAYEE_ACCOUNT_RESTRICTED');
    const res = await fetch(`http://127.0.0.1:${livePort}/rails/paypal/return?token=NOSUCHORDER`, { redirect: 'manual' });
    expect(res.status).toBe(404);
  });
});
