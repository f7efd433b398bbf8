// The only SQL of the events table. Their webhook deliveries are the webhooks module's (its delivery
// queue, webhooks/delivery-queue.repo.ts), written in the same transaction.
import type { CompiledQuery, InsertQueryBuilder, InsertResult } from 'kysely';
import { insertStatement } from '../../db/prepared.js';
import type { DB, EventsTable } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';

export function insertEventsStatement(db: Q, rows: ReadonlyArray<Omit<EventsTable, 'seq' | 'txid'>>): CompiledQuery {
  return insertStatement(db, 'events', rows);
}

/** The events' INSERT as a query (PostgreSQL writes it with their deliveries in one statement). */
export function insertEventsQuery(
  db: Q,
  rows: ReadonlyArray<Omit<EventsTable, 'seq' | 'txid'>>,
): InsertQueryBuilder<DB, 'events', InsertResult> {
  return db.insertInto('events').values(rows as Array<Omit<EventsTable, 'seq' | 'txid'>>);
}
