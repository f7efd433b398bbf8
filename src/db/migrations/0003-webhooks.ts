// Webhook endpoints, deliveries and attempts (svix's model: one delivery per event and endpoint, every
// attempt recorded), and the event feed's commit-order column on events.
import { sql, type Kysely } from 'kysely';
import { bigintType, currentTxidDefault, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  const big = bigintType(engine);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addColumn('deleted_at', big)
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_merchant')
    .on('webhook_endpoints')
    .columns(['merchant_id', 'environment', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', big)
    .addColumn('locked_by', 'text')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_attempt_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addColumn('completed_at', big)
    .execute();
  // The worker's claim: pending rows by due time.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id', 'created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'status']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('started_at', big, (c) => c.notNull())
    .addColumn('finished_at', big)
    .addUniqueConstraint('webhook_attempts_number', ['delivery_id', 'attempt_number'])
    .execute();
  await db.schema.createIndex('webhook_attempts_event').on('webhook_attempts').columns(['event_id', 'started_at']).execute();

  // The event feed orders by (txid, seq) and, on PostgreSQL, shows only events of finished transactions.
  await db.schema
    .alterTable('events')
    .addColumn('txid', big, (c) => c.notNull().defaultTo(currentTxidDefault(engine)))
    .execute();
  await db.schema.createIndex('events_feed').on('events').columns(['merchant_id', 'environment', 'txid', 'seq']).execute();
  await db.schema.createIndex('events_created').on('events').columns(['merchant_id', 'environment', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_created').execute();
  await db.schema.dropIndex('events_feed').execute();
  await db.schema.alterTable('events').dropColumn('txid').execute();
  for (const t of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints']) await db.schema.dropTable(t).execute();
}
