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
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('merchant_id', '=', input.merchantId)
    .where('environment', '=', input.environment)
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null)
    .execute();
  return endpoints.filter((e) => subscribes(e.events, input.type)).map((e) => e.id);
}

/** Inserts deliveries of the event to these endpoints, due at once, and wakes the workers at commit. */
export async function insertDeliveries(trx: Transaction<DB> | Kysely<DB>, input: EnqueueInput, endpointIds: string[]): Promise<number> {
  if (endpointIds.length === 0) return 0;
  // Delivery times are real time, whatever the merchant's (sandbox) clock says: receivers compare them
  // with their own clocks.
  const now = systemClock.nowMs();
  const rows: Insertable<WebhookDeliveriesTable>[] = endpointIds.map((endpointId) => ({
    id: newId('webhook_delivery'),
    event_id: input.eventId,
    endpoint_id: endpointId,
    merchant_id: input.merchantId,
    environment: input.environment,
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
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await wakeWorkersOnCommit(trx);
  return rows.length;
}

/** Called by recordEvent inside the event's transaction. */
export async function enqueueDeliveries(trx: Transaction<DB> | Kysely<DB>, input: EnqueueInput): Promise<number> {
  return insertDeliveries(trx, input, await subscribedEndpointIds(trx, input));
}
