// The pending deliveries of each endpoint by due time: the worker's claim walks the endpoints that have
// pending deliveries (one index seek each) and takes each one's oldest due ones, so a claim costs as many
// seeks as there are such endpoints, however deep one endpoint's backlog grows.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_pending_by_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_pending_by_endpoint').execute();
}
