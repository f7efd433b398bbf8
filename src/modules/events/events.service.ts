// Domain events. Every state change records its event in the same transaction as the change, so no
// event is ever lost or recorded for a change that did not commit. Webhook delivery and the event feed
// read from this table.
import type { Kysely, Transaction } from 'kysely';
import type { DB, EnvironmentColumn } from '../../db/schema.js';
import { API_VERSION } from '../../http/context.js';
import { isoTime } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { insertRows } from '../../db/compiled.js';
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
  return (await recordEvents(trx, [input]))[0]!;
}

/** Records several events (and their deliveries) with one statement per table. */
export async function recordEvents(trx: Transaction<DB> | Kysely<DB>, inputs: readonly RecordEventInput[]): Promise<EventPayload[]> {
  // The events and their webhook deliveries commit together or not at all.
  if (!trx.isTransaction) return trx.transaction().execute((t) => recordEvents(t, inputs));
  if (inputs.length === 0) return [];
  const payloads = inputs.map(
    (input): EventPayload => ({
      id: newId('event'),
      object: 'event',
      type: input.type,
      api_version: API_VERSION,
      created_at: isoTime(input.at),
      livemode: input.environment === 'live',
      data: input.data,
    }),
  );
  await insertRows(
    trx,
    'events',
    inputs.map((input, i) => ({
        id: payloads[i]!.id,
        merchant_id: input.merchantId,
        environment: input.environment,
        type: input.type,
        api_version: API_VERSION,
        payment_intent_id: input.paymentIntentId ?? null,
        payload: JSON.stringify(payloads[i]),
      created_at: input.at,
    })),
  );
  await enqueueDeliveries(
    trx,
    inputs.map((input, i) => ({ eventId: payloads[i]!.id, merchantId: input.merchantId, environment: input.environment, type: input.type })),
  );
  return payloads;
}
