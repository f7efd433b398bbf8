// Live reference prices: the last good price of each settlement asset in each fiat currency, with the time of
// the fetch that made it, so that every process and a restart see the same prices and know how old they are.
// The price is kept as the exact decimal text that GET /rates shows and quotes embed (no arithmetic runs on
// it in SQL, and numeric would pad it with zeros).
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reference_prices')
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('price', 'text', (c) => c.notNull())
    .addColumn('updated_at', bigintType(engineOf(db)), (c) => c.notNull())
    .addPrimaryKeyConstraint('reference_prices_pkey', ['asset', 'currency'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reference_prices').execute();
}
