// The hosted checkout and payment links: links, rail payments that finish later, external-wallet amount
// allocations (unique among open ones) and on-chain deposits, credited or kept as unmatched.
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const big = bigintType(engineOf(db));

  await db.schema
    .createTable('payment_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('amount', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('settlement_currency', 'text', (c) => c.notNull())
    .addColumn('max_payments', 'integer')
    .addColumn('expires_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_links_merchant')
    .on('payment_links')
    .columns(['merchant_id', 'environment', 'created_at', 'id'])
    .execute();
  // paid_count: paid (and later refunded) intents of a link.
  await db.schema.createIndex('payment_intents_link').on('payment_intents').columns(['payment_link', 'status']).execute();

  await db.schema
    .createTable('rail_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().references('payment_intents.id'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('resolve_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rail_payments_intent').on('rail_payments').columns(['payment_intent_id', 'created_at']).execute();

  await walletAllocationsTable(db, 'wallet_allocations', { ownersRequired: true }).execute();
  await walletAllocationIndexes(db);

  await db.schema
    .createTable('wallet_deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('payment_intent_id', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  // The key of the checkout pages' anti-forgery tokens: one per database, so every process sharing the
  // database accepts the tokens of the others.
  await db.schema
    .createTable('checkout_secrets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('wallet_deposits_list')
    .on('wallet_deposits')
    .columns(['merchant_id', 'environment', 'status', 'created_at', 'id'])
    .execute();
}

/**
 * The wallet_allocations table as this migration makes it; 0026 makes it again on SQLite (which cannot drop a
 * NOT NULL) under another name with its owners optional, since an allocation may then be a payer's top-up.
 */
export function walletAllocationsTable(db: Kysely<any>, name: string, opts: { ownersRequired: boolean }) {
  const big = bigintType(engineOf(db));
  const owner = (table: string) => (c: ColumnDefinitionBuilder) => (opts.ownersRequired ? c.notNull() : c).references(`${table}.id`);
  return db.schema
    .createTable(name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', owner('merchants'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', owner('payment_intents'))
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('expires_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull());
}

/** Its indexes: the open amounts of an address are unique; an intent's allocation per network is found at once. */
export async function walletAllocationIndexes(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('wallet_allocations_open_amount')
    .unique()
    .on('wallet_allocations')
    .columns(['environment', 'network', 'asset', 'address', 'amount'])
    .where(sql.ref('state'), '=', 'open')
    .execute();
  await db.schema.createIndex('wallet_allocations_intent').on('wallet_allocations').columns(['payment_intent_id', 'network']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_intents_link').execute();
  for (const t of ['checkout_secrets', 'wallet_deposits', 'wallet_allocations', 'rail_payments', 'payment_links']) {
    await db.schema.dropTable(t).execute();
  }
}
