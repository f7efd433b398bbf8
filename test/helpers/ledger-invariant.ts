// Helpers of the money tests (ledger, settlements, balances, refunds, reports): paying intents in
// either environment, and the ledger invariant checked after every scenario.
import { expect } from 'vitest';
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { PaymentOutcome, PaymentMethod } from '../../src/modules/payment-intents/index.js';
import type { TestServer } from './harness.js';

export interface IntentBody {
  amount?: string;
  currency?: string;
  settlement_currency?: string;
  payment_methods?: string[];
  merchant_reference?: string;
}

/** Creates an intent through the API with the default merchant's key of that environment (or `key`). */
export async function newIntent(s: TestServer, body: IntentBody = {}, env: 'test' | 'live' = 'test', key?: string): Promise<any> {
  const k = key ?? (env === 'test' ? s.merchant.keys.test_secret : s.merchant.keys.live_secret!);
  const r = await s.call(env, 'POST', '/payment-intents', { key: k, body: { amount: '1500.00', currency: 'KES', ...body } });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

/** Drives a sandbox payment outcome through the simulate endpoint. */
export async function simulate(s: TestServer, id: string, outcome: string, method = 'card', amount?: string, key?: string): Promise<any> {
  const r = await s.call('test', 'POST', `/sandbox/payment-intents/${id}/simulate`, {
    key: key ?? s.merchant.keys.test_secret,
    body: { outcome, payment_method: method, ...(amount ? { amount } : {}) },
  });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** A paid sandbox intent. */
export async function paidSandboxIntent(s: TestServer, method = 'card', body: IntentBody = {}, key?: string): Promise<any> {
  const intent = await newIntent(s, body, 'test', key);
  const paid = await simulate(s, intent.id, 'success', method, undefined, key);
  expect(paid.status).toBe('paid');
  return paid;
}

/** A live payment outcome, applied as a live rail's callback would (there is no live simulate endpoint). */
export async function applyLive(
  s: TestServer,
  intentId: string,
  method: PaymentMethod,
  outcome: PaymentOutcome = 'success',
  merchantId?: string,
) {
  return s.running.services.payments.apply(
    { merchantId: merchantId ?? s.merchant.merchant.id, environment: 'live' },
    { intentId, method, outcome },
  );
}

export async function advanceClock(s: TestServer, seconds: number, key?: string): Promise<void> {
  const r = await s.call('test', 'POST', '/sandbox/clock/advance', { key: key ?? s.merchant.keys.test_secret, body: { seconds } });
  expect(r.status, r.text).toBe(200);
}

export const DAY = 86_400;

/** Events recorded for an intent, oldest first (payloads). */
export async function eventsOf(db: Kysely<DB>, intentId: string, type?: string): Promise<any[]> {
  let q = db.selectFrom('events').select(['payload']).where('payment_intent_id', '=', intentId);
  if (type) q = q.where('type', '=', type);
  const rows = await q.orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.payload));
}

const sum = (xs: Array<string | Decimal>) => xs.reduce<Decimal>((a, x) => a.plus(x), new Decimal(0));

/**
 * The ledger invariant, over the whole database: every movement sums to zero in its asset, so every
 * asset sums to zero; the merchant accounts agree with the records they stand for (pending and frozen
 * settlements but those of lost disputes, requested and pending refunds, payouts not yet final) and never go below zero; every paid or refunded intent has exactly one
 * settlement, whose payment leg is its amount.
 */
