// Indexes a new payment intent and its creation event write: only those a query reads, and only for the
// rows a query can find.
// - events_merchant (merchant, environment, seq) served no query: the event feed reads events_feed
//   (merchant, environment, txid, seq; txid is 0 on SQLite, so it is the same order there), the webhook
//   event list events_created, an intent's timeline events_intent, a look-up by id the id's unique index.
// - payment_intents_paid is read only with `paid_at >= …` (the payments report) and payment_intents_link
//   only with `payment_link = …` or `IN (…)` (a link's paid count): both conditions imply the column is
//   not null, so both engines use the index when it holds only such rows. A new intent has neither, so
//   creating one no longer writes either index.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_merchant').ifExists().execute();
  await db.schema.dropIndex('payment_intents_paid').execute();
  await db.schema
    .createIndex('payment_intents_paid')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'paid_at', 'id'])
    .where(sql.ref('paid_at'), 'is not', null)
    .execute();
  await db.schema.dropIndex('payment_intents_link').execute();
  await db.schema
    .createIndex('payment_intents_link')
    .on('payment_intents')
    .columns(['payment_link', 'status'])
    .where(sql.ref('payment_link'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('payment_intents_link').execute();
  await db.schema.createIndex('payment_intents_link').on('payment_intents').columns(['payment_link', 'status']).execute();
  await db.schema.dropIndex('payment_intents_paid').execute();
  await db.schema
    .createIndex('payment_intents_paid')
    .on('payment_intents')
    .columns(['merchant_id', 'environment', 'paid_at', 'id'])
    .execute();
  await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'environment', 'seq']).execute();
}
