// Domain events. Every state change records its event in the same transaction as the change, with the
// event's webhook deliveries (queued through the webhooks module), so no event is ever lost or recorded for
// a change that did not commit. Webhook delivery and the event feed read what is written here.
import { WriteBatch, runInTransaction, type Db, type Tx } from '../../db/transaction.js';
import { API_VERSION } from '../../shared/api-version.js';
import { isoTime } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { serializeJson, type RawJson } from '../../shared/raw-json.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { EventPayload, EventType } from './event.schema.js';
import { addEventsWithDeliveries, type LeadingInsert } from '../webhooks/index.js';
import * as repo from './events.repo.js';

export interface RecordEventInput {
  merchantId: string;
  environment: MerchantScope['environment'];
  type: EventType;
  /** The event's object; a RawJson when the caller already has its JSON text (it is spliced in, not written again). */
  data: Record<string, unknown> | RawJson;
  paymentIntentId?: string | null;
  /** Milliseconds; the merchant's clock (sandbox time for sandbox events). */
  at: number;
}

/**
 * The writes that record these events and their webhook deliveries, added to `batch`: for a caller that
 * writes them with other statements of its own in one batch. `before`, an INSERT of the records the events
 * are about, is written first, in the same statement on PostgreSQL (webhooks' addEventsWithDeliveries).
 */
export function addEvents<R = never>(
  db: Db | Tx,
  batch: WriteBatch,
  inputs: readonly RecordEventInput[],
  before?: LeadingInsert<R>,
): EventPayload[] {
  const payloads = inputs.map((input): EventPayload => ({
    id: newId('event'),
    object: 'event',
    type: input.type,
    api_version: API_VERSION,
    created_at: isoTime(input.at),
    livemode: input.environment === 'live',
    // A RawJson stands for its object wherever the payload is written (its toJSON, serializeJson).
    data: input.data as Record<string, unknown>,
  }));
  const rows = inputs.map((input, i) => ({
    id: payloads[i]!.id,
    merchant_id: input.merchantId,
    environment: input.environment,
    type: input.type,
    api_version: API_VERSION,
    payment_intent_id: input.paymentIntentId ?? null,
    payload: serializeJson(payloads[i]),
    created_at: input.at,
  }));
  addEventsWithDeliveries(batch, db, before ? `events+${before.name}` : 'events', repo.insertEventsQuery, rows, before);
  return payloads;
}

/** Records events and their deliveries in the caller's transaction. */
export async function recordEvents(tx: Tx, inputs: readonly RecordEventInput[]): Promise<EventPayload[]> {
  if (inputs.length === 0) return [];
  const batch = new WriteBatch();
  const payloads = addEvents(tx, batch, inputs);
  await runInTransaction(tx, batch);
  return payloads;
}

export async function recordEvent(tx: Tx, input: RecordEventInput): Promise<EventPayload> {
  return (await recordEvents(tx, [input]))[0]!;
}
