// The hosted checkout's page over HTTP: what it shows, its security headers and anti-forgery token, the live
// status document, and payment from the balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import {
  attemptsOf,
  checkoutStatus,
  createIntent,
  eventTypes,
  openCheckout,
  pathOf,
  pay,
  publicCall,
  sandboxIntent,
} from './helpers/checkout.js';
import { CSP, STATUS_KEYS } from './helpers/checkout-page.js';

describe(`hosted checkout (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  function methodsOffered(html: string): string[] {
    return [...html.matchAll(/<input type="radio" name="method" value="([a-z_]+)"/g)].map((m) => m[1]!);
  }

  describe('the page', () => {
    it('shows merchant, description, fiat and asset amounts, a countdown and only the allowed, valid methods', async () => {
      const pi = await createIntent(s, { description: 'Order #1001 <b>', return_url: 'https://shop.example/thanks' });
      const page = await openCheckout(s, pi.checkout_url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Test merchant');
      expect(page.html).toContain('Order #1001 &lt;b&gt;');
      expect(page.html).not.toContain('<b>');
      expect(page.html).toContain('KES 1,500.00');
      // One amount: the fiat amount; the asset amount appears only in the wallet panel, where it is sent.
      expect(page.html).not.toContain(pi.pay_amount);
      // No method is chosen for the customer.
      expect(page.html).not.toMatch(/name="method"[^>]*checked/);
      expect(page.html).toContain('Account balance');
      const left = Number(/data-seconds-left="(\d+)"/.exec(page.html)?.[1]);
      expect(left).toBeGreaterThan(29 * 60);
      expect(left).toBeLessThanOrEqual(30 * 60);
      // KES settling in USDT: balance, M-Pesa, card, wallet; never PayPal (not for KES).
      expect(methodsOffered(page.html)).toEqual(['service_balance', 'mpesa', 'card', 'external_wallet']);
      expect(page.html).toContain('Sandbox: test mode');

      const usd = await openCheckout(
        s,
        (await createIntent(s, { amount: '20.00', currency: 'USD', settlement_currency: 'BTC' })).checkout_url,
      );
      expect(methodsOffered(usd.html)).toEqual(['service_balance', 'card', 'paypal']);
      const onlyCard = await openCheckout(s, (await createIntent(s, { payment_methods: ['card'] })).checkout_url);
      expect(methodsOffered(onlyCard.html)).toEqual(['card']);
    });

    it('carries a strict CSP and safe headers, no inline script or style, and no key anywhere', async () => {
      const pi = await createIntent(s);
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
      const pi = await createIntent(s);
      const live = await publicCall(s, 'GET', `/checkout/${pi.id}`, { env: 'live' });
      expect(live.status).toBe(404);
      const liveStatus = await publicCall(s, 'GET', `/checkout/${pi.id}/status`, { env: 'live' });
      expect(liveStatus.status).toBe(404);
      expect(liveStatus.json.error.code).toBe('resource_missing');
    });

    it('keeps the token of an open tab working when the page is opened again', async () => {
      const pi = await createIntent(s);
      const first = await openCheckout(s, pi.checkout_url);
      const again = await fetch(s.url('test', first.path), { headers: { cookie: first.cookie } });
      const html = await again.text();
      // The same browser keeps its cookie; the new page's token and the open tab's both act.
      expect(again.headers.get('set-cookie')!.split(';')[0]).toBe(first.cookie);
      const second = /<meta name="checkout-token" content="([^"]+)">/.exec(html)![1]!;
      for (const token of [first.token, second]) {
        const r = await publicCall(s, 'POST', `${first.path}/pay`, {
          body: { method: 'service_balance' },
          headers: { 'x-checkout-token': token, cookie: first.cookie },
        });
        expect(r.status, r.text).not.toBe(403);
        expect(r.json.error?.code).not.toBe('checkout_token_invalid');
      }
    });
  });

  describe('anti-forgery', () => {
    it("refuses pay actions without the token, with another intent's token, or from another origin; nothing is paid", async () => {
      const pi = await createIntent(s);
      const page = await openCheckout(s, pi.checkout_url);
      const other = await openCheckout(s, (await createIntent(s)).checkout_url);
      const body = { method: 'service_balance' };
      const tries = [
        await publicCall(s, 'POST', `${page.path}/pay`, { body }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': page.token } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { cookie: page.cookie } }),
        await publicCall(s, 'POST', `${page.path}/pay`, { body, headers: { 'x-checkout-token': other.token, cookie: other.cookie } }),
        await publicCall(s, 'POST', `${page.path}/pay`, {
          body,
          headers: { 'x-checkout-token': page.token, cookie: page.cookie, origin: 'https://evil.example' },
        }),
        await publicCall(s, 'POST', `${page.path}/pay`, {
          body,
          headers: { 'x-checkout-token': `${page.token}x`, cookie: `${page.cookie}x` },
        }),
      ];
      for (const r of tries) {
        expect(r.status, r.text).toBe(403);
        expect(r.json.error.code).toBe('checkout_token_invalid');
        expect(r.json.error.type).toBe('permission_error');
      }
      expect((await sandboxIntent(s, pi.id)).status).toBe('awaiting_payment');
      expect(await attemptsOf(s, pi.id)).toHaveLength(0);
      const ok = await pay(s, page, body);
      expect(ok.status, ok.text).toBe(200);
      expect((await sandboxIntent(s, pi.id)).status).toBe('paid');
    });
  });

  describe('service balance', () => {
    it('pays in one step: paid, with its events', async () => {
      const pi = await createIntent(s);
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'service_balance' });
      expect(r.json).toEqual({ state: 'completed', status: 'paid' });
      const after = await sandboxIntent(s, pi.id);
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
  describe('live status', () => {
    it('follows moves made elsewhere: a cancel over the API, an expiry by the sandbox clock; return_url carries the intent', async () => {
      const pi = await createIntent(s, { return_url: 'https://shop.example/done?order=7' });
      const page = await openCheckout(s, pi.checkout_url);
      expect((await checkoutStatus(s, page)).json).toMatchObject({ status: 'awaiting_payment', final: false });
      await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      const st = (await checkoutStatus(s, page)).json;
      expect(st).toMatchObject({ status: 'cancelled', final: true, headline: 'This payment was cancelled' });
      expect(st.return_url).toBe(`https://shop.example/done?order=7&payment_intent=${pi.id}`);
      expect((await pay(s, page, { method: 'service_balance' })).json.error.code).toBe('intent_not_payable');

      const m = await s.newMerchant({ name: 'Clock shop' });
      const later = await createIntent(s, { expires_in_minutes: 5 }, m.keys.test_secret);
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
    const pi = await createIntent(s);
    expect(pi.checkout_url).toBe(`${new URL(s.config.sandboxUrl).origin}/checkout/${pi.id}`);
    expect(pathOf(pi.checkout_url)).toBe(`/checkout/${pi.id}`);
  });
});
