// Webhook endpoints and emitted events as the API shows them: each webhook event lists its deliveries (one
// per endpoint it was sent to, and one more per resend), and a retrieve also lists every attempt of each.
import { Type, type Static, type TSchema } from 'typebox';
import type { EventRow, WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { RawJson, rawMember } from '../../shared/raw-json.js';
import { DateTime, Nullable, RawJsonOf, StringEnum } from '../../shared/schema.js';
import { EVENT_TYPES, type EventType } from '../../shared/event-types.js';

/**
 * An endpoint's status: `enabled`; `paused` by the merchant in the console (its deliveries wait); `disabled`
 * once it answered 410. The column is plain text (migration 0003), so `paused` needed no migration; the
 * table's type in src/db/schema.ts does not list it yet, so the module reads and writes it as this type.
 */
export const ENDPOINT_STATUSES = ['enabled', 'paused', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const endpointProperties = {
  id: Type.String({ description: 'Identifier, prefix `we_`' }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String({ format: 'uri' }),
  events: Type.Array(StringEnum(EVENT_TYPES), { description: 'Event types sent to this endpoint; empty means every type' }),
  status: StringEnum(ENDPOINT_STATUSES, {
    description:
      '`enabled`; `paused` while the merchant has paused it in the console (deliveries wait, unattempted, and go out on resume); `disabled` after the endpoint answered 410 Gone',
  }),
  created_at: DateTime(),
  livemode: Type.Boolean(),
};
export const WebhookEndpointRecord = Type.Object(endpointProperties, { title: 'WebhookEndpoint' });
export type WebhookEndpoint = Static<typeof WebhookEndpointRecord>;

/** The status of an endpoint's row, `paused` included (see ENDPOINT_STATUSES). */
export function statusOf(row: WebhookEndpointRow): EndpointStatus {
  return row.status;
}

export function endpointView(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    events: JSON.parse(row.events) as EventType[],
    status: statusOf(row),
    created_at: isoTime(row.created_at),
    livemode: row.environment === 'live',
  };
}

export const AttemptRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `wha_`' }),
    object: Type.Literal('webhook_attempt'),
    attempt: Type.Integer({ description: '1 to 8 within its delivery' }),
    url: Type.String({ description: 'Where this attempt was sent' }),
    outcome: StringEnum(['in_progress', 'succeeded', 'failed', 'interrupted'] as const, {
      description: '`interrupted`: the worker stopped during the attempt and no outcome was recorded',
    }),
    status_code: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    duration_ms: Nullable(Type.Integer()),
    started_at: DateTime(),
    finished_at: Nullable(DateTime()),
  },
  { title: 'WebhookAttempt' },
);
export type WebhookAttempt = Static<typeof AttemptRecord>;

const deliveryProperties = {
  id: Type.String({ description: 'Identifier, prefix `whd_`' }),
  object: Type.Literal('webhook_delivery'),
  endpoint: Type.String({ description: 'The webhook endpoint id' }),
  url: Type.String({ description: "The endpoint's current URL" }),
  status: StringEnum(['pending', 'succeeded', 'failed', 'cancelled'] as const),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(DateTime()),
  last_attempt_at: Nullable(DateTime()),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: DateTime(),
  completed_at: Nullable(DateTime()),
};
export const DeliveryRecord = Type.Object(deliveryProperties, { title: 'WebhookDelivery' });
export const DeliveryWithAttempts = Type.Object(
  { ...deliveryProperties, attempts: Type.Array(AttemptRecord) },
  { title: 'WebhookDeliveryWithAttempts' },
);
export type WebhookDelivery = Static<typeof DeliveryRecord> & { attempts?: WebhookAttempt[] };

export function webhookEventProperties(delivery: TSchema) {
  return {
    id: Type.String({ description: 'The event id, prefix `evt_`; the `Service-Event-Id` of every delivery' }),
    object: Type.Literal('webhook_event'),
    type: StringEnum(EVENT_TYPES),
    api_version: Type.String(),
    created_at: DateTime(),
    livemode: Type.Boolean(),
    data: RawJsonOf(Type.Record(Type.String(), Type.Unknown())),
    deliveries: Type.Array(delivery),
  };
}
export const WebhookEventRecord = Type.Object(webhookEventProperties(DeliveryRecord), { title: 'WebhookEvent' });
export type WebhookEvent = Omit<Static<typeof WebhookEventRecord>, 'deliveries'> & { deliveries: WebhookDelivery[] };

/** A delivery with its endpoint's current url and status. */
export type DeliveryWithUrl = WebhookDeliveryRow & { url: string; endpoint_status: EndpointStatus };

export function attemptView(a: WebhookAttemptRow, d: DeliveryWithUrl, now: number): WebhookAttempt {
  let outcome: WebhookAttempt['outcome'] = a.outcome === 'pending' ? 'in_progress' : a.outcome;
  const current = d.status === 'pending' && d.locked_by !== null && d.attempt_count === a.attempt_number && (d.next_attempt_at ?? 0) > now;
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

export function deliveryView(d: DeliveryWithUrl, attempts: WebhookAttemptRow[] | null, now: number): WebhookDelivery {
  // While claimed, next_attempt_at holds the claim's lease, not a due time: show none. A delivery of a
  // paused endpoint has no due time either (the worker parks it on sight) until the endpoint is resumed.
  const due =
    d.status === 'pending' && d.locked_by === null && d.next_attempt_at !== null && d.endpoint_status !== 'paused'
      ? isoTime(Number(d.next_attempt_at))
      : null;
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

export function webhookEventView(row: EventRow, deliveries: WebhookDelivery[]): WebhookEvent {
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
