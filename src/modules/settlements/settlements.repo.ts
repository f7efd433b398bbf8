import { engineOf, forUpdate } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import { merchantNowSql } from '../../db/sandbox-offsets.js';
import type { SettlementRow } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment, MerchantScope as Scope } from '../../shared/scope.js';
import { scopedRows } from '../../db/scoped.js';

export async function insertSettlement(db: Q, row: SettlementRow): Promise<void> {
  await db.insertInto('settlements').values(row).execute();
}

export async function findSettlement(db: Q, scope: Scope, id: string): Promise<SettlementRow | undefined> {
  return scopedRows(db, 'settlements', scope).where('id', '=', id).executeTakeFirst();
}

export async function lockSettlementOfIntent(trx: Tx, intentId: string): Promise<SettlementRow | undefined> {
  return forUpdate(trx, trx.selectFrom('settlements').selectAll().where('payment_intent_id', '=', intentId)).executeTakeFirst();
}

export async function lockSettlement(trx: Tx, id: string): Promise<SettlementRow | undefined> {
  return forUpdate(trx, trx.selectFrom('settlements').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** Moves a settlement from one status to another; false when someone else moved it first. */
export async function moveSettlement(
  db: Q,
  row: SettlementRow,
  to: SettlementRow['status'],
  patch: { available_at: number | null; updated_at: number; status_before_dispute?: SettlementRow['status'] | null },
): Promise<boolean> {
  const res = await db
    .updateTable('settlements')
    .set({ status: to, ...patch })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listSettlements(
  db: Q,
  scope: Scope,
  filter: { paymentIntent?: string; status?: SettlementRow['status'] },
  cursor: Cursor | null,
  limit: number,
): Promise<SettlementRow[]> {
  let q = scopedRows(db, 'settlements', scope);
  if (filter.paymentIntent !== undefined) q = q.where('payment_intent_id', '=', filter.paymentIntent);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/**
 * Pending settlements whose `available_at` has come by their merchant's clock: real time for live, real
 * time plus the merchant's sandbox offset for sandbox.
 */
export async function findDueSettlementIds(
  db: Q,
  nowMs: number,
  opts: { merchantId?: string; environment?: Environment; limit: number },
): Promise<string[]> {
  let q = db
    .selectFrom('settlements as s')
    .leftJoin('sandbox_clocks as sc', (join) => join.onRef('sc.merchant_id', '=', 's.merchant_id').on('s.environment', '=', 'test'))
    .select('s.id')
    .where('s.status', '=', 'pending')
    .where('s.available_at', '<=', merchantNowSql(nowMs));
  if (opts.merchantId) q = q.where('s.merchant_id', '=', opts.merchantId);
  if (opts.environment) q = q.where('s.environment', '=', opts.environment);
  const rows = await q.orderBy('s.available_at').limit(opts.limit).execute();
  return rows.map((r) => r.id);
}
