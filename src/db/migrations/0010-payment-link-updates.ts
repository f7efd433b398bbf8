// Payment links that can be deactivated, and that mint an intent when the customer acts rather than on every
// GET: `active` (1 or 0), and one row per visit naming the intent that visit minted, so
// that a double-submitted form or a back-and-forward mints once.
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payment_links')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .createTable('payment_link_visits')
    .addColumn('link_id', 'text', (c) => c.notNull())
    .addColumn('visit', 'text', (c) => c.notNull())
    .addColumn('payment_intent_id', 'text', (c) => c.notNull())
    .addColumn('created_at', bigintType(engineOf(db)), (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_link_visits_pk', ['link_id', 'visit'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_link_visits').execute();
  await db.schema.alterTable('payment_links').dropColumn('active').execute();
}
