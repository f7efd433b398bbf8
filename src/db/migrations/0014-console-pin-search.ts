// The merchant's transaction PIN: the owner's second secret for balance refunds in the
// console, stored hashed (scrypt), with the count of consecutive wrong PINs and the lock they lead to; and
// the indexes the console reads: payments searched by merchant_reference, an endpoint's latest deliveries.
import { type Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));
  await db.schema.alterTable('merchants').addColumn('pin_hash', 'text').execute();
  await db.schema
    .alterTable('merchants')
    .addColumn('pin_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('merchants').addColumn('pin_locked_until', big).execute();
  await db.schema
    .createIndex('payment_intents_reference')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'merchant_reference', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_recent')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_recent').execute();
  await db.schema.dropIndex('payment_intents_reference').execute();
  for (const c of ['pin_locked_until', 'pin_failures', 'pin_hash']) await db.schema.alterTable('merchants').dropColumn(c).execute();
}
