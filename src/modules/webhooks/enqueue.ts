// Deliveries are written in the transaction that records their event: one per subscribed, enabled
// endpoint. The worker is woken when that transaction commits: PostgreSQL NOTIFY (sent at commit, dropped
// on rollback); on SQLite an in-process bell, whose claim query waits for the connection the committing
// transaction holds, so it runs just after the commit.
import { EventEmitter } from 'node:events';
import type { Insertable, Kysely, Transaction } from 'kysely';
import { notifyOnCommit } from '../../db/dialect.js';
import type { DB, EnvironmentColumn, WebhookDeliveriesTable } from '../../db/schema.js';
import { systemClock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { executeCompiled, insertRows } from '../../db/compiled.js';

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

export function subscribes(eventsJson: string, type: string): boolean {
  const events = JSON.parse(eventsJson) as string[];
  return events.length === 0 || events.includes(type);
}

export interface EnqueueInput {
  eventId: string;
  merchantId: string;
  environment: EnvironmentColumn;
  type: string;
}

/** Enabled endpoints of the merchant and environment that subscribe to `type`. */
export async function subscribedEndpointIds(db: Transaction<DB> | Kysely<DB>, input: Omit<EnqueueInput, 'eventId'>): Promise<string[]> {
  const endpoints = await enabledEndpoints(db, [input.merchantId]);
  return endpoints.filter((e) => e.environment === input.environment && subscribes(e.events, input.type)).map((e) => e.id);
}

async function enabledEndpoints(db: Transaction<DB> | Kysely<DB>, merchantIds: readonly string[]) {
  const result = await executeCompiled(db, `enabled-endpoints:${merchantIds.length}`, [...merchantIds, 'enabled'], () =>
    db
      .selectFrom('webhook_endpoints')
      .select(['id', 'merchant_id', 'environment', 'events'])
      .where('merchant_id', 'in', merchantIds)
      .where('status', '=', 'enabled')
      .where('deleted_at', 'is', null),
  );
  return result.rows;
}

/** Inserts deliveries of the event to these endpoints, due at once, and wakes the workers at commit. */
export async function insertDeliveries(trx: Transaction<DB> | Kysely<DB>, input: EnqueueInput, endpointIds: string[]): Promise<number> {
  return insertDeliveryRows(trx, endpointIds.map((endpointId) => ({ ...input, endpointId })));
}

async function insertDeliveryRows(trx: Transaction<DB> | Kysely<DB>, targets: Array<EnqueueInput & { endpointId: string }>): Promise<number> {
  if (targets.length === 0) return 0;
  // Delivery times are real time, whatever the merchant's (sandbox) clock says: receivers compare them
  // with their own clocks.
  const now = systemClock.nowMs();
  const rows: Insertable<WebhookDeliveriesTable>[] = targets.map((t) => ({
    id: newId('webhook_delivery'),
    event_id: t.eventId,
    endpoint_id: t.endpointId,
    merchant_id: t.merchantId,
    environment: t.environment,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    locked_by: null,
    last_status_code: null,
    last_error: null,
    last_attempt_at: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  }));
  await insertRows(trx, 'webhook_deliveries', rows);
  await wakeWorkersOnCommit(trx);
  return rows.length;
}

/**
 * Called by recordEvents inside the events' transaction: one delivery per event and subscribed endpoint,
 * the endpoints of every merchant involved read by one query.
 */
export async function enqueueDeliveries(trx: Transaction<DB> | Kysely<DB>, events: readonly EnqueueInput[]): Promise<number> {
  if (events.length === 0) return 0;
  const endpoints = await enabledEndpoints(trx, [...new Set(events.map((e) => e.merchantId))]);
  if (endpoints.length === 0) return 0;
  const targets: Array<EnqueueInput & { endpointId: string }> = [];
  for (const event of events) {
    for (const e of endpoints) {
      if (e.merchant_id === event.merchantId && e.environment === event.environment && subscribes(e.events, event.type)) {
        targets.push({ ...event, endpointId: e.id });
      }
    }
  }
  return insertDeliveryRows(trx, targets);
}
