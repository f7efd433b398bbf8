// The delivery queue's writes: one webhook delivery per event and subscribed endpoint (enabled or paused),
// written in the transaction that records the events, whose INSERT signals the delivery workers at commit.
import { sql } from 'kysely';
import { engineOf, insertNotifying, jsonListAdmits, randomHexSql } from '../../db/dialect.js';
import { signallingInsert, type SignallingInsert } from '../../db/notify.js';
import { prepared } from '../../db/prepared.js';
import type { Q } from '../../db/transaction.js';
import { systemClock } from '../../shared/clock.js';
import { ID_PREFIXES, timeBase62 } from '../../shared/ids.js';

/** The channel the delivery workers listen on: signalled when due deliveries are written. */
export const DELIVERY_CHANNEL = 'cowrie_webhook_deliveries';

/**
 * One delivery per event and subscribed endpoint that is not disabled (INSERT ... SELECT: the endpoints are
 * read where they are joined, so the statement needs no earlier answer and goes in one batch with the
 * events' own INSERT). A paused endpoint is still subscribed: its deliveries are written and wait, held by
 * the worker, until it is resumed. Ids are made by the database: the time part as usual, then 64 random
 * bits.
 */
const deliveriesForEvents = prepared('deliveries-for-events', (db: Q, eventIds: readonly string[], now: number, idPrefix: string) => {
  const engine = engineOf(db);
  const insert = db
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
    .expression(
      db
        .selectFrom('events as e')
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
        .where('e.id', 'in', eventIds)
        .where('w.status', '!=', 'disabled')
        .where('w.deleted_at', 'is', null)
        .where(jsonListAdmits(engine, 'w.events', 'e.type')),
    );
  return insertNotifying(db, insert as never, DELIVERY_CHANNEL);
});

export function enqueueDeliveriesStatement(db: Q, eventIds: readonly string[]): SignallingInsert {
  // Delivery times are real time, whatever the merchant's (sandbox) clock says: receivers compare them
  // with their own clocks.
  const now = systemClock.nowMs();
  const statement = deliveriesForEvents(db, eventIds, now, `${ID_PREFIXES.webhook_delivery}_${timeBase62(now)}`);
  return signallingInsert(db, statement, DELIVERY_CHANNEL);
}
