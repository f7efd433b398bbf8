// The only SQL of rail payments: payments a rail started that finish later (STK push, PayPal approval).
import type { RailPaymentRow, RailPaymentState } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';
import { scopedRows } from '../../db/scoped.js';

export async function insertRailPayment(db: Q, row: RailPaymentRow): Promise<void> {
  await db.insertInto('rail_payments').values(row).execute();
}

export async function findRailPayment(db: Q, scope: MerchantScope, id: string): Promise<RailPaymentRow | undefined> {
  return scopedRows(db, 'rail_payments', scope).where('id', '=', id).executeTakeFirst();
}

/** The latest rail payment of an intent (what the checkout shows as the current attempt). */
export async function latestRailPayment(db: Q, intentId: string): Promise<RailPaymentRow | undefined> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('payment_intent_id', '=', intentId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Moves a rail payment from one state to another; true for the one caller that won the move. */
export async function moveRailPayment(
  db: Q,
  id: string,
  from: RailPaymentState,
  to: RailPaymentState,
  at: number,
  failureCode: string | null = null,
): Promise<boolean> {
  const res = await db
    .updateTable('rail_payments')
    .set({ state: to, failure_code: failureCode, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Pending payments whose provider should have answered by `now` (a lost callback, a process that died). */
export async function duePendingRailPayments(db: Q, now: number, limit: number): Promise<RailPaymentRow[]> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('state', '=', 'pending')
    .where('resolve_at', 'is not', null)
    .where('resolve_at', '<=', now)
    .orderBy('resolve_at')
    .limit(limit)
    .execute();
}
