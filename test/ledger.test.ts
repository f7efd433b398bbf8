// The double-entry ledger: balanced movements only, written in the same transaction as
// the change that caused them, and the invariant helper that every money test runs after each scenario.
import { Decimal } from 'decimal.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS, UnbalancedMovement, postMovement, transfer } from '../src/modules/ledger/index.js';
import { setMerchantLimits } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { DAY, advanceClock, expectLedgerInvariant, newIntent, paidSandboxIntent, simulate } from './helpers/ledger-invariant.js';

describe(`ledger (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;
  const entryCount = async () =>
    Number(
      (
        await db()
          .selectFrom('ledger_entries')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  async function legsOf(intentId: string) {
    const rows = await db().selectFrom('ledger_entries').selectAll().where('payment_intent_id', '=', intentId).orderBy('seq').execute();
    return rows.map((r) => ({ kind: r.kind, account: r.account, amount: new Decimal(r.amount).toFixed() }));
  }

  it('refuses a movement that does not balance, writing nothing', async () => {
    const before = await entryCount();
    const base = {
      merchantId: s.merchant.merchant.id,
      environment: 'test' as const,
      asset: 'USDT' as const,
      kind: 'payment' as const,
      at: Date.now(),
    };
    await expect(
      postMovement(db(), {
        ...base,
        legs: [
          { account: ACCOUNTS.world, amount: new Decimal('-1') },
          { account: ACCOUNTS.available, amount: new Decimal('0.999999') },
        ],
      }),
    ).rejects.toBeInstanceOf(UnbalancedMovement);
    await expect(postMovement(db(), { ...base, legs: [{ account: ACCOUNTS.available, amount: new Decimal(0) }] })).rejects.toBeInstanceOf(
      UnbalancedMovement,
    );
    expect(await entryCount()).toBe(before);
  });

  it('catches a corrupted ledger: the invariant helper fails on a stray leg or a record it disagrees with', async () => {
    const stray = {
      merchant_id: s.merchant.merchant.id,
      environment: 'test' as const,
      asset: 'USDT',
      kind: 'payment',
      payment_intent_id: null,
      settlement_id: null,
      refund_id: null,
      created_at: Date.now(),
    };
    await db()
      .insertInto('ledger_entries')
      .values({ ...stray, movement_id: 'lmv_stray', account: ACCOUNTS.available, amount: '1.000000' })
      .execute();
    await expect(expectLedgerInvariant(db())).rejects.toThrow(/sums to/);
    await db().deleteFrom('ledger_entries').where('movement_id', '=', 'lmv_stray').execute();

    // balanced, but pending money that no pending settlement stands for
    await transfer(
      db(),
      { merchantId: s.merchant.merchant.id, environment: 'test', asset: 'USDT', kind: 'payment', at: Date.now() },
      ACCOUNTS.world,
      ACCOUNTS.pending,
      new Decimal(2),
    );
    await expect(expectLedgerInvariant(db())).rejects.toThrow(/merchant_pending/);
    await db().deleteFrom('ledger_entries').where('kind', '=', 'payment').where('payment_intent_id', 'is', null).execute();
  });

  it('records a payment, its maturing and its refund as balanced movements between the right accounts', async () => {
    const m = await s.newMerchant({ name: 'Lifecycle' });
    const key = m.keys.test_secret;
    const paid = await paidSandboxIntent(s, 'card', {}, key);
    const x = new Decimal(paid.pay_amount).toFixed();
    const neg = new Decimal(paid.pay_amount).neg().toFixed();
    expect(await legsOf(paid.id)).toEqual([
      { kind: 'payment', account: 'world', amount: neg },
      { kind: 'payment', account: 'merchant_pending', amount: x },
    ]);
    await advanceClock(s, 3 * DAY + 1, key);
    const r = await s.call('test', 'POST', '/refunds', { key, body: { payment_intent: paid.id } });
    expect(r.status).toBe(201);
    expect((await legsOf(paid.id)).slice(2)).toEqual([
      { kind: 'settlement_matured', account: 'merchant_pending', amount: neg },
      { kind: 'settlement_matured', account: 'merchant_available', amount: x },
      { kind: 'refund_reserve', account: 'merchant_available', amount: neg },
      { kind: 'refund_reserve', account: 'merchant_refund_reserved', amount: x },
      { kind: 'refund', account: 'merchant_refund_reserved', amount: neg },
      { kind: 'refund', account: 'world', amount: x },
    ]);
  });

  it('writes nothing for a payment that is declined or refused, and nothing for a refused refund', async () => {
    const m = await s.newMerchant({ name: 'Capped' });
    const key = m.keys.test_secret;
    await setMerchantLimits(db(), m.merchant.id, { perPayment: '1' });
    const intent = await newIntent(s, {}, 'test', key);
    const before = await entryCount();
    const declined = await s.call('test', 'POST', `/sandbox/payment-intents/${intent.id}/simulate`, {
      key,
      body: { outcome: 'success', payment_method: 'card' },
    });
    expect(declined.status).toBe(402);
    const refused = await s.call('test', 'POST', '/refunds', { key, body: { payment_intent: intent.id } });
    expect(refused.status).toBe(409);
    expect(await entryCount()).toBe(before);
  });

  it('keeps a lifecycle of overpayment, duplicate, dispute and refund balanced per asset', async () => {
    const m = await s.newMerchant({ name: 'Everything' });
    const key = m.keys.test_secret;
    const a = await newIntent(s, { amount: '10.00', currency: 'USD', settlement_currency: 'USDC' }, 'test', key);
    await simulate(s, a.id, 'overpaid', 'card', undefined, key);
    await simulate(s, a.id, 'duplicate', 'card', undefined, key);
    const b = await paidSandboxIntent(s, 'paypal', { amount: '10.00', currency: 'USD', settlement_currency: 'ETH' }, key);
    await simulate(s, b.id, 'dispute', 'paypal', undefined, key);
    const c = await paidSandboxIntent(s, 'card', { amount: '10.00', currency: 'USD', settlement_currency: 'SOL' }, key);
    expect((await s.call('test', 'POST', '/refunds', { key, body: { payment_intent: c.id } })).status).toBe(201);
    await simulate(s, c.id, 'duplicate', 'card', undefined, key);
    const kinds = new Set(
      (await db().selectFrom('ledger_entries').select('kind').where('merchant_id', '=', m.merchant.id).execute()).map((r) => r.kind),
    );
    expect([...kinds].sort()).toEqual([
      'dispute_freeze',
      'duplicate_payment',
      'overpayment_surplus',
      'payment',
      'refund',
      'refund_reserve',
      'settlement_released_for_refund',
    ]);
    const bal = await s.call('test', 'GET', '/balances', { key });
    expect(bal.json.data.map((e: any) => e.asset)).toEqual(['ETH', 'SOL', 'USDC']);
    expect(bal.json.data[0]).toMatchObject({ available: '0.000000000000000000', on_hold: b.pay_amount });
  });
});
