// Domain events. Every state change records its event in the same transaction as the change, with the
// event's webhook deliveries (queued through the webhooks module), so no event is ever lost or recorded for
// a change that did not commit. Webhook delivery and the event feed read what is written here.
import { engineOf } from '../../db/dialect.js';
import { WriteBatch, runInTransaction, type Db, type Tx } from '../../db/transaction.js';
import { API_VERSION } from '../../shared/api-version.js';
import { isoTime } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { serializeJson, type RawJson } from '../../shared/raw-json.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { EventPayload, EventType } from './event.schema.js';
import { enqueueDeliveriesStatement, insertEventsWithDeliveriesStatement } from '../webhooks/index.js';
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
 * The writes that record these events and their webhook deliveries, added to `batch` (one statement per
 * table): for a caller that writes them with other statements of its own in one batch.
 */
export function addEvents(db: Db | Tx, batch: WriteBatch, inputs: readonly RecordEventInput[]): EventPayload[] {
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
  if (engineOf(db) === 'postgres') {
    // One statement, one round trip: the events and their deliveries.
    const both = insertEventsWithDeliveriesStatement(db, 'events', repo.insertEventsQuery, rows);
    batch.add(both.statement, both.onCommit);
  } else {
    const deliveries = enqueueDeliveriesStatement(
      db,
      payloads.map((p) => p.id),
    );
    batch.add(repo.insertEventsStatement(db, rows)).add(deliveries.statement, deliveries.onCommit);
  }
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
