// Inspection and replay of emitted events (spec 4.7; DECISIONS "Webhooks and events"): each webhook
// event lists its deliveries (one per endpoint it was sent to, and one more per resend), and a retrieve
// also lists every attempt of each.
import type { Kysely } from 'kysely';
import type { DB, EventRow, WebhookAttemptRow } from '../../db/schema.js';
import { toPage, unknownCursor, type Page } from '../../http/pagination.js';
import { isoTime, systemClock } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { RawJson, rawMember } from '../../shared/raw-json.js';
import type { EventType } from '../events/index.js';
import type { Scope } from './endpoints.repo.js';
import { deliveriesStatement, deliveriesWritten } from './enqueue.js';
import * as repo from './webhook-events.repo.js';

export interface WebhookAttempt {
  id: string;
  object: 'webhook_attempt';
  attempt: number;
  url: string;
  /** `interrupted`: the worker stopped during the attempt and no outcome was recorded. */
  outcome: 'in_progress' | 'succeeded' | 'failed' | 'interrupted';
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  endpoint: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
  attempts?: WebhookAttempt[];
}

export interface WebhookEvent {
  id: string;
  object: 'webhook_event';
  type: EventType;
  api_version: string;
  created_at: string;
  livemode: boolean;
  data: RawJson;
  deliveries: WebhookDelivery[];
}

function attemptView(a: WebhookAttemptRow, d: repo.DeliveryWithUrl, now: number): WebhookAttempt {
  let outcome: WebhookAttempt['outcome'] = a.outcome === 'pending' ? 'in_progress' : a.outcome;
  const current =
    d.status === 'pending' && d.locked_by !== null && d.attempt_count === a.attempt_number && (d.next_attempt_at ?? 0) > now;
  if (a.outcome === 'pending' && !current) outcome = 'interrupted';
  return {
    id: a.id,
    object: 'webhook_attempt',
    attempt: a.attempt_number,
    url: a.url,
    outcome,
    status_code: a.status_code,
    error: outcome === 'interrupted' ? 'no outcome recorded: the worker stopped during the attempt' : a.error,
    duration_ms: a.duration_ms,
    started_at: isoTime(Number(a.started_at)),
    finished_at: a.finished_at === null ? null : isoTime(Number(a.finished_at)),
  };
}

function deliveryView(d: repo.DeliveryWithUrl, attempts: WebhookAttemptRow[] | null, now: number): WebhookDelivery {
  // While claimed, next_attempt_at holds the claim's lease, not a due time: show none.
  const due = d.status === 'pending' && d.locked_by === null && d.next_attempt_at !== null ? isoTime(Number(d.next_attempt_at)) : null;
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint: d.endpoint_id,
    url: d.url,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: due,
    last_attempt_at: d.last_attempt_at === null ? null : isoTime(Number(d.last_attempt_at)),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: isoTime(Number(d.created_at)),
    completed_at: d.completed_at === null ? null : isoTime(Number(d.completed_at)),
    ...(attempts ? { attempts: attempts.map((a) => attemptView(a, d, now)) } : {}),
  };
}

function eventView(row: EventRow, deliveries: WebhookDelivery[]): WebhookEvent {
  const payload = JSON.parse(row.payload) as { livemode: boolean; created_at: string };
  return {
    id: row.id,
    object: 'webhook_event',
    type: row.type as EventType,
    api_version: row.api_version,
    created_at: payload.created_at,
    livemode: payload.livemode,
    data: new RawJson(rawMember(row.payload, 'data') ?? '{}'),
    deliveries,
  };
}

export async function listWebhookEvents(
  db: Kysely<DB>,
  scope: Scope,
  opts: { limit: number; startingAfter?: string; type?: string },
): Promise<Page<WebhookEvent>> {
  let cursor = null;
  if (opts.startingAfter !== undefined) {
    cursor = await repo.findEvent(db, scope, opts.startingAfter);
    if (!cursor) throw unknownCursor(opts.startingAfter);
  }
  const rows = await repo.listEvents(db, scope, { cursor, limit: opts.limit, type: opts.type });
  const shown = rows.slice(0, opts.limit);
  const deliveries = await repo.deliveriesOf(db, shown.map((r) => r.id));
  const now = systemClock.nowMs();
  return toPage(rows, opts.limit, (row) =>
    eventView(
      row,
      deliveries.filter((d) => d.event_id === row.id).map((d) => deliveryView(d, null, now)),
    ),
  );
}

export async function getWebhookEvent(db: Kysely<DB>, scope: Scope, id: string): Promise<WebhookEvent> {
  const row = await repo.findEvent(db, scope, id);
  if (!row) throw notFound('webhook event', id);
  const [deliveries, attempts] = await Promise.all([repo.deliveriesOf(db, [id]), repo.attemptsOf(db, id)]);
  const now = systemClock.nowMs();
  return eventView(
    row,
    deliveries.map((d) =>
      deliveryView(
        d,
        attempts.filter((a) => a.delivery_id === d.id),
        now,
      ),
    ),
  );
}

/**
 * Resend: a new delivery of the event to every enabled endpoint that subscribes to its type now, due at
 * once, with the event's own id and body. `resent` counts them.
 */
export async function resendWebhookEvent(db: Kysely<DB>, scope: Scope, id: string): Promise<{ object: 'webhook_event'; id: string; resent: number }> {
  const resent = await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', scope.merchantId)
      .where('environment', '=', scope.environment)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('webhook event', id);
    // The statement that wrote the event's first deliveries: the same subscription rule, read now.
    return deliveriesWritten(trx, await trx.executeQuery(deliveriesStatement(trx, [row.id])));
  });
  return { object: 'webhook_event', id, resent };
}
