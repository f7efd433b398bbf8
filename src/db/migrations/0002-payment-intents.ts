import type { Kysely } from 'kysely';
import { addSerialPrimaryKey, bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);

  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source_currency', 'text', (c) => c.notNull())
    .addColumn('target_asset', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('source_amount', 'text', (c) => c.notNull())
    .addColumn('target_amount', 'text', (c) => c.notNull())
    .addColumn('expires_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quotes_merchant').on('quotes').columns(['merchant_id', 'environment', 'created_at']).execute();

  await db.schema
    .createTable('payment_intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('settlement_currency', 'text', (c) => c.notNull())
    .addColumn('pay_amount', 'text', (c) => c.notNull())
    .addColumn('rate', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('merchant_reference', 'text')
    .addColumn('payment_methods', 'text', (c) => c.notNull())
    .addColumn('customer', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('return_url', 'text')
    .addColumn('payment_link', 'text')
    .addColumn('payment_method', 'text')
    .addColumn('amount_received', 'text', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('expires_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('paid_at', big)
    .addColumn('cancelled_at', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_intents_list')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('payment_intents_status')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'status', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('payment_intents_expiry').on('payment_intents').columns(['status', 'expires_at']).execute();

  await db.schema
    .createTable('payment_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().references('payment_intents.id'))
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('usd_value', 'text', (c) => c.notNull())
    .addColumn('counts_to_caps', 'integer', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payment_attempts_intent').on('payment_attempts').columns(['payment_intent_id', 'created_at']).execute();
  await db.schema
    .createIndex('payment_attempts_caps')
    .on('payment_attempts')
    .columns(['merchant_id', 'environment', 'counts_to_caps', 'created_at'])
    .execute();

  let events = db.schema.createTable('events');
  events = addSerialPrimaryKey(events, engine, 'seq');
  await events
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('api_version', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'environment', 'seq']).execute();
  await db.schema.createIndex('events_intent').on('events').columns(['payment_intent_id', 'seq']).execute();

  await db.schema
    .createTable('sandbox_clocks')
    .addColumn('merchant_id', 'text', (c) => c.primaryKey().references('merchants.id'))
    .addColumn('offset_ms', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['sandbox_clocks', 'events', 'payment_attempts', 'payment_intents', 'quotes']) {
    await db.schema.dropTable(t).execute();
  }
}
