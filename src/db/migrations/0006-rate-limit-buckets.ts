// The table of rate-limiter-flexible's PostgreSQL store (the per-key request budgets shared by every
// process). Created here, once, rather than by the limiter at start-up, where two processes starting
// together race on CREATE TABLE IF NOT EXISTS. SQLite deployments keep budgets in memory and never use it.
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_limit_buckets')
    .ifNotExists()
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', bigintType(engineOf(db)))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_buckets').ifExists().execute();
}
