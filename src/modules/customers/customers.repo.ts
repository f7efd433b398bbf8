import { engineOf } from '../../db/dialect.js';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { CustomerRow, CustomersTable, DB, MerchantScope } from '../../db/schema.js';
import { keysetPage, type Cursor } from '../../http/pagination.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The merchant and environment every query here is confined to. */
export type Scope = MerchantScope;

export async function insertCustomer(db: Q, row: Insertable<CustomersTable>): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

export async function findCustomer(db: Q, scope: Scope, id: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listCustomers(db: Q, scope: Scope, cursor: Cursor | null, limit: number): Promise<CustomerRow[]> {
  const base = db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment);
  return keysetPage(engineOf(db), base, cursor, limit).execute();
}
