// The console for the shop owner: the merchant's time zone (an IANA name; days and times in the console
// are the merchant's), the console users' single-use recovery codes (SHA-256 of each, deleted when used),
// and the indexes the payment search and the home page's volume read at 100,000 payments: an intent's
// customer's email and phone (kept in its JSON) and exact amount, the id and reference prefixes (PostgreSQL
// needs pattern-ordered indexes for a prefix LIKE; SQLite's GLOB uses the ordinary ones), the method, and
// paid payments by time with their currency and amount.
import { sql, type Kysely } from 'kysely';
import { bigintType, engineOf, jsonTextField, prefixIndexColumn } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  await db.schema
    .alterTable('merchants')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('Africa/Nairobi'))
    .execute();
  await db.schema
    .createTable('console_recovery_codes')
    .addColumn('user_id', 'text', (c) => c.notNull().references('console_users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', bigintType(engine), (c) => c.notNull())
    .addPrimaryKeyConstraint('console_recovery_codes_pk', ['user_id', 'code_hash'])
    .execute();
  const index = (name: string, table: string, columns: string[]) => db.schema.createIndex(name).on(table).columns(columns).execute();
  // The intent keeps its customer as JSON ({id?, email, phone}): its email and phone are indexed as text,
  // then by time, so that one search reads its matches already newest first (without created_at, SQLite
  // preferred walking the time index for the order and tested every payment's JSON).
  for (const field of ['email', 'phone']) {
    await db.schema
      .createIndex(`payment_intents_customer_${field}`)
      .on('payment_intents')
      .expression(sql`merchant_id, environment, ${jsonTextField(engine, 'customer', field)}, created_at, id`)
      .execute();
  }
  await index('payment_intents_amount', 'payment_intents', ['merchant_id', 'environment', 'amount', 'created_at']);
  await index('payment_intents_method', 'payment_intents', ['merchant_id', 'environment', 'payment_method', 'created_at', 'id']);
  await index('payment_intents_volume', 'payment_intents', ['merchant_id', 'environment', 'paid_at', 'status', 'currency', 'amount']);
  const prefixed = prefixIndexColumn(engine);
  if (prefixed) {
    await db.schema.createIndex('payment_intents_id_prefix').on('payment_intents').expression(prefixed('id')).execute();
    await db.schema
      .createIndex('payment_intents_reference_prefix')
      .on('payment_intents')
      .expression(prefixed('merchant_reference'))
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'payment_intents_reference_prefix',
    'payment_intents_id_prefix',
    'payment_intents_customer_phone',
    'payment_intents_customer_email',
    'payment_intents_volume',
    'payment_intents_method',
    'payment_intents_amount',
  ]) {
    await db.schema.dropIndex(name).ifExists().execute();
  }
  await db.schema.dropTable('console_recovery_codes').execute();
  await db.schema.alterTable('merchants').dropColumn('time_zone').execute();
}
