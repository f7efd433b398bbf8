import { engineOf } from '../../db/dialect.js';
import type { Insertable } from 'kysely';
import type { CustomerRow, CustomersTable } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Q } from '../../db/transaction.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';



export async function insertCustomer(db: Q, row: Insertable<CustomersTable>): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

export async function findCustomer(db: Q, scope: MerchantScope, id: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listCustomers(db: Q, scope: MerchantScope, cursor: Cursor | null, limit: number): Promise<CustomerRow[]> {
  const base = db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment);
  return keysetPage(engineOf(db), base, cursor, limit).execute();
}
