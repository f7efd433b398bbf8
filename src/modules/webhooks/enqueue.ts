// Deliveries are written in the transaction that records their event: one per subscribed, enabled
// endpoint. The worker is woken when that transaction commits: PostgreSQL NOTIFY (sent at commit, dropped
// on rollback); on SQLite an in-process bell, whose claim query waits for the connection the committing
// transaction holds, so it runs just after the commit.
import { EventEmitter } from 'node:events';
import { sql, type CompiledQuery, type Kysely, type QueryResult, type Transaction } from 'kysely';
import { engineOf, jsonListAdmits, notifyOnCommit, randomHexSql } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { systemClock } from '../../shared/clock.js';
import { ID_PREFIXES, timeBase62 } from '../../shared/ids.js';
import { compiled } from '../../db/compiled.js';

export const DELIVERY_CHANNEL = 'cowrie_webhook_deliveries';

/** Rings the delivery workers of this process. */
export const deliveryBell = new EventEmitter();
deliveryBell.setMaxListeners(0);

export function ringDeliveryBell(): void {
  setImmediate(() => deliveryBell.emit('ring'));
}

/** Wakes the workers of every process at commit (PostgreSQL) or of this process (SQLite). */
export async function wakeWorkersOnCommit(trx: Transaction<DB> | Kysely<DB>): Promise<void> {
  if (!(await notifyOnCommit(trx, DELIVERY_CHANNEL))) ringDeliveryBell();
}

/**
 * The statement that, inside the events' transaction, writes one delivery per event and subscribed,
 * enabled endpoint (INSERT ... SELECT: the endpoints are read where they are joined, so the statement
 * needs no earlier answer and can go in one message with the events' own INSERT). Ids are made by the
 * database: the time part as usual, then 64 random bits.
 */
export function deliveriesStatement(trx: Transaction<DB> | Kysely<DB>, eventIds: readonly string[]): CompiledQuery {
  // Delivery times are real time, whatever the merchant's (sandbox) clock says: receivers compare them
  // with their own clocks.
  const now = systemClock.nowMs();
  const prefix = `${ID_PREFIXES.webhook_delivery}_${timeBase62(now)}`;
  const engine = engineOf(trx);
  return compiled(trx, `deliveries-for-events:${eventIds.length}`, [prefix, now, now, now, ...eventIds, 'enabled'], () =>
    trx
      .insertInto('webhook_deliveries')
      .columns(['id', 'event_id', 'endpoint_id', 'merchant_id', 'environment', 'status', 'attempt_count', 'next_attempt_at', 'created_at', 'updated_at'])
      .expression(
        trx
          .selectFrom('events as e')
          .innerJoin('webhook_endpoints as w', (join) => join.onRef('w.merchant_id', '=', 'e.merchant_id').onRef('w.environment', '=', 'e.environment'))
          .select([
            sql<string>`${prefix} || ${randomHexSql(engine)}`.as('id'),
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
          .where('w.status', '=', 'enabled')
          .where('w.deleted_at', 'is', null)
          .where(jsonListAdmits(engine, 'w.events', 'e.type')),
      ),
  );
}

/** After deliveriesStatement ran: wakes the workers at commit when it wrote any delivery. */
export async function deliveriesWritten(trx: Transaction<DB> | Kysely<DB>, result: QueryResult<unknown>): Promise<number> {
  const written = Number(result.numAffectedRows ?? 0n);
  if (written > 0) await wakeWorkersOnCommit(trx);
  return written;
}
