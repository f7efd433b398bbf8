// Refunds: POST /refunds, GET /refunds, GET /refunds/{id}, the legacy refund-request, every rule and error,
// at most one refund per payment under concurrency, windows on the sandbox clock, live provider-rail refunds
// and the operator's review, events and ledger.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliIn } from './helpers/cli.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import {
  DAY,
  advanceClock,
  applyLive,
  eventsOf,
  expectLedgerInvariant,
  newIntent,
  paidSandboxIntent,
  simulate,
} from './helpers/ledger-invariant.js';

const REFUND_KEYS = [
  'amount',
  'created_at',
  'currency',
  'environment',
  'failure_reason',
  'id',
  'livemode',
  'object',
  'payment_intent',
  'provider_reference',
  'reason',
  'request_id',
  'return_address',
  'status',
];
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe(`refunds (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;

  async function refundCount(intentId?: string): Promise<number> {
    let q = db()
      .selectFrom('refunds')
      .select((eb) => eb.fn.countAll().as('n'));
    if (intentId) q = q.where('payment_intent_id', '=', intentId);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  const cli = (...argv: string[]) => runCliIn({ COWRIE_DATABASE_URL: s.config.databaseUrl }, argv);

  const refund = (body: object, key = s.merchant.keys.test_secret, env: 'test' | 'live' = 'test') =>
    s.call(env, 'POST', '/refunds', { key, body });

  describe('POST /refunds in the sandbox', () => {
    it('refunds a paid card payment in full at once: 201 succeeded, the intent refunded, events and balance', async () => {
      const m = await s.newMerchant({ name: 'Refunder' });
      const key = m.keys.test_secret;
      const paid = await paidSandboxIntent(s, 'card', { merchant_reference: 'order-1' }, key);
      const t0 = Date.now();
      const r = await refund({ payment_intent: paid.id, reason: 'requested_by_customer' }, key);
      expect(r.status, r.text).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual(REFUND_KEYS);
      expect(r.json).toMatchObject({
        object: 'refund',
        payment_intent: paid.id,
        amount: '1500.00',
        currency: 'KES',
        status: 'succeeded',
        reason: 'requested_by_customer',
        return_address: null,
        livemode: false,
        environment: 'test',
      });
      expect(r.json.id).toMatch(/^re_[0-9A-Za-z]{24}$/);
      expect(Date.parse(r.json.created_at)).toBeGreaterThanOrEqual(t0 - 1000);
      expect(r.headers.get('service-request-id')).toBe(r.json.request_id);

      const intent = await s.call('test', 'GET', `/payment-intents/${paid.id}`, { key });
      expect(intent.json.status).toBe('refunded');
      const types = (await eventsOf(db(), paid.id)).map((e) => e.type);
      expect(types.slice(-3)).toEqual(['refund.created', 'refund.updated', 'payment_intent.refunded']);
      const [created] = await eventsOf(db(), paid.id, 'refund.created');
      expect(created.data).toMatchObject({ id: r.json.id, object: 'refund', status: 'requested' });
      const [updated] = await eventsOf(db(), paid.id, 'refund.updated');
      expect(updated.data).toMatchObject({ id: r.json.id, status: 'succeeded' });
      const [refunded] = await eventsOf(db(), paid.id, 'payment_intent.refunded');
      expect(refunded.data).toMatchObject({ id: paid.id, status: 'refunded', refund: r.json.id });

      // The pending settlement paid for the refund; the asset stays listed at zero.
      const bal = await s.call('test', 'GET', '/balances', { key });
      expect(bal.json.data).toEqual([{ asset: 'USDT', total: '0.000000', available: '0.000000', on_hold: '0.000000' }]);
      const st = await s.call('test', 'GET', `/settlements?payment_intent=${paid.id}`, { key });
      expect(st.json.data[0].status).toBe('available');

      const got = await s.call('test', 'GET', `/refunds/${r.json.id}`, { key });
      expect(got.status).toBe(200);
      const strip = (o: any) => ({ ...o, request_id: undefined });
      expect(strip(got.json)).toEqual(strip(r.json));
    });

    it('accepts amount equal to the full amount in any decimal spelling; refuses a partial one writing nothing', async () => {
      const a = await paidSandboxIntent(s, 'mpesa');
      const partial = await refund({ payment_intent: a.id, amount: '1499.99' });
      expectError(partial, 400, 'refund_amount_invalid', 'amount');
      expectError(await refund({ payment_intent: a.id, amount: '1500.01' }), 400, 'refund_amount_invalid', 'amount');
      expectError(await refund({ payment_intent: a.id, amount: 1500 }), 400, 'parameter_invalid', 'amount');
      expectError(await refund({ payment_intent: a.id, amount: '-1500' }), 400, 'parameter_invalid', 'amount');
      expect(await refundCount(a.id)).toBe(0);
      const ok = await refund({ payment_intent: a.id, amount: '1500' });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.json.amount).toBe('1500.00');
    });

    it('answers a second refund of a payment with 409 refund_exists, on both paths', async () => {
      const paid = await paidSandboxIntent(s, 'card');
      expect((await refund({ payment_intent: paid.id })).status).toBe(201);
      expectError(await refund({ payment_intent: paid.id }), 409, 'refund_exists');
      expectError(await s.sandbox('POST', `/payment-intents/${paid.id}/refund-request`), 409, 'refund_exists');
      expect(await refundCount(paid.id)).toBe(1);
    });

    it('makes exactly one refund of 20 concurrent requests for one payment', async () => {
      const paid = await paidSandboxIntent(s, 'card');
      const results = await Promise.all(Array.from({ length: 20 }, () => refund({ payment_intent: paid.id })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((x) => x === 201)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'refund_exists');
      expect(await refundCount(paid.id)).toBe(1);
      expect((await eventsOf(db(), paid.id, 'payment_intent.refunded')).length).toBe(1);
    });

    it('refuses an intent that is not paid with 409 intent_not_refundable, and an unknown one with 404', async () => {
      const open = await newIntent(s);
      const r = await refund({ payment_intent: open.id });
      expectError(r, 409, 'intent_not_refundable');
      expect(r.json.error.message).toMatch(/awaiting_payment/);
      const failed = await newIntent(s);
      await simulate(s, failed.id, 'failed');
      expectError(await refund({ payment_intent: failed.id }), 409, 'intent_not_refundable');
      expectError(await refund({ payment_intent: 'pi_000000000000000000000000' }), 404, 'resource_missing', 'payment_intent');
      expectError(await refund({}), 400, 'parameter_missing', 'payment_intent');
      expectError(await refund({ payment_intent: open.id, foo: 1 }), 400, 'parameter_unknown', 'foo');
      expect(await refundCount(open.id)).toBe(0);
    });

    it("refuses another merchant's payment and the other environment's with 404", async () => {
      const m = await s.newMerchant({ name: 'Stranger', verified: true });
      const paid = await paidSandboxIntent(s, 'card');
      expectError(await refund({ payment_intent: paid.id }, m.keys.test_secret), 404, 'resource_missing', 'payment_intent');
      expectError(
        await refund({ payment_intent: paid.id }, s.merchant.keys.live_secret!, 'live'),
        404,
        'resource_missing',
        'payment_intent',
      );
    });

    it('refuses a disputed payment with 409 intent_not_refundable', async () => {
      const paid = await paidSandboxIntent(s, 'card');
      await simulate(s, paid.id, 'dispute', 'card');
      const r = await refund({ payment_intent: paid.id });
      expectError(r, 409, 'intent_not_refundable');
      expect(r.json.error.message).toMatch(/disputed/);
    });

    it('refuses a service-balance payment with 400 use_dashboard_refund, on both paths', async () => {
      const paid = await paidSandboxIntent(s, 'service_balance');
      expectError(await refund({ payment_intent: paid.id }), 400, 'use_dashboard_refund');
      expectError(await s.sandbox('POST', `/payment-intents/${paid.id}/refund-request`), 400, 'use_dashboard_refund');
      expect(await refundCount(paid.id)).toBe(0);
    });

    it('needs a return_address for an external-wallet payment and takes it for no other', async () => {
      const paid = await paidSandboxIntent(s, 'external_wallet');
      expectError(await refund({ payment_intent: paid.id }), 400, 'return_address_required', 'return_address');
      expectError(await refund({ payment_intent: paid.id, return_address: 'not an address' }), 400, 'parameter_invalid', 'return_address');
      expect(await refundCount(paid.id)).toBe(0);
      const ok = await refund({ payment_intent: paid.id, return_address: TRON });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.json.return_address).toBe(TRON);
      expect(ok.json.status).toBe('succeeded');

      const card = await paidSandboxIntent(s, 'card');
      expectError(await refund({ payment_intent: card.id, return_address: WALLET }), 400, 'parameter_invalid', 'return_address');
    });
  });

  describe('refund windows (sandbox clock)', () => {
    it('refunds a provider payment up to 90 days after payment and refuses it after', async () => {
      const m = await s.newMerchant({ name: 'Window 90' });
      const key = m.keys.test_secret;
      const early = await paidSandboxIntent(s, 'card', {}, key);
      const late = await paidSandboxIntent(s, 'mpesa', {}, key);
      const wallet = await paidSandboxIntent(s, 'external_wallet', {}, key);
      await advanceClock(s, 89 * DAY, key);
      expect((await refund({ payment_intent: early.id }, key)).status).toBe(201);
      await advanceClock(s, 2 * DAY, key);
      const r = await refund({ payment_intent: late.id }, key);
      expectError(r, 400, 'refund_window_expired');
      expect(r.json.error.message).toMatch(/90 days/);
      expectError(await refund({ payment_intent: wallet.id, return_address: WALLET }, key), 400, 'refund_window_expired');
      expectError(await s.call('test', 'POST', `/payment-intents/${late.id}/refund-request`, { key }), 400, 'refund_window_expired');
    });

    it('keeps balance payments for the dashboard for 180 days, then refund_window_expired', async () => {
      const m = await s.newMerchant({ name: 'Window 180' });
      const key = m.keys.test_secret;
      const paid = await paidSandboxIntent(s, 'service_balance', {}, key);
      await advanceClock(s, 179 * DAY, key);
      expectError(await refund({ payment_intent: paid.id }, key), 400, 'use_dashboard_refund');
      await advanceClock(s, 2 * DAY, key);
      const r = await refund({ payment_intent: paid.id }, key);
      expectError(r, 400, 'refund_window_expired');
      expect(r.json.error.message).toMatch(/180 days/);
    });
  });

  describe('live provider-rail refunds', () => {
    it('stay requested until reviewed; a failed one can be asked for again; success refunds the intent', async () => {
      const live = s.merchant.keys.live_secret!;
      const intent = await newIntent(s, { amount: '20.00', currency: 'USD' }, 'live');
      await applyLive(s, intent.id, 'card');
      const r = await refund({ payment_intent: intent.id }, live, 'live');
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({ status: 'requested', livemode: true, environment: 'live', amount: '20.00', currency: 'USD' });
      expect((await s.call('live', 'GET', `/payment-intents/${intent.id}`, { key: live })).json.status).toBe('paid');
      const bal = await s.call('live', 'GET', '/balances', { key: live });
      const usdt = bal.json.data.find((b: any) => b.asset === 'USDT');
      expect(usdt).toMatchObject({ available: '0.000000', on_hold: intent.pay_amount, total: intent.pay_amount });
      expectError(await refund({ payment_intent: intent.id }, live, 'live'), 409, 'refund_exists');
      await expectLedgerInvariant(db());

      const failed = await cli('refunds', 'review', r.json.id, '--fail', '--json');
      expect(failed.code, failed.out).toBe(0);
      expect(JSON.parse(failed.out).refund).toMatchObject({ id: r.json.id, status: 'failed' });
      expect((await s.call('live', 'GET', `/refunds/${r.json.id}`, { key: live })).json.status).toBe('failed');
      const after = (await s.call('live', 'GET', '/balances', { key: live })).json.data.find((b: any) => b.asset === 'USDT');
      expect(after).toMatchObject({ available: intent.pay_amount, on_hold: '0.000000' });
      await expectLedgerInvariant(db());

      const again = await s.call('live', 'POST', `/payment-intents/${intent.id}/refund-request`, { key: live, body: { reason: 'retry' } });
      expect(again.status, again.text).toBe(200);
      expect(again.json).toEqual({
        object: 'refund_request',
        payment_intent: intent.id,
        status: 'requested',
        sandbox: false,
        request_id: again.headers.get('service-request-id'),
        environment: 'live',
        livemode: true,
      });
      const second = (await s.call('live', 'GET', `/refunds?payment_intent=${intent.id}`, { key: live })).json.data;
      expect(second.map((x: any) => x.status)).toEqual(['requested', 'failed']);

      const ok = await cli('refunds', 'review', second[0].id, '--succeed', '--json');
      expect(ok.code, ok.out).toBe(0);
      expect(JSON.parse(ok.out).refund.status).toBe('succeeded');
      expect((await s.call('live', 'GET', `/payment-intents/${intent.id}`, { key: live })).json.status).toBe('refunded');
      expect((await eventsOf(db(), intent.id, 'payment_intent.refunded')).length).toBe(1);
      const final = (await s.call('live', 'GET', '/balances', { key: live })).json.data.find((b: any) => b.asset === 'USDT');
      expect(final).toMatchObject({ available: '0.000000', on_hold: '0.000000', total: '0.000000' });

      const twice = await cli('refunds', 'review', second[0].id, '--fail', '--json');
      expect(twice.code).toBe(1);
      expect(JSON.parse(twice.out).error.code).toBe('refund_exists');
      const unknown = await cli('refunds', 'review', 're_nope', '--succeed', '--json');
      expect(unknown.code).toBe(1);
      expect(JSON.parse(unknown.out).error.code).toBe('resource_missing');
      const neither = await cli('refunds', 'review', second[0].id, '--json');
      expect(neither.code).toBe(1);
    });

    it('refuses a live balance payment with use_dashboard_refund', async () => {
      const intent = await newIntent(s, {}, 'live');
      await applyLive(s, intent.id, 'service_balance');
      expectError(await refund({ payment_intent: intent.id }, s.merchant.keys.live_secret!, 'live'), 400, 'use_dashboard_refund');
    });
  });

  describe('legacy POST /payment-intents/{id}/refund-request', () => {
    it('answers 200 with the refund_request shape and refunds like POST /refunds', async () => {
      const paid = await paidSandboxIntent(s, 'card');
      const r = await s.sandbox('POST', `/payment-intents/${paid.id}/refund-request`, { body: { reason: 'duplicate' } });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toEqual({
        object: 'refund_request',
        payment_intent: paid.id,
        status: 'succeeded',
        sandbox: true,
        request_id: r.headers.get('service-request-id'),
        environment: 'test',
        livemode: false,
      });
      expect((await s.sandbox('GET', `/payment-intents/${paid.id}`)).json.status).toBe('refunded');
      const list = await s.sandbox('GET', `/refunds?payment_intent=${paid.id}`);
      expect(list.json.data[0]).toMatchObject({ reason: 'duplicate', status: 'succeeded' });
    });

    it('works without a body, answers 404 param id for an unknown intent and 409 for an unpaid one', async () => {
      const paid = await paidSandboxIntent(s, 'mpesa');
      expect((await s.sandbox('POST', `/payment-intents/${paid.id}/refund-request`)).status).toBe(200);
      expectError(await s.sandbox('POST', '/payment-intents/pi_000000000000000000000000/refund-request'), 404, 'resource_missing', 'id');
      const open = await newIntent(s);
      expectError(await s.sandbox('POST', `/payment-intents/${open.id}/refund-request`), 409, 'intent_not_refundable');
      expectError(
        await s.sandbox('POST', `/payment-intents/${open.id}/refund-request`, { body: { amount: '1' } }),
        400,
        'parameter_unknown',
        'amount',
      );
    });
  });

  describe('GET /refunds', () => {
    it('lists newest first, default limit 20, pages with starting_after, in one environment only', async () => {
      const m = await s.newMerchant({ name: 'Many refunds' });
      const key = m.keys.test_secret;
      const ids: string[] = [];
      for (let i = 0; i < 22; i++) {
        const paid = await paidSandboxIntent(s, 'mpesa', {}, key);
        ids.push((await refund({ payment_intent: paid.id }, key)).json.id);
      }
      const first = await s.call('test', 'GET', '/refunds', { key });
      expect(first.status).toBe(200);
      expect(first.json.data).toHaveLength(20);
      expect(first.json.has_more).toBe(true);
      expect(first.json.data[0].id).toBe(ids[21]);
      const second = await s.call('test', 'GET', `/refunds?starting_after=${first.json.data[19].id}`, { key });
      expect(second.json.data.map((x: any) => x.id)).toEqual([ids[1], ids[0]]);
      expect(second.json.has_more).toBe(false);
      expectError(await s.call('test', 'GET', '/refunds?limit=101', { key }), 400, 'parameter_invalid', 'limit');
      expectError(await s.call('test', 'GET', '/refunds?starting_after=re_nope', { key }), 400, 'parameter_invalid', 'starting_after');
      // another merchant sees none of them, nor does the live side
      expect((await s.sandbox('GET', `/refunds/${ids[0]}`)).status).toBe(404);
      expectError(await s.call('live', 'GET', `/refunds/${ids[0]}`, { key: s.merchant.keys.live_secret! }), 404, 'resource_missing', 'id');
    });
  });

  describe('access', () => {
    it('needs refunds:write to refund and refunds:read to read', async () => {
      const paid = await paidSandboxIntent(s, 'card');
      const reader = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['refunds:read', 'payments:write'],
      });
      const writer = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['refunds:write'],
      });
      expectError(await refund({ payment_intent: paid.id }, reader.key), 403, 'insufficient_scope');
      expectError(
        await s.call('test', 'POST', `/payment-intents/${paid.id}/refund-request`, { key: reader.key }),
        403,
        'insufficient_scope',
      );
      expect(await refundCount(paid.id)).toBe(0);
      const made = await refund({ payment_intent: paid.id }, writer.key);
      expect(made.status).toBe(201);
      expectError(await s.call('test', 'GET', `/refunds/${made.json.id}`, { key: writer.key }), 403, 'insufficient_scope');
      expectError(await s.call('test', 'GET', '/refunds', { key: writer.key }), 403, 'insufficient_scope');
      expect((await s.call('test', 'GET', `/refunds/${made.json.id}`, { key: reader.key })).status).toBe(200);
      expect((await s.call('test', 'POST', '/refunds', { body: { payment_intent: paid.id } })).status).toBe(401);
    });
  });
});
