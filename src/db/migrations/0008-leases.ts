// Leases: work that must happen once across every process sharing the database (one chain watcher per
// network, say) is held by one process at a time, until it lets go or its lease runs out (src/db/leases.ts).
import type { Kysely } from 'kysely';
import { bigintType, engineOf } from '../dialect.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigintType(engineOf(db)), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('leases').execute();
}
