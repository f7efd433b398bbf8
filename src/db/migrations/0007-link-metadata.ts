// Payment links take `metadata` like every other resource that does; the intents a link mints carry it.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payment_links')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_links').dropColumn('metadata').execute();
}
