// The console's search indexes hold only the payments a search can find (as 0024 did for the report's and
// the links' indexes). A payment without a customer email or phone, not yet paid by any method, or not
// paid at all, can never match `email IN (…)`, `phone IN (…)`, `payment_method = …` or `paid_at >= …`: each
// of those conditions implies that its value is not null, so both engines still read the index, now
// partial. A new intent has none of the four values unless the merchant gave a customer, so creating one
// writes four index entries fewer (of twelve on payment_intents): on SQLite the writing thread spent
// 65 µs of CPU per create before and 54 µs after (bench/README.md). test/write-path-indexes.test.ts
// explains the search queries.
import { sql, type Kysely } from 'kysely';
import { engineOf, jsonTextField } from '../dialect.js';

const PLAIN_COLUMNS = {
  payment_intents_method: { columns: ['merchant_id', 'environment', 'payment_method', 'created_at', 'id'], notNull: 'payment_method' },
  payment_intents_volume: { columns: ['merchant_id', 'environment', 'paid_at', 'status', 'currency', 'amount'], notNull: 'paid_at' },
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  for (const field of ['email', 'phone']) {
    const name = `payment_intents_customer_${field}`;
    const value = jsonTextField(engine, 'customer', field);
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('payment_intents')
      .expression(sql`merchant_id, environment, ${value}, created_at, id`)
      .where(value, 'is not', null)
      .execute();
  }
  for (const [name, { columns, notNull }] of Object.entries(PLAIN_COLUMNS)) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('payment_intents')
      .columns([...columns])
      .where(sql.ref(notNull), 'is not', null)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const engine = engineOf(db);
  for (const field of ['email', 'phone']) {
    const name = `payment_intents_customer_${field}`;
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('payment_intents')
      .expression(sql`merchant_id, environment, ${jsonTextField(engine, 'customer', field)}, created_at, id`)
      .execute();
  }
  for (const [name, { columns }] of Object.entries(PLAIN_COLUMNS)) {
    await db.schema.dropIndex(name).execute();
    await db.schema
      .createIndex(name)
      .on('payment_intents')
      .columns([...columns])
      .execute();
  }
}
