// The reports' only SQL: paid payments by payment time and settlements by settlement time, newest first,
// keyset-paged on (time, id) so that the CSV export streams in batches with flat memory.
import { engineOf, keysetBefore } from '../../db/dialect.js';
import type { PaymentIntentRow, SettlementRow } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Q } from '../../db/transaction.js';

/** Inclusive start, exclusive end, in milliseconds. */
export interface Window {
  startMs: number;
  endMs: number;
}

export interface KeyCursor {
  at: number;
  id: string;
}

/** The payment report's fields: payment intent columns under their own names. */
export const PAYMENT_REPORT_COLUMNS = [
  'id',
  'created_at',
  'paid_at',
  'status',
  'amount',
  'currency',
  'settlement_currency',
  'pay_amount',
  'payment_method',
  'merchant_reference',
] as const;

export type PaymentReportRow = Pick<PaymentIntentRow, (typeof PAYMENT_REPORT_COLUMNS)[number]>;

export type SettlementReportRow = Pick<
  SettlementRow,
  'id' | 'payment_intent_id' | 'asset' | 'amount' | 'status' | 'settled_at' | 'available_at'
>;

function paidPayments(db: Q, scope: MerchantScope, w: Window) {
  return db
    .selectFrom('payment_intents')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('paid_at', '>=', w.startMs)
    .where('paid_at', '<', w.endMs);
}

export async function countPayments(db: Q, scope: MerchantScope, w: Window): Promise<number> {
  const r = await paidPayments(db, scope, w)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function paymentsPage(
  db: Q,
  scope: MerchantScope,
  w: Window,
  after: KeyCursor | null,
  limit: number,
): Promise<PaymentReportRow[]> {
  let q = paidPayments(db, scope, w).select([...PAYMENT_REPORT_COLUMNS]);
  if (after) q = q.where(keysetBefore(engineOf(db), 'paid_at', 'id', after.at, after.id));
  return q.orderBy('paid_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The cursor a `starting_after` names: a paid payment of this merchant and environment. */
export async function paymentCursor(db: Q, scope: MerchantScope, id: string): Promise<KeyCursor | null> {
  const r = await db
    .selectFrom('payment_intents')
    .select(['id', 'paid_at'])
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return r && r.paid_at !== null ? { at: r.paid_at, id: r.id } : null;
}

function settlementsIn(db: Q, scope: MerchantScope, w: Window) {
  return db
    .selectFrom('settlements')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('created_at', '>=', w.startMs)
    .where('created_at', '<', w.endMs);
}

export async function countSettlements(db: Q, scope: MerchantScope, w: Window): Promise<number> {
  const r = await settlementsIn(db, scope, w)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

// A settlement's created_at is its settled_at; the list index is on created_at.
export async function settlementsPage(
  db: Q,
  scope: MerchantScope,
  w: Window,
  after: KeyCursor | null,
  limit: number,
): Promise<SettlementReportRow[]> {
  let q = settlementsIn(db, scope, w).select(['id', 'payment_intent_id', 'asset', 'amount', 'status', 'settled_at', 'available_at']);
  if (after) q = q.where(keysetBefore(engineOf(db), 'created_at', 'id', after.at, after.id));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function settlementCursor(db: Q, scope: MerchantScope, id: string): Promise<KeyCursor | null> {
  const r = await db
    .selectFrom('settlements')
    .select(['id', 'created_at'])
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return r ? { at: r.created_at, id: r.id } : null;
}
