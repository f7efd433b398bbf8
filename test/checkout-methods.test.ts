// Paying on the hosted checkout over HTTP: card, M-Pesa and PayPal through the sandbox rails, with every test
// value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import {
  action,
  attemptsOf,
  checkoutStatus,
  createIntent,
  eventTypes,
  openCheckout,
  pay,
  publicCall,
  sandboxIntent,
  waitForStatus,
} from './helpers/checkout.js';
import { CSP } from './helpers/checkout-page.js';

describe(`hosted checkout (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  describe('card', () => {
    it('validates number (Luhn), expiry and CVC; nothing is attempted on a bad card', async () => {
      const pi = await createIntent(s);
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
      expect((await sandboxIntent(s, pi.id)).status).toBe('awaiting_payment');
      expect(await attemptsOf(s, pi.id)).toHaveLength(0);
    });

    it('test cards: success, declined, insufficient funds (failed attempts: the intent stays payable), success then disputed', async () => {
      const cases = [
        { number: '4242 4242 4242 4242', status: 'paid', failure: null, last: 'payment_intent.paid' },
        { number: '4000000000000002', status: 'awaiting_payment', failure: 'card_declined', last: 'payment_intent.payment_failed' },
        { number: '4000000000009995', status: 'awaiting_payment', failure: 'insufficient_funds', last: 'payment_intent.payment_failed' },
        { number: '4000000000000259', status: 'paid', failure: null, last: 'payment_intent.disputed' },
      ];
      for (const c of cases) {
        const pi = await createIntent(s);
        const page = await openCheckout(s, pi.checkout_url);
        const r = await pay(s, page, { method: 'card', card_number: c.number, card_expiry: '12/40', card_cvc: '123' });
        expect(r.status, r.text).toBe(200);
        const after = await sandboxIntent(s, pi.id);
        expect(after.status, c.number).toBe(c.status);
        expect(after.failure_code, c.number).toBeNull();
        expect(after.last_payment_error?.code ?? null, c.number).toBe(c.failure);
        const types = await eventTypes(s, pi.id);
        expect(types.at(-1), c.number).toBe(c.last);
        if (c.failure) {
          const st = (await checkoutStatus(s, page)).json;
          expect(st.detail).toMatch(c.failure === 'card_declined' ? /declined/ : /not enough money/);
          expect(st.detail).toMatch(/Try again/);
          expect(st.final).toBe(false);
          // and it can be paid at once with another card
          const again = await pay(s, page, { method: 'card', card_number: '4242424242424242', card_expiry: '12/40', card_cvc: '123' });
          expect(again.status, again.text).toBe(200);
          expect((await sandboxIntent(s, pi.id)).status).toBe('paid');
        }
      }
      // The card number is never stored.
      const rows = await s.running.database.db.selectFrom('rail_payments').select('details').execute();
      for (const r of rows) expect(r.details).not.toMatch(/4242424242424242|4000000000000002/);
    });
  });

  describe('M-Pesa', () => {
    it('refuses a number that is not a Kenyan mobile number', async () => {
      const pi = await createIntent(s);
      const page = await openCheckout(s, pi.checkout_url);
      for (const phone of ['12345', '+255712345678', '+2547123456789', '']) {
        const r = await pay(s, page, { method: 'mpesa', phone });
        expect(r.status, phone).toBe(400);
        expect(r.json.error.param).toBe('phone');
      }
    });

    it('STK push: pending, then each test number resolves as documented (failures leave the intent payable)', async () => {
      const cases = [
        { phone: '+254700000001', status: 'paid', failure: null, event: 'payment_intent.paid' },
        { phone: '0700000002', status: 'awaiting_payment', failure: 'customer_cancelled', event: 'payment_intent.payment_failed' },
        { phone: '+254700000003', status: 'awaiting_payment', failure: 'insufficient_funds', event: 'payment_intent.payment_failed' },
        { phone: '254700000004', status: 'awaiting_payment', failure: 'timeout', event: 'payment_intent.payment_failed' },
        { phone: '+254700000005', status: 'confirming', failure: null, event: 'payment_intent.review' },
        { phone: '+254712345678', status: 'paid', failure: null, event: 'payment_intent.paid' },
      ];
      const started = await Promise.all(
        cases.map(async (c) => {
          const pi = await createIntent(s);
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
        const st = await waitForStatus(s, page, (x) => x.attempt?.state !== 'pending');
        expect(st.status, c.phone).toBe(c.status);
        const after = await sandboxIntent(s, pi.id);
        expect(after.status, c.phone).toBe(c.status);
        expect(after.failure_code, c.phone).toBeNull();
        expect(after.last_payment_error?.code ?? null, c.phone).toBe(c.failure);
        if (c.failure) expect(st.detail, c.phone).toMatch(/Try again/);
        expect((await eventTypes(s, pi.id)).at(-1), c.phone).toBe(c.event);
      }
    });
  });

  describe('PayPal', () => {
    it('redirect-style approval: turning back leaves the intent open; approving pays it', async () => {
      const pi = await createIntent(s, { amount: '25.00', currency: 'USD' });
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
      expect((await sandboxIntent(s, pi.id)).status).toBe('awaiting_payment');
      // The turned-back approval cannot be used afterwards.
      expect((await action(s, page, approval.slice(page.path.length), { approve: true })).status).toBe(409);

      const second = await pay(s, page, { method: 'paypal' });
      const ok = await action(s, page, (second.json.next_action.url as string).slice(page.path.length), { approve: true });
      expect(ok.status, ok.text).toBe(200);
      const after = await sandboxIntent(s, pi.id);
      expect(after.status).toBe('paid');
      expect(after.payment_method).toBe('paypal');
      expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.paid');
    });
  });
});
