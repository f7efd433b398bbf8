import { engineOf } from '../../db/dialect.js';
import type { Insertable, Updateable } from 'kysely';
import type { CustomerRow, CustomersTable } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Q } from '../../db/transaction.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import { scopedRows, updateScoped } from '../../db/scoped.js';

export async function insertCustomer(db: Q, row: Insertable<CustomersTable>): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

export async function findCustomer(db: Q, scope: MerchantScope, id: string): Promise<CustomerRow | undefined> {
  return scopedRows(db, 'customers', scope).where('id', '=', id).executeTakeFirst();
}

export async function listCustomers(db: Q, scope: MerchantScope, cursor: Cursor | null, limit: number): Promise<CustomerRow[]> {
  const base = scopedRows(db, 'customers', scope);
  return keysetPage(engineOf(db), base, cursor, limit).execute();
}

/** Writes a patch to one merchant's customer; false when there is no such customer. */
export function updateCustomer(db: Q, scope: MerchantScope, id: string, patch: Updateable<CustomersTable>): Promise<boolean> {
  return updateScoped(db, 'customers', scope, id, patch);
}
