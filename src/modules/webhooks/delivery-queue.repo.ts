// The delivery queue's writes: one webhook delivery per event and subscribed endpoint (enabled or paused),
// written in the transaction that records the events, whose INSERT signals the delivery workers at commit.
import { sql, type CompiledQuery, type InsertQueryBuilder, type InsertResult, type Kysely } from 'kysely';
import { engineOf, insertNotifying, insertNotifyingAfter, jsonListAdmits, randomHexSql } from '../../db/dialect.js';
import { signallingInsert, type SignallingInsert } from '../../db/notify.js';
import { prepared } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { Q, WriteBatch } from '../../db/transaction.js';
import { systemClock } from '../../shared/clock.js';
import { ID_PREFIXES, timeBase62 } from '../../shared/ids.js';

/** The channel the delivery workers listen on: signalled when due deliveries are written. */
export const DELIVERY_CHANNEL = 'cowrie_webhook_deliveries';

/** The source of the events a delivery statement reads: the events table, or (PostgreSQL) a CTE of new events. */
type EventSource = 'events' | 'new_events';

/** The deliveries' INSERT ... SELECT over `source` (events whose id is in `eventIds`, or every new event). */
function deliveriesInsert(db: Q, source: EventSource, eventIds: readonly string[] | null, now: number, idPrefix: string) {
  const engine = engineOf(db);
  // The CTE of new events is not a table of DB: its columns are the events table's.
  const from = (db as unknown as Kysely<DB & { new_events: DB['events'] }>).selectFrom(`${source} as e`);
  let select = from
    .innerJoin('webhook_endpoints as w', (join) =>
      join.onRef('w.merchant_id', '=', 'e.merchant_id').onRef('w.environment', '=', 'e.environment'),
    )
    .select([
      sql<string>`${idPrefix} || ${randomHexSql(engine)}`.as('id'),
      'e.id as event_id',
      'w.id as endpoint_id',
      'e.merchant_id',
      'e.environment',
      sql.lit('pending').as('status'),
      sql.lit(0).as('attempt_count'),
      sql<number>`cast(${now} as bigint)`.as('next_attempt_at'),
      sql<number>`cast(${now} as bigint)`.as('created_at'),
      sql<number>`cast(${now} as bigint)`.as('updated_at'),
    ])
    .where('w.status', '!=', 'disabled')
    .where('w.deleted_at', 'is', null)
    .where(jsonListAdmits(engine, 'w.events', 'e.type'));
  if (eventIds) select = select.where('e.id', 'in', eventIds);
  return db
    .insertInto('webhook_deliveries')
    .columns([
      'id',
      'event_id',
      'endpoint_id',
      'merchant_id',
      'environment',
      'status',
      'attempt_count',
      'next_attempt_at',
      'created_at',
      'updated_at',
    ])
    .expression(select as never);
}

/**
 * One delivery per event and subscribed endpoint that is not disabled (INSERT ... SELECT: the endpoints are
 * read where they are joined, so the statement needs no earlier answer and goes in one batch with the
 * events' own INSERT). A paused endpoint is still subscribed: its deliveries are written and wait, held by
 * the worker, until it is resumed. An event no endpoint subscribes to gets no row. Ids are made by the
 * database: the time part as usual, then 64 random bits.
 */
const deliveriesForEvents = prepared('deliveries-for-events', (db: Q, eventIds: readonly string[], now: number, idPrefix: string) =>
  insertNotifying(db, deliveriesInsert(db, 'events', eventIds, now, idPrefix) as never, DELIVERY_CHANNEL),
);

export function enqueueDeliveriesStatement(db: Q, eventIds: readonly string[]): SignallingInsert {
  // Delivery times are real time, whatever the merchant's (sandbox) clock says: receivers compare them
  // with their own clocks.
  const now = systemClock.nowMs();
  const statement = deliveriesForEvents(db, eventIds, now, `${ID_PREFIXES.webhook_delivery}_${timeBase62(now)}`);
  return signallingInsert(db, statement, DELIVERY_CHANNEL);
}

