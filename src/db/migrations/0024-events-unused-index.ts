// The events table keeps only the indexes its queries use. events_merchant (merchant, environment, seq)
// served no query: the event feed reads events_feed (merchant, environment, txid, seq; txid is 0 on
// SQLite, so it is the same order there), the webhook event list events_created, an intent's timeline
// events_intent, and a look-up by id the id's own unique index. Every event insert wrote it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_merchant').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'environment', 'seq']).execute();
}
