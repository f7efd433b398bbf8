// Domain events. Every state change records its event in the same transaction as the change, so no
// event is ever lost or recorded for a change that did not commit. Webhook delivery and the event feed
// read from this table.
import type { CompiledQuery, Kysely, QueryResult, Transaction } from 'kysely';
import type { DB, EnvironmentColumn } from '../../db/schema.js';
import { API_VERSION } from '../../http/context.js';
import { isoTime } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { serializeJson } from '../../shared/raw-json.js';
import { insertStatement } from '../../db/compiled.js';
import { executeInOrder } from '../../db/dialect.js';
import { deliveriesStatement, deliveriesWritten } from '../webhooks/enqueue.js';

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
  const events = eventStatements(trx, inputs);
  const results = await executeInOrder(trx as Transaction<DB>, events.statements);
  await events.written(results);
  return events.payloads;
}

export interface EventStatements {
  payloads: EventPayload[];
  /** The events' INSERT, then their deliveries' INSERT ... SELECT: run them in order, in one transaction. */
  statements: CompiledQuery[];
  /** Call with the statements' results (in the same order, at the end of a longer list or alone). */
  written(results: readonly QueryResult<unknown>[]): Promise<void>;
}

/** The statements that record these events and their webhook deliveries, for the caller to run. */
export function eventStatements(trx: Transaction<DB> | Kysely<DB>, inputs: readonly RecordEventInput[]): EventStatements {
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
  return {
    payloads,
    statements: [insertStatement(trx, 'events', rows), deliveriesStatement(trx, payloads.map((p) => p.id))],
    async written(results) {
      await deliveriesWritten(trx, results[results.length - 1]!);
    },
  };
}
