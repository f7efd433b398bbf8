import { engineOf } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import type { EventRow, WebhookAttemptRow } from '../../db/schema.js';
import type { Db, Q } from '../../db/transaction.js';
import type { MerchantScope as Scope } from '../../shared/scope.js';
import type { DeliveryWithUrl } from './webhook.schema.js';
import { scopedRows } from '../../db/scoped.js';

export async function findEvent(db: Db, scope: Scope, id: string): Promise<EventRow | undefined> {
  return scopedRows(db, 'events', scope).where('id', '=', id).executeTakeFirst();
}

export async function listEvents(db: Db, scope: Scope, opts: { cursor: Cursor | null; limit: number; type?: string }): Promise<EventRow[]> {
  let q = scopedRows(db, 'events', scope);
  if (opts.type !== undefined) q = q.where('type', '=', opts.type);
  return keysetPage(engineOf(db), q, opts.cursor, opts.limit).execute();
}

export async function deliveriesOf(db: Db, eventIds: string[]): Promise<DeliveryWithUrl[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.url', 'e.status as endpoint_status'])
    .where('d.event_id', 'in', eventIds)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

export async function attemptsOf(db: Db, eventId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('event_id', '=', eventId)
    .orderBy('started_at')
    .orderBy('attempt_number')
    .execute();
}

/** The latest deliveries to one endpoint, newest first, with their event's type (the console's delivery log). */
export async function deliveriesOfEndpoint(db: Db, endpointId: string, limit: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'ev.type',
      'd.status',
      'd.attempt_count',
      'd.last_status_code',
      'd.last_error',
      'd.last_attempt_at',
      'd.created_at',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** The id of an event of this merchant and environment, or undefined. */
export async function findEventId(db: Q, scope: { merchantId: string; environment: string }, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment as 'live' | 'test')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.id;
}