type EventInsertRow = Omit<DB['events'], 'seq' | 'txid'>;
/** An INSERT query of any table: what compiling it and embedding it in a statement need. */
type InsertQuery = Pick<InsertQueryBuilder<DB, 'events', InsertResult>, 'compile' | 'toOperationNode'>;

/** An INSERT that must commit with the events, written before them (the records the events are about). */
export interface LeadingInsert<R> {
  /** Names its compiled shapes; one `insert` per name. */
  name: string;
  insert: (db: Q, rows: readonly R[]) => InsertQuery;
  rows: readonly R[];
}

const compiledInserts = new Map<string, (db: Q, rows: readonly unknown[]) => CompiledQuery>();

/** `insert` compiled once per shape of rows (src/db/prepared.ts), under `name`. */
function compiledInsert<R>(name: string, insert: (db: Q, rows: readonly R[]) => InsertQuery, db: Q, rows: readonly R[]): CompiledQuery {
  let statement = compiledInserts.get(name);
  if (!statement) {
    statement = prepared(`insert:${name}`, insert as (db: Q, rows: readonly unknown[]) => InsertQuery);
    compiledInserts.set(name, statement);
  }
  return statement(db, rows);
}

const withDeliveries = new Map<
  string,
  (db: Q, rows: readonly EventInsertRow[], now: number, idPrefix: string, before: readonly unknown[]) => CompiledQuery
>();

/**
 * Adds to `batch` the writes of new events (their INSERT built by `insertEvents`, the events module's), their
 * webhook deliveries, and `before` first when given. On PostgreSQL they are one statement, one round
 * trip (and a batch of that statement alone needs no transaction of its own): `before` and the events are
 * CTEs, and the deliveries' INSERT ... SELECT reads the new events from theirs, the endpoints as the
 * separate statement would. On SQLite, one statement each, in one message to the writing thread.
 * `name` names the compiled shapes: one `insertEvents` and one `before.insert` per name.
 */
export function addEventsWithDeliveries<R>(
  batch: WriteBatch,
  db: Q,
  name: string,
  insertEvents: (db: Q, rows: readonly EventInsertRow[]) => InsertQueryBuilder<DB, 'events', InsertResult>,
  rows: readonly EventInsertRow[],
  before?: LeadingInsert<R>,
): void {
  if (engineOf(db) !== 'postgres') {
    if (before) batch.add(compiledInsert(`${name}:${before.name}`, before.insert, db, before.rows));
    batch.add(compiledInsert(`${name}:events`, insertEvents, db, rows));
    const deliveries = enqueueDeliveriesStatement(
      db,
      rows.map((r) => r.id),
    );
    batch.add(deliveries.statement, deliveries.onCommit);
    return;
  }
  const key = `${name}:${before?.name ?? ''}`;
  let statement = withDeliveries.get(key);
  if (!statement) {
    statement = prepared(
      `events-with-deliveries:${key}`,
      (q: Q, r: readonly EventInsertRow[], now: number, idPrefix: string, leading: readonly unknown[]) =>
        insertNotifyingAfter(
          q,
          [
            ...(before ? [{ name: 'leading', insert: before.insert(q, leading as readonly R[]) as never }] : []),
            { name: 'new_events', insert: insertEvents(q, r).returning(['id', 'merchant_id', 'environment', 'type']) as never },
          ],
          deliveriesInsert(q, 'new_events', null, now, idPrefix) as never,
          DELIVERY_CHANNEL,
        ),
    );
    withDeliveries.set(key, statement);
  }
  const now = systemClock.nowMs();
  const compiled = statement(db, rows, now, `${ID_PREFIXES.webhook_delivery}_${timeBase62(now)}`, before?.rows ?? []);
  const both = signallingInsert(db, compiled, DELIVERY_CHANNEL);
  batch.add(both.statement, both.onCommit);
}
