// The deliveries under way (claimed by a worker, their attempt not yet recorded), by endpoint: the claim
// counts them so that one endpoint never has more than a few attempts in flight, across every process. A
// delivery holds a claim only while its attempt runs, so the index stays as small as the attempts in flight.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_in_flight')
    .on('webhook_deliveries')
    .column('endpoint_id')
    .where(sql.ref('locked_by'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_in_flight').execute();
}
