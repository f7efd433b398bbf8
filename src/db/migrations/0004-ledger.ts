// Money after payment: the double-entry ledger, settlements and refunds.
import { sql, type Kysely } from 'kysely';
import { addSerialPrimaryKey, bigintType, decimalType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);
  const dec = decimalType(engine);

  // One row per leg of a movement. The legs of one movement share `movement_id` and sum to zero per asset.
  let entries = db.schema.createTable('ledger_entries');
  entries = addSerialPrimaryKey(entries, engine, 'seq');
  await entries
    .addColumn('movement_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('amount', dec, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text')
    .addColumn('settlement_id', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ledger_entries_balance')
    .on('ledger_entries')
    .columns(['merchant_id', 'environment', 'asset', 'account'])
    .execute();
  await db.schema.createIndex('ledger_entries_movement').on('ledger_entries').column('movement_id').execute();

  await db.schema
    .createTable('settlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().unique().references('payment_intents.id'))
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('available_at', big)
    .addColumn('settled_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('settlements_list').on('settlements').columns(['merchant_id', 'environment', 'created_at', 'id']).execute();
  await db.schema.createIndex('settlements_maturing').on('settlements').columns(['status', 'available_at']).execute();

  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().references('payment_intents.id'))
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('asset_amount', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('return_address', 'text')
    .addColumn('rail_reference', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_list').on('refunds').columns(['merchant_id', 'environment', 'created_at', 'id']).execute();
  // At most one refund per payment that has not failed: the database holds the rule under any concurrency.
  await db.schema
    .createIndex('refunds_one_per_payment')
    .on('refunds')
    .column('payment_intent_id')
    .unique()
    .where(sql<boolean>`status <> 'failed'`)
    .execute();

  // The payments report reads paid intents by payment time.
  await db.schema
    .createIndex('payment_intents_paid')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'paid_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_intents_paid').execute();
  for (const t of ['refunds', 'settlements', 'ledger_entries']) {
    await db.schema.dropTable(t).execute();
  }
}
