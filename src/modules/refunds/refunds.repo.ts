import { engineOf, forUpdate } from '../../db/dialect.js';
import type { RefundRow } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Q, Tx } from '../../db/transaction.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import { scopedRows } from '../../db/scoped.js';

export async function insertRefund(db: Q, row: RefundRow): Promise<void> {
  await db.insertInto('refunds').values(row).execute();
}

export async function findRefund(db: Q, scope: MerchantScope, id: string): Promise<RefundRow | undefined> {
  return scopedRows(db, 'refunds', scope).where('id', '=', id).executeTakeFirst();
}

/** The refund of a payment that is requested or succeeded (at most one exists). */
export async function findActiveRefundOfIntent(db: Q, intentId: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('payment_intent_id', '=', intentId).where('status', '<>', 'failed').executeTakeFirst();
}

/** Any merchant's refund by id (the operator's review). */
export async function lockRefundById(trx: Tx, id: string): Promise<RefundRow | undefined> {
  return forUpdate(trx, trx.selectFrom('refunds').selectAll().where('id', '=', id)).executeTakeFirst();
}

export async function moveRefund(
  db: Q,
  row: RefundRow,
  to: RefundRow['status'],
  patch: { updated_at: number; rail_reference?: string | null; failure_reason?: string | null; resolve_at?: number | null },
): Promise<boolean> {
  const res = await db
    .updateTable('refunds')
    .set({ status: to, ...patch })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listRefunds(
  db: Q,
  scope: MerchantScope,
  filter: { paymentIntent?: string },
  cursor: Cursor | null,
  limit: number,
): Promise<RefundRow[]> {
  let q = scopedRows(db, 'refunds', scope);
  if (filter.paymentIntent !== undefined) q = q.where('payment_intent_id', '=', filter.paymentIntent);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/** Pending refunds whose provider should be asked about them by `now`. */
export async function duePendingRefunds(db: Q, now: number, limit: number): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('resolve_at', 'is not', null)
    .where('resolve_at', '<=', now)
    .orderBy('resolve_at')
    .limit(limit)
    .execute();
}

/** Claims the next question about a pending refund (as rail payments' questions are claimed); true for the winner. */
export async function claimRefundQuestion(db: Q, id: string, dueAt: number, nextAt: number, at: number): Promise<boolean> {
  const res = await db
    .updateTable('refunds')
    .set((eb) => ({ resolve_at: nextAt, queries: eb('queries', '+', 1), updated_at: at }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('resolve_at', '=', dueAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Keeps the provider's reference of a pending refund; makes it due at `dueAt`. */
export async function setRefundReference(db: Q, id: string, reference: string, dueAt: number | null, at: number): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ rail_reference: reference, ...(dueAt === null ? {} : { resolve_at: dueAt }), updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** The pending refund a provider's reference names (its webhook). */
export async function findPendingByReference(db: Q, method: string, reference: string): Promise<RefundRow | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('payment_method', '=', method)
    .where('rail_reference', '=', reference)
    .executeTakeFirst();
}

/** The pending refund of a payment (a provider's webhook that names the payment, not the refund). */
export async function findPendingOfIntent(db: Q, intentId: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('payment_intent_id', '=', intentId).where('status', '=', 'pending').executeTakeFirst();
}

/** Any merchant's refund by id (the operator's decisions). */
export async function findRefundById(db: Q, id: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}