export async function expectLedgerInvariant(db: Kysely<DB>): Promise<void> {
  const entries = await db.selectFrom('ledger_entries').selectAll().execute();
  const byMovement = new Map<string, Decimal>();
  const byAsset = new Map<string, Decimal>();
  const byAccount = new Map<string, Decimal>();
  for (const e of entries) {
    const mk = `${e.movement_id}/${e.asset}`;
    byMovement.set(mk, (byMovement.get(mk) ?? new Decimal(0)).plus(e.amount));
    const ak = `${e.merchant_id}/${e.environment}/${e.asset}`;
    byAsset.set(ak, (byAsset.get(ak) ?? new Decimal(0)).plus(e.amount));
    const acc = `${ak}/${e.account}`;
    byAccount.set(acc, (byAccount.get(acc) ?? new Decimal(0)).plus(e.amount));
  }
  for (const [k, v] of byMovement) expect(v.isZero(), `movement ${k} sums to ${v.toFixed()}`).toBe(true);
  for (const [k, v] of byAsset) expect(v.isZero(), `asset ${k} sums to ${v.toFixed()}`).toBe(true);
  for (const [k, v] of byAccount) {
    if (!k.endsWith('/world')) expect(v.isNegative(), `account ${k} is ${v.toFixed()}`).toBe(false);
  }

  const settlements = await db.selectFrom('settlements').selectAll().execute();
  // A lost dispute's settlement stays frozen, its amount gone from the balance.
  const disputed = await db.selectFrom('payment_intents').select(['id', 'dispute']).where('dispute', 'is not', null).execute();
  const lost = new Set(disputed.filter((i) => JSON.parse(i.dispute!).status === 'lost').map((i) => i.id));
  const refunds = await db.selectFrom('refunds').selectAll().execute();
  const expected = new Map<string, Decimal>();
  const add = (k: string, v: string) => expected.set(k, (expected.get(k) ?? new Decimal(0)).plus(v));
  for (const st of settlements) {
    const base = `${st.merchant_id}/${st.environment}/${st.asset}`;
    if (st.status === 'pending') add(`${base}/merchant_pending`, st.amount);
    if (st.status === 'frozen' && !lost.has(st.payment_intent_id)) add(`${base}/merchant_frozen`, st.amount);
  }
  for (const r of refunds)
    if (r.status === 'requested' || r.status === 'pending')
      add(`${r.merchant_id}/${r.environment}/${r.asset}/merchant_refund_reserved`, r.asset_amount);
  const payouts = await db.selectFrom('payouts').selectAll().where('purpose', '=', 'payout').execute();
  for (const p of payouts)
    if (p.status === 'requested' || p.status === 'sent') add(`${p.merchant_id}/${p.environment}/${p.asset}/merchant_payout_held`, p.amount);
  for (const account of ['merchant_pending', 'merchant_frozen', 'merchant_refund_reserved', 'merchant_payout_held']) {
    const keys = new Set([...byAccount.keys(), ...expected.keys()].filter((k) => k.endsWith(`/${account}`)));
    for (const k of keys) {
      expect((byAccount.get(k) ?? new Decimal(0)).toFixed(), `account ${k} against its records`).toBe(
        (expected.get(k) ?? new Decimal(0)).toFixed(),
      );
    }
  }

  const paid = await db.selectFrom('payment_intents').select(['id', 'pay_amount']).where('status', 'in', ['paid', 'refunded']).execute();
  const byIntent = new Map(settlements.map((st) => [st.payment_intent_id, st]));
  expect(settlements.length).toBe(new Set(settlements.map((st) => st.payment_intent_id)).size);
  for (const pi of paid) {
    const st = byIntent.get(pi.id);
    expect(st, `settlement of ${pi.id}`).toBeDefined();
    expect(st!.amount).toBe(pi.pay_amount);
    const legs = entries.filter((e) => e.settlement_id === st!.id && e.kind === 'payment' && e.account !== 'world');
    expect(sum(legs.map((l) => l.amount)).toFixed(), `payment leg of ${st!.id}`).toBe(new Decimal(pi.pay_amount).toFixed());
  }
  expect(settlements.length).toBe(paid.length);
}

/**
 * The payers' ledger invariant: every movement sums to zero in its asset; no payer's balance or held amount
 * is below zero; what is held for withdrawals is exactly the amount of each payer's withdrawals not yet
 * final (requested or sent).
 */
export async function expectPayerLedgerInvariant(db: Kysely<DB>): Promise<void> {
  const legs = await db.selectFrom('payer_ledger_entries').selectAll().execute();
  const byMovement = new Map<string, Decimal>();
  const byAccount = new Map<string, Decimal>();
  const add = (m: Map<string, Decimal>, k: string, v: string) => m.set(k, (m.get(k) ?? new Decimal(0)).plus(v));
  for (const l of legs) {
    add(byMovement, `${l.movement_id}/${l.asset}`, l.amount);
    add(byAccount, `${l.payer_id}/${l.environment}/${l.asset}/${l.account}`, l.amount);
  }
  for (const [k, v] of byMovement) expect(v.isZero(), `payer movement ${k} sums to ${v.toFixed()}`).toBe(true);
  for (const [k, v] of byAccount) if (!k.endsWith('/world')) expect(v.isNegative(), `payer account ${k} is ${v.toFixed()}`).toBe(false);
  const open = await db
    .selectFrom('payouts')
    .selectAll()
    .where('purpose', '=', 'payer_withdrawal')
    .where('status', 'in', ['requested', 'sent'])
    .execute();
  const expected = new Map<string, Decimal>();
  for (const w of open) add(expected, `${w.payer_id}/${w.environment}/${w.asset}/payer_payout_held`, w.amount);
  const keys = new Set([...byAccount.keys(), ...expected.keys()].filter((k) => k.endsWith('/payer_payout_held')));
  for (const k of keys) {
    expect((byAccount.get(k) ?? new Decimal(0)).toFixed(), `held ${k} against open withdrawals`).toBe(
      (expected.get(k) ?? new Decimal(0)).toFixed(),
    );
  }
}
