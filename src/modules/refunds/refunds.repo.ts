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
  patch: { updated_at: number; rail_reference?: string | null },
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
