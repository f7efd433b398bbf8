// Paid payments by payment time, newest first, keyset-paged on (paid_at, id): the rows of the payments
// report, read in pages so that its CSV export streams with flat memory.
import { engineOf, keysetBefore } from '../../db/dialect.js';
import type { KeyCursor, Window } from '../../db/pagination.js';
import type { PaymentIntentRow } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';

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

function paidPayments(db: Q, scope: MerchantScope, w: Window) {
  return db
    .selectFrom('payment_intents')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('paid_at', '>=', w.startMs)
    .where('paid_at', '<', w.endMs);
}

export async function countPaidPayments(db: Q, scope: MerchantScope, w: Window): Promise<number> {
  const r = await paidPayments(db, scope, w)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function paidPaymentsPage(
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
export async function paidPaymentCursor(db: Q, scope: MerchantScope, id: string): Promise<KeyCursor | null> {
  const r = await db
    .selectFrom('payment_intents')
    .select(['id', 'paid_at'])
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return r && r.paid_at !== null ? { at: r.paid_at, id: r.id } : null;
}
