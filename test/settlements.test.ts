// Settlements: one per paid payment, pending for a new merchant until the maturing job (following the sandbox
// clock) makes it available, frozen by a dispute; the paid event's settlement fields; GET /settlements.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
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

const SETTLEMENT_KEYS = ['amount', 'asset', 'available_at', 'id', 'livemode', 'object', 'payment_intent', 'settled_at', 'status'];

describe(`settlements (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  async function settlementOf(intentId: string, key = s.merchant.keys.test_secret, env: 'test' | 'live' = 'test') {
    const r = await s.call(env, 'GET', `/settlements?payment_intent=${intentId}`, { key });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toHaveLength(1);
    return r.json.data[0];
  }

  it("settles a new merchant's payment pending for 3 days, with every field of 2.4, and says so in the paid event", async () => {
    const t0 = Date.now();
    const paid = await paidSandboxIntent(s);
    const st = await settlementOf(paid.id);
    expect(Object.keys(st).sort()).toEqual(SETTLEMENT_KEYS);
    expect(st.id).toMatch(/^stl_[0-9A-Za-z]{24}$/);
    expect(st.object).toBe('settlement');
    expect(st.payment_intent).toBe(paid.id);
    expect(st.asset).toBe('USDT');
    expect(st.amount).toBe(paid.pay_amount);
    expect(st.status).toBe('pending');
    expect(st.livemode).toBe(false);
    expect(st.settled_at).toBe(paid.paid_at);
    expect(Date.parse(st.available_at) - Date.parse(st.settled_at)).toBe(3 * DAY * 1000);
    expect(Date.parse(st.settled_at)).toBeGreaterThanOrEqual(t0 - 1000);

    const [event] = await eventsOf(s.running.database.db, paid.id, 'payment_intent.paid');
    expect(event.data.settlement_status).toBe('pending');
    expect(event.data.settlement_available_at).toBe(st.available_at);
    for (const f of ['id', 'status', 'amount', 'currency', 'payment_method', 'settlement_currency', 'merchant_reference'])
      expect(event.data).toHaveProperty(f);
    expect(event.data.status).toBe('paid');
    expect(event.data.payment_method).toBe('card');
  });

  it('matures pending settlements to available when the sandbox clock passes available_at, and the balance follows', async () => {
    const m = await s.newMerchant({ name: 'Maturing' });
    const key = m.keys.test_secret;
    const paid = await paidSandboxIntent(s, 'mpesa', {}, key);
    const before = await s.call('test', 'GET', '/balances', { key });
    expect(before.json.data).toEqual([{ asset: 'USDT', total: paid.pay_amount, available: '0.000000', on_hold: paid.pay_amount }]);

    await advanceClock(s, 2 * DAY, key);
    expect((await settlementOf(paid.id, key)).status).toBe('pending');
    await advanceClock(s, DAY, key);
    const st = await settlementOf(paid.id, key);
    expect(st.status).toBe('available');
    const after = await s.call('test', 'GET', '/balances', { key });
    expect(after.json.data).toEqual([{ asset: 'USDT', total: paid.pay_amount, available: paid.pay_amount, on_hold: '0.000000' }]);
    const matured = await s.running.database.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('settlement_id', '=', st.id)
      .where('kind', '=', 'settlement_matured')
      .execute();
    expect(matured).toHaveLength(2);
  });

  it('does not mature a live settlement when a sandbox clock moves', async () => {
    const live = await newIntent(s, {}, 'live');
    await applyLive(s, live.id, 'card');
    await advanceClock(s, 10 * DAY);
    const st = await settlementOf(live.id, s.merchant.keys.live_secret!, 'live');
    expect(st.status).toBe('pending');
    expect(st.livemode).toBe(true);
    // nor is it visible from the sandbox
    const r = await s.sandbox('GET', `/settlements?payment_intent=${live.id}`);
    expect(r.json.data).toEqual([]);
  });

  it('settles available at once for a merchant older than COWRIE_NEW_MERCHANT_DAYS (by its sandbox clock)', async () => {
    const m = await s.newMerchant({ name: 'Old' });
    await advanceClock(s, 31 * DAY, m.keys.test_secret);
    const paid = await paidSandboxIntent(s, 'card', {}, m.keys.test_secret);
    const st = await settlementOf(paid.id, m.keys.test_secret);
    expect(st.status).toBe('available');
    expect(st.available_at).toBe(st.settled_at);
    const [event] = await eventsOf(s.running.database.db, paid.id, 'payment_intent.paid');
    expect(event.data.settlement_status).toBe('available');
    expect(event.data.settlement_available_at).toBe(st.available_at);
  });

  it('records an overpayment surplus as an available credit beside the settlement', async () => {
    const m = await s.newMerchant({ name: 'Overpaid' });
    const key = m.keys.test_secret;
    const intent = await newIntent(s, { amount: '100.00', currency: 'USD' }, 'test', key);
    const surplusAmount = '1.000000';
    const total = (Number(intent.pay_amount) + 1).toFixed(6);
    const paid = await simulate(s, intent.id, 'overpaid', 'card', total, key);
    expect(paid.status).toBe('paid');
    const st = await settlementOf(paid.id, key);
    expect(st.amount).toBe(intent.pay_amount);
    const bal = await s.call('test', 'GET', '/balances', { key });
    expect(bal.json.data).toEqual([{ asset: 'USDT', total, available: surplusAmount, on_hold: intent.pay_amount }]);
  });

  it('credits a duplicate payment to the available balance and fires payment_intent.duplicate_payment', async () => {
    const m = await s.newMerchant({ name: 'Duplicate' });
    const key = m.keys.test_secret;
    const paid = await paidSandboxIntent(s, 'mpesa', {}, key);
    const again = await simulate(s, paid.id, 'duplicate', 'mpesa', undefined, key);
    expect(again.status).toBe('paid');
    const [dup] = await eventsOf(s.running.database.db, paid.id, 'payment_intent.duplicate_payment');
    expect(dup.data.duplicate_amount).toBe(paid.pay_amount);
    const bal = await s.call('test', 'GET', '/balances', { key });
    const double = (Number(paid.pay_amount) * 2).toFixed(6);
    expect(bal.json.data).toEqual([{ asset: 'USDT', total: double, available: paid.pay_amount, on_hold: paid.pay_amount }]);
    // still one settlement
    expect((await s.call('test', 'GET', `/settlements?payment_intent=${paid.id}`, { key })).json.data).toHaveLength(1);
  });

  it('freezes a pending settlement on dispute: frozen, no available_at, never matures, funds on hold', async () => {
    const m = await s.newMerchant({ name: 'Disputed' });
    const key = m.keys.test_secret;
    const paid = await paidSandboxIntent(s, 'card', {}, key);
    await simulate(s, paid.id, 'dispute', 'card', undefined, key);
    const [ev] = await eventsOf(s.running.database.db, paid.id, 'payment_intent.disputed');
    expect(ev.data.settlement_status).toBe('frozen');
    let st = await settlementOf(paid.id, key);
    expect(st.status).toBe('frozen');
    expect(st.available_at).toBeNull();
    await advanceClock(s, 5 * DAY, key);
    st = await settlementOf(paid.id, key);
    expect(st.status).toBe('frozen');
    const bal = await s.call('test', 'GET', '/balances', { key });
    expect(bal.json.data).toEqual([{ asset: 'USDT', total: paid.pay_amount, available: '0.000000', on_hold: paid.pay_amount }]);
    // a dispute opens once: a second is refused and changes nothing
    const again = await s.call('test', 'POST', `/sandbox/payment-intents/${paid.id}/simulate`, {
      key,
      body: { outcome: 'dispute', payment_method: 'card' },
    });
    expect(again.status).toBe(409);
    expect((await settlementOf(paid.id, key)).status).toBe('frozen');
    // won: back to pending with its own available_at (passed meanwhile), so it matures at the next run
    await simulate(s, paid.id, 'dispute_won', 'card', undefined, key);
    st = await settlementOf(paid.id, key);
    expect(st.status).toBe('pending');
    expect(st.available_at).not.toBeNull();
    await advanceClock(s, 1, key);
    expect((await settlementOf(paid.id, key)).status).toBe('available');
  });

  it('freezes an available settlement on dispute: its funds leave available', async () => {
    const m = await s.newMerchant({ name: 'Disputed later' });
    const key = m.keys.test_secret;
    const paid = await paidSandboxIntent(s, 'card', { amount: '10.00', currency: 'USD' }, key);
    await advanceClock(s, 4 * DAY, key);
    expect((await settlementOf(paid.id, key)).status).toBe('available');
    await simulate(s, paid.id, 'dispute', 'card', undefined, key);
    expect((await settlementOf(paid.id, key)).status).toBe('frozen');
    const bal = await s.call('test', 'GET', '/balances', { key });
    expect(bal.json.data[0]).toMatchObject({ available: '0.000000', on_hold: paid.pay_amount });
  });

  it('makes no settlement for unpaid outcomes', async () => {
    const m = await s.newMerchant({ name: 'Unpaid' });
    const key = m.keys.test_secret;
    for (const outcome of ['failed', 'underpaid', 'review', 'cancelled', 'expired']) {
      const intent = await newIntent(s, {}, 'test', key);
      await simulate(s, intent.id, outcome, 'card', undefined, key);
    }
    expect((await s.call('test', 'GET', '/settlements', { key })).json.data).toEqual([]);
    expect((await s.call('test', 'GET', '/balances', { key })).json.data).toEqual([]);
  });

  it('settles a payment held for review once it succeeds', async () => {
    const m = await s.newMerchant({ name: 'Review' });
    const key = m.keys.test_secret;
    const intent = await newIntent(s, {}, 'test', key);
    await simulate(s, intent.id, 'review', 'card', undefined, key);
    await simulate(s, intent.id, 'success', 'card', undefined, key);
    expect((await settlementOf(intent.id, key)).amount).toBe(intent.pay_amount);
  });

  describe('GET /settlements', () => {
    it('lists newest first with a default limit of 25, pages with starting_after, and filters by status', async () => {
      const m = await s.newMerchant({ name: 'Lister' });
      const key = m.keys.test_secret;
      const ids: string[] = [];
      for (let i = 0; i < 27; i++) ids.push((await paidSandboxIntent(s, 'mpesa', { amount: `${i + 1}.00` }, key)).id);
      const first = await s.call('test', 'GET', '/settlements', { key });
      expect(first.status).toBe(200);
      expect(first.json.object).toBe('list');
      expect(first.json.data).toHaveLength(25);
      expect(first.json.has_more).toBe(true);
      expect(first.json.data[0].payment_intent).toBe(ids[26]);
      expect(first.json.environment).toBe('test');
      const last = first.json.data[24].id;
      const second = await s.call('test', 'GET', `/settlements?starting_after=${last}`, { key });
      expect(second.json.data.map((x: any) => x.payment_intent)).toEqual([ids[1], ids[0]]);
      expect(second.json.has_more).toBe(false);
      const seen = new Set([...first.json.data, ...second.json.data].map((x: any) => x.id));
      expect(seen.size).toBe(27);
      expect((await s.call('test', 'GET', '/settlements?limit=100&status=available', { key })).json.data).toEqual([]);
      expect((await s.call('test', 'GET', '/settlements?limit=100&status=pending', { key })).json.data).toHaveLength(27);
    });

    it('refuses a bad limit, an unknown cursor and unknown parameters', async () => {
      for (const q of ['limit=0', 'limit=101', 'limit=x']) {
        const r = await s.sandbox('GET', `/settlements?${q}`);
        expect(r.status).toBe(400);
        expect(r.json.error.param).toBe('limit');
      }
      const r = await s.sandbox('GET', '/settlements?starting_after=stl_nope');
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe('parameter_invalid');
      expect(r.json.error.param).toBe('starting_after');
      expect((await s.sandbox('GET', '/settlements?status=done')).status).toBe(400);
      expect((await s.sandbox('GET', '/settlements?foo=1')).json.error.code).toBe('parameter_unknown');
    });

    it("never shows another merchant's settlements", async () => {
      const m = await s.newMerchant({ name: 'Isolated' });
      const paid = await paidSandboxIntent(s);
      const r = await s.call('test', 'GET', `/settlements?payment_intent=${paid.id}`, { key: m.keys.test_secret });
      expect(r.json.data).toEqual([]);
      const c = await s.call('test', 'GET', `/settlements?starting_after=${(await settlementOf(paid.id)).id}`, { key: m.keys.test_secret });
      expect(c.status).toBe(400);
    });

    it('needs settlements:read: 403 insufficient_scope otherwise; 401 without a key', async () => {
      const other = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['balances:read', 'payments:read'],
      });
      const reader = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['settlements:read'],
      });
      expect((await s.call('test', 'GET', '/settlements', { key: other.key })).json.error.code).toBe('insufficient_scope');
      expect((await s.call('test', 'GET', '/settlements', { key: reader.key })).status).toBe(200);
      expect((await s.call('test', 'GET', '/settlements')).status).toBe(401);
      expect((await s.call('test', 'GET', '/settlements', { key: s.merchant.keys.test_publishable })).json.error.code).toBe(
        'publishable_key_not_allowed',
      );
    });
  });
});
