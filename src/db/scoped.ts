// The rows of one merchant's environment: every read of a merchant's records starts here, so that
// nothing of one merchant or environment is ever reachable from another.
import type { Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import type { MerchantScope } from '../shared/scope.js';
import type { DB } from './schema.js';
import type { Q } from './transaction.js';

/** The tables whose rows belong to a merchant and an environment (a row of no merchant is no merchant's). */
export type ScopedTable = {
  [K in keyof DB]: DB[K] extends { merchant_id: string | null; environment: string } ? K : never;
}[keyof DB];

/** `select * from <table> where merchant_id = ? and environment = ?`, to narrow further. */
export function scopedRows<T extends ScopedTable>(db: Q, table: T, scope: MerchantScope): SelectQueryBuilder<DB, T, Selectable<DB[T]>> {
  // Kysely cannot type a column reference of a generic table: the cast is the one place that says so.
  const q = db.selectFrom(table as ScopedTable).selectAll() as any;
  return q.where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
}

/** Writes `patch` to the row `id` of one merchant's environment; false when there is no such row. */
export async function updateScoped<T extends ScopedTable>(
  db: Q,
  table: T,
  scope: MerchantScope,
  id: string,
  patch: Updateable<DB[T]>,
): Promise<boolean> {
  // As in scopedRows: a generic table's columns cannot be typed, the cast says so once.
  const q = db.updateTable(table as ScopedTable).set(patch as never) as any;
  const res = await q
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
