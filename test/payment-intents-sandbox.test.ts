// The sandbox helpers of payment intents (api-reference "Sandbox helpers"): the payment driver, expiry by the
// sandbox clock, and receiving caps.
import { type Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantLimits } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { D, URL_ENV, ISO_RE, up, record, helpers } from './helpers/payment-intents.js';

describe(`payment intents (${ENGINE})`, () => {
  let s: TestServer;
  const h = helpers(() => s);
  const { createOk } = h;

  beforeAll(async () => {
    s = await startTestServer({ env: URL_ENV });
  });
  afterAll(async () => s?.stop());

  describe('sandbox helpers', () => {
    it('refuses live keys on every sandbox endpoint: 400 sandbox_only, nothing moved', async () => {
      const live = await createOk({ amount: '20', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const key = s.merchant.keys.live_secret!;
      const before = { events: await h.count('events'), attempts: await h.count('payment_attempts') };
      for (const [method, path, body] of [
        ['GET', '/sandbox/clock', undefined],
        ['POST', '/sandbox/clock/advance', { seconds: 3600 }],
        ['POST', `/sandbox/payment-intents/${live.id}/simulate`, { outcome: 'success', payment_method: 'service_balance' }],
      ] as const) {
        const r = await s.call('live', method, path, { key, body });
        expectError(r, 400, 'sandbox_only', null);
        expect(r.json.environment).toBe('live');
        expect(r.json.livemode).toBe(true);
      }
      expect((await h.row(live.id)).status).toBe('awaiting_payment');
      expect(await h.count('events')).toBe(before.events);
      expect(await h.count('payment_attempts')).toBe(before.attempts);
      const clock = await s.running.database.db
        .selectFrom('sandbox_clocks')
        .selectAll()
        .where('merchant_id', '=', s.merchant.merchant.id)
        .execute();
      expect(clock).toEqual([]);
    });

    it('reads and advances the sandbox clock of one merchant only', async () => {
      const m = await s.newMerchant({ name: 'Clock merchant' });
      const call = (method: string, path: string, body?: unknown, key = m.keys.test_secret) => s.call('test', method, path, { key, body });
      const t0 = Date.now();
      const r0 = await call('GET', '/sandbox/clock');
      expect(r0.status, r0.text).toBe(200);
      expect(Object.keys(r0.json).sort()).toEqual(['environment', 'livemode', 'now', 'object', 'offset_seconds', 'request_id']);
      expect(r0.json.object).toBe('sandbox_clock');
      expect(r0.json.offset_seconds).toBe(0);
      expect(r0.json.now).toMatch(ISO_RE);
      expect(Date.parse(r0.json.now)).toBeGreaterThanOrEqual(t0 - 5);
      expect(Date.parse(r0.json.now)).toBeLessThanOrEqual(Date.now() + 5);

      const t1 = Date.now();
      const a = await call('POST', '/sandbox/clock/advance', { seconds: 90 });
      expect(a.status, a.text).toBe(200);
      expect(a.json.object).toBe('sandbox_clock');
      expect(a.json.offset_seconds).toBe(90);
      expect(Date.parse(a.json.now)).toBeGreaterThanOrEqual(t1 + 90_000 - 5);
      expect(Date.parse(a.json.now)).toBeLessThanOrEqual(Date.now() + 90_000 + 5);
      const b = await call('POST', '/sandbox/clock/advance', { seconds: 10 });
      expect(b.json.offset_seconds).toBe(100);
      const r1 = await call('GET', '/sandbox/clock');
      expect(r1.json.offset_seconds).toBe(100);
      expect(Date.parse(r1.json.now) - Date.now()).toBeGreaterThan(99_000);

      // another merchant's sandbox time has not moved
      const mine = await s.sandbox('GET', '/sandbox/clock');
      expect(mine.json.offset_seconds).toBe(0);

      // what a sandbox intent created now says
      const pi = await createOk({ amount: '10', currency: 'USD' }, { key: m.keys.test_secret });
      expect(Date.parse(pi.created_at) - Date.now()).toBeGreaterThan(99_000);
    });

    it('validates the advance: whole seconds from 1 to 34,560,000', async () => {
      const m = await s.newMerchant({ name: 'Far future merchant' });
      const call = (body: unknown) => s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body });
      for (const seconds of [0, -1, 1.5, '60', null, 34_560_001]) expectError(await call({ seconds }), 400, 'parameter_invalid', 'seconds');
      expectError(await call({}), 400, 'parameter_missing', 'seconds');
      expectError(await call({ seconds: 1, days: 1 }), 400, 'parameter_unknown', 'days');
      expect((await s.call('test', 'GET', '/sandbox/clock', { key: m.keys.test_secret })).json.offset_seconds).toBe(0);
      const max = await call({ seconds: 34_560_000 });
      expect(max.status, max.text).toBe(200);
      expect(max.json.offset_seconds).toBe(34_560_000);
    });
  });

  describe('expiry by the sandbox clock', () => {
    it('expires an intent once its expires_at passes: retrieve, list filter, one expired event at the moment of expiry', async () => {
      const m = await s.newMerchant({ name: 'Expiry merchant' });
      const key = m.keys.test_secret;
      const short = await createOk({ amount: '100', currency: 'KES', expires_in_minutes: 1 }, { key });
      const long = await createOk({ amount: '100', currency: 'KES' }, { key });
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 61 } });
      expect(adv.status, adv.text).toBe(200);
      // the advance ran the sweep at once: the row is expired before anybody reads it
      expect((await h.row(short.id)).status).toBe('expired');
      expect((await h.row(long.id)).status).toBe('awaiting_payment');

      const r = await s.call('test', 'GET', `/payment-intents/${short.id}`, { key });
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('expired');
      expect(r.json.expires_at).toBe(short.expires_at);
      expect(r.json.cancelled_at).toBeNull();
      const awaiting = await s.call('test', 'GET', '/payment-intents?status=awaiting_payment', { key });
      expect(awaiting.json.data.map((p: { id: string }) => p.id)).toEqual([long.id]);
      const expired = await s.call('test', 'GET', '/payment-intents?status=expired', { key });
      expect(expired.json.data.map((p: { id: string }) => p.id)).toEqual([short.id]);
      expect(expired.json.data[0].status).toBe('expired');

      const events = await h.events(short.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      const ev = events[1]!;
      expect(ev.payload.created_at).toBe(short.expires_at);
      expect(Number(ev.created_at)).toBe(Date.parse(short.expires_at));
      expect(ev.payload.data).toEqual({ ...record(short), status: 'expired' });
      expect(ev.payload).toMatchObject({ object: 'event', api_version: '2026-06-01', livemode: false, type: 'payment_intent.expired' });
      expect((await h.events(long.id)).map((e) => e.type)).toEqual(['payment_intent.created']);

      // more time, more reads, a cancel and a payment: still exactly one expired event
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 61 } });
      await s.call('test', 'GET', `/payment-intents/${short.id}`, { key });
      expectError(await s.call('test', 'POST', `/payment-intents/${short.id}/cancel`, { key }), 409, 'intent_not_cancelable', null);
      expectError(
        await s.call('test', 'POST', `/sandbox/payment-intents/${short.id}/simulate`, {
          key,
          body: { outcome: 'success', payment_method: 'mpesa' },
        }),
        409,
        'intent_not_payable',
        null,
      );
      expect((await h.events(short.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      expect(await h.attempts(short.id)).toEqual([]);
    });

    it('does not expire live intents when the sandbox clock moves', async () => {
      const m = await s.newMerchant({ name: 'Live expiry merchant', verified: true });
      const live = await createOk({ amount: '10', currency: 'USD', expires_in_minutes: 1 }, { env: 'live', key: m.keys.live_secret! });
      await s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body: { seconds: 3600 } });
      expect((await h.row(live.id)).status).toBe('awaiting_payment');
      const r = await s.call('live', 'GET', `/payment-intents/${live.id}`, { key: m.keys.live_secret! });
      expect(r.json.status).toBe('awaiting_payment');
    });
  });

  describe('receiving caps', () => {
    const simulate = (key: string, id: string, outcome: string, payment_method = 'service_balance', amount?: string) =>
      s.call('test', 'POST', `/sandbox/payment-intents/${id}/simulate`, {
        key,
        body: { outcome, payment_method, ...(amount ? { amount } : {}) },
      });
    const usdt = (d: Decimal.Value) => new D(d).mul('1.0002');

    it('declines a payment over the per-payment cap with 402 MERCHANT_LIMIT_EXCEEDED; the intent keeps awaiting payment', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Capped merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: '10' });
      const key = m.keys.test_secret;
      const big = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect(big.pay_amount).toBe('11.607590');
      const before = await h.count('events');
      for (const outcome of ['success', 'overpaid', 'review']) {
        const r = await simulate(key, big.id, outcome);
        expectError(r, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
        expect(r.json.error.message).toMatch(/per-payment/);
      }
      expect(await h.count('events')).toBe(before);
      const got = await s.call('test', 'GET', `/payment-intents/${big.id}`, { key });
      expect(got.json).toMatchObject({ status: 'awaiting_payment', amount_received: '0.000000', payment_method: null, paid_at: null });
      const attempts = await h.attempts(big.id);
      expect(attempts).toHaveLength(3);
      for (const a of attempts) {
        expect(a).toMatchObject({
          merchant_id: m.merchant.id,
          environment: 'test',
          outcome: 'declined',
          failure_code: 'MERCHANT_LIMIT_EXCEEDED',
          counts_to_caps: 0,
          asset: 'USDT',
          payment_method: 'service_balance',
        });
      }
      expect(attempts.map((a) => a.amount).sort()).toEqual(['11.607590', '11.607590', up(new D('11.607590').mul('1.1'), 6)].sort());
      expect(new D(attempts.find((a) => a.amount === '11.607590')!.usd_value).eq(usdt('11.607590'))).toBe(true);
      expect((await h.events(big.id)).map((e) => e.type)).toEqual(['payment_intent.created']);

      // under the cap is fine: 1000 KES is 7.738393 USDT
      const small = await createOk({ amount: '1000', currency: 'KES' }, { key });
      const ok = await simulate(key, small.id, 'success', 'mpesa');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.status).toBe('paid');
      const [accepted] = await h.attempts(small.id);
      expect(accepted).toMatchObject({ outcome: 'success', counts_to_caps: 1, amount: small.pay_amount, payment_method: 'mpesa' });
      expect(new D(accepted!.usd_value).eq(usdt(small.pay_amount))).toBe(true);

      // removing the cap lets the big one through
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: 'none' });
      const paid = await simulate(key, big.id, 'success');
      expect(paid.status, paid.text).toBe(200);
      expect(paid.json.status).toBe('paid');
    });

    it('counts earlier accepted payments, not declined ones, against the rolling 24-hour cap', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Daily cap merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { daily: '20' });
      const key = m.keys.test_secret;
      const first = await createOk({ amount: '1500', currency: 'KES' }, { key }); // 11.61 USD
      expect((await simulate(key, first.id, 'success')).status).toBe(200);
      const second = await createOk({ amount: '1500', currency: 'KES' }, { key }); // +11.61 > 20
      const declined = await simulate(key, second.id, 'success');
      expectError(declined, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect(declined.json.error.message).toMatch(/daily/);
      expect((await h.row(second.id)).status).toBe('awaiting_payment');
      expect((await h.attempts(second.id)).map((a) => [a.outcome, a.counts_to_caps])).toEqual([['declined', 0]]);
      // 500 KES (3.87 USD) still fits: 11.61 + 3.87 <= 20 because the declined attempt does not count
      const third = await createOk({ amount: '500', currency: 'KES' }, { key });
      const ok = await simulate(key, third.id, 'success');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.status).toBe('paid');
      // an underpayment that would cross it (15.48 + 5.00 > 20) is declined too
      const fourth = await createOk({ amount: '2000', currency: 'KES' }, { key });
      expectError(await simulate(key, fourth.id, 'underpaid', 'mpesa', '5.000000'), 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect((await h.row(fourth.id)).amount_received).toBe('0.000000');

      // a day later (merchant's clock) the window has rolled past the earlier payments
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 86_401 } });
      const later = await createOk({ amount: '1500', currency: 'KES' }, { key });
      const laterPay = await simulate(key, later.id, 'success');
      expect(laterPay.status, laterPay.text).toBe(200);
      expect(laterPay.json.status).toBe('paid');
    });

    it('applies the rolling 30-day cap', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Monthly cap merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { monthly: '15' });
      const key = m.keys.test_secret;
      const first = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect((await simulate(key, first.id, 'success')).status).toBe(200);
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 2 * 86_400 } });
      const second = await createOk({ amount: '1500', currency: 'KES' }, { key });
      const r = await simulate(key, second.id, 'success');
      expectError(r, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect(r.json.error.message).toMatch(/monthly/);
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 29 * 86_400 } });
      const third = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect((await simulate(key, third.id, 'success')).json.status).toBe('paid');
    });
  });
});
