// Domain events. Every state change records its event in the same transaction as the change, so no
// event is ever lost or recorded for a change that did not commit. Webhook delivery and the event feed
// read from this table.
import type { Kysely, Transaction } from 'kysely';
import type { DB, EnvironmentColumn } from '../../db/schema.js';
import { API_VERSION } from '../../http/context.js';
import { isoTime } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { enqueueDeliveries } from '../webhooks/enqueue.js';

export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.confirming',
  'payment_intent.paid',
  'payment_intent.failed',
  'payment_intent.expired',
  'payment_intent.cancelled',
  'payment_intent.underpaid',
  'payment_intent.overpaid',
  'payment_intent.review',
  'payment_intent.refunded',
  'payment_intent.disputed',
  'payment_intent.duplicate_payment',
  'refund.created',
  'refund.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventPayload {
  id: string;
  object: 'event';
  type: EventType;
  api_version: string;
  created_at: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface RecordEventInput {
  merchantId: string;
  environment: EnvironmentColumn;
  type: EventType;
  data: Record<string, unknown>;
  paymentIntentId?: string | null;
  /** Milliseconds; the merchant's clock (sandbox time for sandbox events). */
  at: number;
}

export async function recordEvent(trx: Transaction<DB> | Kysely<DB>, input: RecordEventInput): Promise<EventPayload> {
  // The event and its webhook deliveries commit together or not at all.
  if (!trx.isTransaction) return trx.transaction().execute((t) => recordEvent(t, input));
  const payload: EventPayload = {
    id: newId('event'),
    object: 'event',
    type: input.type,
    api_version: API_VERSION,
    created_at: isoTime(input.at),
    livemode: input.environment === 'live',
    data: input.data,
  };
  await trx
    .insertInto('events')
    .values({
      id: payload.id,
      merchant_id: input.merchantId,
      environment: input.environment,
      type: input.type,
      api_version: API_VERSION,
      payment_intent_id: input.paymentIntentId ?? null,
      payload: JSON.stringify(payload),
      created_at: input.at,
    })
    .execute();
  await enqueueDeliveries(trx, { eventId: payload.id, merchantId: input.merchantId, environment: input.environment, type: input.type });
  return payload;
}
