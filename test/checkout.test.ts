// The hosted checkout over HTTP (issue 4; spec 1, 2.1, 3.1; DECISIONS "Sandbox test values", "Payment
// intents"): the page, its security headers and anti-forgery token, every method's sandbox flow through
// the rails, receiving caps in plain words, and the live status document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantLimits } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { action, checkoutStatus, eventTypes, openCheckout, pathOf, pay, publicCall, waitForStatus, type CheckoutSession } from './helpers/checkout.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const STATUS_KEYS = ['attempt', 'detail', 'expires_at', 'final', 'headline', 'return_url', 'seconds_left', 'status'];

describe(`hosted checkout (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  async function intent(body: Record<string, unknown> = {}, key?: string): Promise<any> {
    const r = await s.call('test', 'POST', '/payment-intents', { key: key ?? s.merchant.keys.test_secret, body: { amount: '1500.00', currency: 'KES', ...body } });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  async function apiIntent(id: string): Promise<any> {
    const r = await s.sandbox('GET', `/payment-intents/${id}`);
    expect(r.status, r.text).toBe(200);
    return r.json;
  }

  async function attempts(intentId: string) {
    return s.running.database.db.selectFrom('payment_attempts').selectAll().where('payment_intent_id', '=', intentId).orderBy('created_at').execute();
  }

  function methodsOffered(html: string): string[] {
    return [...html.matchAll(/<input type="radio" name="method" value="([a-z_]+)"/g)].map((m) => m[1]!);
  }

  describe('the page', () => {
    it('shows merchant, description, fiat and asset amounts, a countdown and only the allowed, valid methods', async () => {
      const pi = await intent({ description: 'Order #1001 <b>', return_url: 'https://shop.example/thanks' });
      const page = await openCheckout(s, pi.checkout_url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Test merchant');
      expect(page.html).toContain('Order #1001 &lt;b&gt;');
      expect(page.html).not.toContain('<b>');
      expect(page.html).toContain('KES 1,500.00');
      expect(page.html).toContain(`${pi.pay_amount} USDT`);
      const left = Number(/data-seconds-left="(\d+)"/.exec(page.html)?.[1]);
      expect(left).toBeGreaterThan(29 * 60);
      expect(left).toBeLessThanOrEqual(30 * 60);
      // KES settling in USDT: balance, M-Pesa, card, wallet; never PayPal (not for KES).
      expect(methodsOffered(page.html)).toEqual(['service_balance', 'mpesa', 'card', 'external_wallet']);
      expect(page.html).toContain('Sandbox: test mode');

      const usd = await openCheckout(s, (await intent({ amount: '20.00', currency: 'USD', settlement_currency: 'BTC' })).checkout_url);
      expect(methodsOffered(usd.html)).toEqual(['service_balance', 'card', 'paypal']);
      const onlyCard = await openCheckout(s, (await intent({ payment_methods: ['card'] })).checkout_url);
      expect(methodsOffered(onlyCard.html)).toEqual(['card']);
    });

    it('carries a strict CSP and safe headers, no inline script or style, and no key anywhere', async () => {
      const pi = await intent();
      const page = await openCheckout(s, pi.checkout_url);
      expect(page.headers.get('content-security-policy')).toBe(CSP);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(page.html).not.toMatch(/\sstyle=/);
      expect(page.html).not.toMatch(/\son[a-z]+=/);
      expect(page.html).not.toContain('cwk_');
      expect(page.html).not.toContain(s.merchant.merchant.id);
      // The cookie: HttpOnly, SameSite=Strict, scoped to this checkout's path.
      const setCookie = page.headers.get('set-cookie')!;
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Strict/);
      expect(setCookie).toContain(`Path=/checkout/${pi.id}`);
      // Script and stylesheet come from our origin, content-addressed and cacheable.
      const scriptPath = /<script src="(\/assets\/checkout\.[0-9a-f]{12}\.js)" defer><\/script>/.exec(page.html)?.[1];
      expect(scriptPath).toBeDefined();
      const js = await publicCall(s, 'GET', scriptPath!);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(js.headers.get('cache-control')).toContain('immutable');
      expect(js.text.length).toBeLessThan(20_000);
      const status = await checkoutStatus(s, page);
      expect(status.headers.get('content-security-policy')).toBe(CSP);
      expect(Object.keys(status.json).sort()).toEqual(STATUS_KEYS);
      expect(status.text).not.toContain('cwk_');
      expect(status.text).not.toContain(s.merchant.merchant.id);
    });

    it('404 for an unknown id, and for an intent of the other environment', async () => {
      const unknown = await publicCall(s, 'GET', '/checkout/pi_000000000000000000000000');
      expect(unknown.status).toBe(404);
      expect(unknown.text).toContain('Payment not found');
      const pi = await intent();
      const live = await publicCall(s, 'GET', `/checkout/${pi.id}`, { env: 'live' });
      expect(live.status).toBe(404);
      const liveStatus = await publicCall(s, 'GET', `/checkout/${pi.id}/status`, { env: 'live' });
      expect(liveStatus.status).toBe(404);
      expect(liveStatus.json.error.code).toBe('resource_missing');
    });

    it('keeps the token of an open tab when the page is opened again', async () => {
      const pi = await intent();
      const first = await openCheckout(s, pi.checkout_url);
      const again = await fetch(s.url('test', first.path), { headers: { cookie: first.cookie } });
      const html = await again.text();
      expect(html).toContain(`content="${first.token}"`);
    });
  });

  describe('anti-forgery', () => {
    it('refuses pay actions without the token, with another intent\'s token, or from another origin; nothing is paid', async () => {
      const pi = await intent();
      const page = await openCheckout(s, pi.checkout_url);
      const other = await openCheckout(s, (await intent()).checkout_url);
      const body = { method: 'service_balance' };
      const tries = [
        await publicCall(s, 'POST', `${page.path}/pay`, { body }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': page.token } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { cookie: page.cookie } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': other.token, cookie: other.cookie } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': page.token, cookie: page.cookie, origin: 'https://evil.example' } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': `${page.token}x`, cookie: `${page.cookie}x` } }),
      ];
      for (const r of tries) {
        expect(r.status, r.text).toBe(403);
        expect(r.json.error.code).toBe('checkout_token_invalid');
        expect(r.json.error.type).toBe('permission_error');
      }
      expect((await apiIntent(pi.id)).status).toBe('awaiting_payment');
      expect(await attempts(pi.id)).toHaveLength(0);
      const ok = await pay(s, page, body);
      expect(ok.status, ok.text).toBe(200);
      expect((await apiIntent(pi.id)).status).toBe('paid');
    });
  });

  describe('service balance', () => {
    it('pays in one step: paid, with its events', async () => {
      const pi = await intent();
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'service_balance' });
      expect(r.json).toEqual({ state: 'completed', status: 'paid' });
      const after = await apiIntent(pi.id);
      expect(after.status).toBe('paid');
      expect(after.payment_method).toBe('service_balance');
      expect(after.amount_received).toBe(pi.pay_amount);
      expect(await eventTypes(s, pi.id)).toEqual(['payment_intent.created', 'payment_intent.confirming', 'payment_intent.paid']);
      const st = await checkoutStatus(s, page);
      expect(st.json).toMatchObject({ status: 'paid', final: true, headline: 'Paid. Thank you!' });
      // A paid intent takes no second checkout payment.
      const again = await pay(s, page, { method: 'service_balance' });
      expect(again.status).toBe(409);
      expect(again.json.error.code).toBe('intent_not_payable');
    });
  });

  describe('card', () => {
    it('validates number (Luhn), expiry and CVC; nothing is attempted on a bad card', async () => {
      const pi = await intent();
      const page = await openCheckout(s, pi.checkout_url);
      const cases: Array<[Record<string, string>, string]> = [
        [{ card_number: '4242424242424241', card_expiry: '12/40', card_cvc: '123' }, 'card_number'],
        [{ card_number: '4242', card_expiry: '12/40', card_cvc: '123' }, 'card_number'],
        [{ card_number: '4242424242424242', card_expiry: '13/40', card_cvc: '123' }, 'card_expiry'],
        [{ card_number: '4242424242424242', card_expiry: '01/20', card_cvc: '123' }, 'card_expiry'],
        [{ card_number: '4242424242424242', card_expiry: '12/40', card_cvc: '12' }, 'card_cvc'],
        [{ card_number: '4242424242424242', card_expiry: '12/40', card_cvc: 'abc' }, 'card_cvc'],
      ];
      for (const [fields, param] of cases) {
        const r = await pay(s, page, { method: 'card', ...fields });
        expect(r.status, JSON.stringify(fields)).toBe(400);
        expect(r.json.error.code).toBe('parameter_invalid');
        expect(r.json.error.param).toBe(param);
      }
      expect((await apiIntent(pi.id)).status).toBe('awaiting_payment');
      expect(await attempts(pi.id)).toHaveLength(0);
    });

    it('test cards: success, declined, insufficient funds, success then disputed', async () => {
      const cases = [
        { number: '4242 4242 4242 4242', status: 'paid', failure: null, last: 'payment_intent.paid' },
        { number: '4000000000000002', status: 'failed', failure: 'card_declined', last: 'payment_intent.failed' },
        { number: '4000000000009995', status: 'failed', failure: 'insufficient_funds', last: 'payment_intent.failed' },
        { number: '4000000000000259', status: 'paid', failure: null, last: 'payment_intent.disputed' },
      ];
      for (const c of cases) {
        const pi = await intent();
        const page = await openCheckout(s, pi.checkout_url);
        const r = await pay(s, page, { method: 'card', card_number: c.number, card_expiry: '12/40', card_cvc: '123' });
        expect(r.status, r.text).toBe(200);
        const after = await apiIntent(pi.id);
        expect(after.status, c.number).toBe(c.status);
        expect(after.failure_code, c.number).toBe(c.failure);
        const types = await eventTypes(s, pi.id);
        expect(types.at(-1), c.number).toBe(c.last);
        if (c.failure) expect((await checkoutStatus(s, page)).json.detail).toMatch(c.failure === 'card_declined' ? /declined/ : /not enough money/);
      }
      // The card number is never stored.
      const rows = await s.running.database.db.selectFrom('rail_payments').select('details').execute();
      for (const r of rows) expect(r.details).not.toMatch(/4242424242424242|4000000000000002/);
    });
  });

  describe('M-Pesa', () => {
    it('refuses a number that is not a Kenyan mobile number', async () => {
      const pi = await intent();
      const page = await openCheckout(s, pi.checkout_url);
      for (const phone of ['12345', '+255712345678', '+2547123456789', '']) {
        const r = await pay(s, page, { method: 'mpesa', phone });
        expect(r.status, phone).toBe(400);
        expect(r.json.error.param).toBe('phone');
      }
    });

    it('STK push: pending, then each test number resolves as DECISIONS says', async () => {
      const cases = [
        { phone: '+254700000001', status: 'paid', failure: null, event: 'payment_intent.paid' },
        { phone: '0700000002', status: 'cancelled', failure: null, event: 'payment_intent.cancelled' },
        { phone: '+254700000003', status: 'failed', failure: 'insufficient_funds', event: 'payment_intent.failed' },
        { phone: '254700000004', status: 'failed', failure: 'timeout', event: 'payment_intent.failed' },
        { phone: '+254700000005', status: 'confirming', failure: null, event: 'payment_intent.review' },
        { phone: '+254712345678', status: 'paid', failure: null, event: 'payment_intent.paid' },
      ];
      const started = await Promise.all(
        cases.map(async (c) => {
          const pi = await intent();
          const page = await openCheckout(s, pi.checkout_url);
          const r = await pay(s, page, { method: 'mpesa', phone: c.phone });
          expect(r.status, r.text).toBe(200);
          expect(r.json.state).toBe('pending');
          expect(r.json.next_action.type).toBe('stk_push');
          expect(r.json.next_action.phone).not.toContain(c.phone.slice(-7, -3));
          const st = await checkoutStatus(s, page);
          expect(st.json.status).toBe('awaiting_payment');
          expect(st.json.attempt).toEqual({ method: 'mpesa', state: 'pending' });
          expect(st.json.headline).toBe('Check your phone');
          expect(st.json.detail).toContain('M-Pesa PIN');
          return { c, pi, page };
        }),
      );
      for (const { c, pi, page } of started) {
        const st = await waitForStatus(s, page, (x) => x.status !== 'awaiting_payment');
        expect(st.status, c.phone).toBe(c.status);
        const after = await apiIntent(pi.id);
        expect(after.status, c.phone).toBe(c.status);
        expect(after.failure_code, c.phone).toBe(c.failure);
        expect((await eventTypes(s, pi.id)).at(-1), c.phone).toBe(c.event);
      }
    });
  });

  describe('PayPal', () => {
    it('redirect-style approval: turning back leaves the intent open; approving pays it', async () => {
      const pi = await intent({ amount: '25.00', currency: 'USD' });
      const page = await openCheckout(s, pi.checkout_url);
      const first = await pay(s, page, { method: 'paypal' });
      expect(first.status, first.text).toBe(200);
      expect(first.json.next_action.type).toBe('redirect');
      const approval = first.json.next_action.url as string;
      expect(approval).toMatch(new RegExp(`^/checkout/${pi.id}/paypal/rp_`));
      const approvalPage = await publicCall(s, 'GET', approval, { headers: { cookie: page.cookie } });
      expect(approvalPage.status).toBe(200);
      expect(approvalPage.headers.get('content-security-policy')).toBe(CSP);
      expect(approvalPage.text).toContain('Approve payment');
      // Without the token: refused.
      expect((await publicCall(s, 'POST', approval, { body: { approve: true } })).status).toBe(403);
      const back = await action(s, page, approval.slice(page.path.length), { approve: false });
      expect(back.json).toEqual({ redirect: `/checkout/${pi.id}` });
      expect((await apiIntent(pi.id)).status).toBe('awaiting_payment');
      // The turned-back approval cannot be used afterwards.
      expect((await action(s, page, approval.slice(page.path.length), { approve: true })).status).toBe(409);

      const second = await pay(s, page, { method: 'paypal' });
      const ok = await action(s, page, (second.json.next_action.url as string).slice(page.path.length), { approve: true });
      expect(ok.status, ok.text).toBe(200);
      const after = await apiIntent(pi.id);
      expect(after.status).toBe('paid');
      expect(after.payment_method).toBe('paypal');
      expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.paid');
    });
  });

  describe('external wallet', () => {
    it('shows address, exact unique amount and QR; only the exact deposit is credited, others are kept as unmatched', async () => {
      const pi = await intent({ amount: '1000.00' });
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'external_wallet', network: 'tron' });
      expect(r.status, r.text).toBe(200);
      const next = r.json.next_action;
      expect(next).toMatchObject({ type: 'wallet_deposit', network: 'tron', network_name: 'TRON', asset: 'USDT' });
      expect(next.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(next.qr).toMatch(/^data:image\/svg\+xml;base64,/);
      expect(Buffer.from(next.qr.split(',')[1], 'base64').toString()).toContain('<svg');
      const tag = Number(next.amount) - Number(pi.pay_amount);
      expect(tag).toBeGreaterThan(0);
      expect(tag).toBeLessThan(0.01);
      expect(next.amount).toMatch(/^\d+\.\d{6}$/);
      // The same intent and network keep their amount.
      expect((await pay(s, page, { method: 'external_wallet', network: 'tron' })).json.next_action.amount).toBe(next.amount);
      // Base and Polygon share an EVM address, told apart by network (another intent, so that this one
      // expects its amount on TRON only).
      const otherPage = await openCheckout(s, (await intent()).checkout_url);
      const base = (await pay(s, otherPage, { method: 'external_wallet', network: 'base' })).json.next_action;
      const polygon = (await pay(s, otherPage, { method: 'external_wallet', network: 'polygon' })).json.next_action;
      expect(base.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(polygon.address).toBe(base.address);
      const solana = (await pay(s, otherPage, { method: 'external_wallet', network: 'solana' })).json.next_action;
      expect(solana.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect((await pay(s, page, { method: 'external_wallet', network: 'bitcoin' })).json.error.param).toBe('network');

      const deposit = (body: Record<string, string>) => action(s, page, '/wallet/deposit', body);
      const wrong = [
        { network: 'tron', asset: 'USDT', amount: pi.pay_amount },
        { network: 'tron', asset: 'USDC', amount: next.amount },
        { network: 'solana', asset: 'USDT', amount: next.amount },
      ];
      const unmatchedIds: string[] = [];
      for (const d of wrong) {
        const res = await deposit(d);
        unmatchedIds.push(res.json.deposit.id);
        expect(res.status, res.text).toBe(200);
        expect(res.json.deposit).toMatchObject({ status: 'unmatched', reason: 'no_matching_payment', credited_this_payment: false });
      }
      expect((await apiIntent(pi.id)).status).toBe('awaiting_payment');
      expect((await deposit({ network: 'tron', asset: 'USDT', amount: '1.1234567' })).json.error.param).toBe('amount');

      const exact = await deposit({ network: 'tron', asset: 'USDT', amount: next.amount });
      expect(exact.json.deposit).toMatchObject({ status: 'credited', reason: null, credited_this_payment: true });
      const after = await apiIntent(pi.id);
      expect(after.status).toBe('paid');
      expect(after.payment_method).toBe('external_wallet');
      expect(after.amount_received).toBe(next.amount);
      expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.paid');
      // A second exact deposit finds no open payment.
      const repeat = await deposit({ network: 'tron', asset: 'USDT', amount: next.amount });
      expect(repeat.json.deposit.status).toBe('unmatched');
      unmatchedIds.push(repeat.json.deposit.id);

      // The merchant sees the unmatched deposits over the API; another merchant sees none.
      const list = await s.sandbox('GET', '/wallet-deposits?status=unmatched&limit=100');
      expect(list.status, list.text).toBe(200);
      expect(list.json.object).toBe('list');
      expect(list.json.data.map((d: any) => d.id).sort()).toEqual([...unmatchedIds].sort());
      for (const d of list.json.data) {
        expect(Object.keys(d).sort()).toEqual(['address', 'amount', 'asset', 'created_at', 'id', 'livemode', 'network', 'object', 'payment_intent', 'reason', 'status', 'tx_hash']);
        expect(d.status).toBe('unmatched');
        expect(d.id).toMatch(/^wd_/);
      }
      const credited = await s.sandbox('GET', '/wallet-deposits?status=credited');
      expect(credited.json.data.map((d: any) => d.payment_intent)).toContain(pi.id);
      const other = await s.newMerchant({ name: 'Other' });
      const otherList = await s.call('test', 'GET', '/wallet-deposits', { key: other.keys.test_secret });
      expect(otherList.json.data).toEqual([]);
      expect((await s.call('test', 'GET', '/wallet-deposits?status=nope')).status).toBe(401);
      expect((await s.sandbox('GET', '/wallet-deposits?status=nope')).json.error.param).toBe('status');
    });

    it('two open intents never share address, network, asset and amount, even when allocated at once', async () => {
      const intents = await Promise.all(Array.from({ length: 12 }, () => intent({ amount: '777.00' })));
      const pages = await Promise.all(intents.map((pi) => openCheckout(s, pi.checkout_url)));
      const results = await Promise.all(pages.map((p) => pay(s, p, { method: 'external_wallet', network: 'polygon' })));
      for (const r of results) expect(r.status, r.text).toBe(200);
      const amounts = results.map((r) => r.json.next_action.amount as string);
      expect(new Set(amounts).size).toBe(amounts.length);
      expect(new Set(results.map((r) => r.json.next_action.address)).size).toBe(1);
      // The database refuses a second open allocation of one amount outright.
      const db = s.running.database.db;
      const smallest = [...amounts].sort((x, y) => Number(x) - Number(y))[0]!;
      const taken = await db.selectFrom('wallet_allocations').selectAll().where('amount', '=', smallest).where('state', '=', 'open').executeTakeFirstOrThrow();
      await expect(db.insertInto('wallet_allocations').values({ ...taken, id: 'wa_duplicate', payment_intent_id: intents[1].id }).execute()).rejects.toThrow();
      // Once its intent is no longer open, its amount (the smallest tag) is the next one allocated.
      const cancelled = await s.sandbox('POST', `/payment-intents/${taken.payment_intent_id}/cancel`);
      expect(cancelled.status).toBe(200);
      const fresh = await intent({ amount: '777.00' });
      const r = await pay(s, await openCheckout(s, fresh.checkout_url), { method: 'external_wallet', network: 'polygon' });
      expect(r.json.next_action.amount).toBe(smallest);
    });
  });

  describe('receiving caps', () => {
    it('an over-cap attempt shows MERCHANT_LIMIT_EXCEEDED in plain words and leaves the intent awaiting payment', async () => {
      const m = await s.newMerchant({ name: 'Capped shop' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: '5' });
      const pi = await intent({ amount: '1500.00' }, m.keys.test_secret);
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'card', card_number: '4242424242424242', card_expiry: '12/40', card_cvc: '123' });
      expect(r.status).toBe(402);
      expect(r.json.error.code).toBe('MERCHANT_LIMIT_EXCEEDED');
      expect(r.json.error.message).toContain('more than Capped shop can receive right now');
      expect(r.json.error.message).toContain('Nothing was taken from you');
      const after = await s.call('test', 'GET', `/payment-intents/${pi.id}`, { key: m.keys.test_secret });
      expect(after.json.status).toBe('awaiting_payment');
      const st = await checkoutStatus(s, page);
      expect(st.json.status).toBe('awaiting_payment');
      expect(st.json.final).toBe(false);
      expect(st.json.detail).toContain('MERCHANT_LIMIT_EXCEEDED');
      expect(st.json.attempt).toEqual({ method: 'card', state: 'declined' });

      // The exact wallet deposit over the cap is kept aside, not credited.
      const w = await pay(s, page, { method: 'external_wallet', network: 'tron' });
      const dep = await action(s, page, '/wallet/deposit', { network: 'tron', asset: 'USDT', amount: w.json.next_action.amount });
      expect(dep.json.deposit).toMatchObject({ status: 'unmatched', reason: 'MERCHANT_LIMIT_EXCEEDED' });
      expect((await s.call('test', 'GET', `/payment-intents/${pi.id}`, { key: m.keys.test_secret })).json.status).toBe('awaiting_payment');
    });
  });

  describe('live status', () => {
    it('follows moves made elsewhere: a cancel over the API, an expiry by the sandbox clock; return_url carries the intent', async () => {
      const pi = await intent({ return_url: 'https://shop.example/done?order=7' });
      const page = await openCheckout(s, pi.checkout_url);
      expect((await checkoutStatus(s, page)).json).toMatchObject({ status: 'awaiting_payment', final: false });
      await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      const st = (await checkoutStatus(s, page)).json;
      expect(st).toMatchObject({ status: 'cancelled', final: true, headline: 'This payment was cancelled' });
      expect(st.return_url).toBe(`https://shop.example/done?order=7&payment_intent=${pi.id}`);
      expect((await pay(s, page, { method: 'service_balance' })).json.error.code).toBe('intent_not_payable');

      const m = await s.newMerchant({ name: 'Clock shop' });
      const later = await intent({ expires_in_minutes: 5 }, m.keys.test_secret);
      const p2 = await openCheckout(s, later.checkout_url);
      expect((await checkoutStatus(s, p2)).json.seconds_left).toBeGreaterThan(290);
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body: { seconds: 301 } });
      expect(adv.status).toBe(200);
      expect((await checkoutStatus(s, p2)).json).toMatchObject({ status: 'expired', final: true, seconds_left: 0 });
      const reopened = await openCheckout(s, later.checkout_url);
      expect(reopened.html).toContain('This payment has expired');
      expect(reopened.html).not.toContain('name="method"');
    });
  });

  it('checkout_url is absolute at the sandbox origin', async () => {
    const pi = await intent();
    expect(pi.checkout_url).toBe(`${new URL(s.config.sandboxUrl).origin}/checkout/${pi.id}`);
    expect(pathOf(pi.checkout_url)).toBe(`/checkout/${pi.id}`);
  });
});
