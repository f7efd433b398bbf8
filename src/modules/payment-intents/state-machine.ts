// The payment intent state machine: one table of allowed moves, and one function through which every
// move goes (creation, the checkout, the sandbox driver, rail callbacks, the expiry sweep, refunds).
// A move is a conditional UPDATE (`WHERE status = <from>`) plus its event, in the caller's transaction:
// of two concurrent moves of one intent exactly one wins; the loser sees IntentMoveConflict. An illegal
// move throws IllegalIntentMove and writes nothing.
import type { Kysely, Transaction, Updateable } from 'kysely';
import type { DB, IntentStatus, PaymentIntentRow, PaymentIntentsTable } from '../../db/schema.js';
import { eventStatements, recordEvent, type EventStatements, type EventType, type RecordEventInput } from '../events/index.js';
import { intentView, type CheckoutUrlFor, type PaymentIntent } from './intent-view.js';

/** from -> to -> the event types that move may record (the first is the default). */
export const INTENT_MOVES: Readonly<Record<IntentStatus, Readonly<Partial<Record<IntentStatus, readonly EventType[]>>>>> = {
  created: { awaiting_payment: ['payment_intent.created'] },
  awaiting_payment: {
    confirming: ['payment_intent.confirming', 'payment_intent.review'],
    cancelled: ['payment_intent.cancelled'],
    expired: ['payment_intent.expired'],
    failed: ['payment_intent.failed'],
  },
  confirming: {
    paid: ['payment_intent.paid'],
    failed: ['payment_intent.failed'],
  },
  paid: { refunded: ['payment_intent.refunded'] },
  expired: {},
  cancelled: {},
  failed: {},
  refunded: {},
};

/**
 * Events recorded without a move: the intent's status stays as it is. Each names the statuses in which
 * it can happen.
 */
export const INTENT_EVENTS_IN_PLACE: Readonly<Partial<Record<EventType, readonly IntentStatus[]>>> = {
  'payment_intent.underpaid': ['awaiting_payment'],
  'payment_intent.overpaid': ['paid'],
  'payment_intent.duplicate_payment': ['paid', 'refunded'],
  'payment_intent.disputed': ['paid'],
};

export class IllegalIntentMove extends Error {
  constructor(
    readonly from: IntentStatus,
    readonly to: IntentStatus | EventType,
  ) {
    super(`illegal payment intent move ${from} -> ${to}`);
    this.name = 'IllegalIntentMove';
  }
}

/** The intent was moved by someone else between our read and our write. */
export class IntentMoveConflict extends Error {
  constructor(readonly intentId: string) {
    super(`payment intent ${intentId} changed concurrently`);
    this.name = 'IntentMoveConflict';
  }
}

export function canMove(from: IntentStatus, to: IntentStatus): boolean {
  return INTENT_MOVES[from][to] !== undefined;
}

export interface MoveContext {
  checkoutUrl: CheckoutUrlFor;
}

export interface MoveOptions {
  /** Milliseconds on the merchant's clock. */
  at: number;
  /** Columns written with the move (paid_at, payment_method, failure_code, ...). */
  patch?: Omit<Updateable<PaymentIntentsTable>, 'status' | 'id' | 'merchant_id' | 'environment'>;
  /** Another event type the table allows for this move (review instead of confirming). */
  eventType?: EventType;
  /** Extra fields for the event's data beside the intent. */
  eventData?: Record<string, unknown>;
}

export async function moveIntent(
  trx: Transaction<DB> | Kysely<DB>,
  ctx: MoveContext,
  intent: PaymentIntentRow,
  to: IntentStatus,
  opts: MoveOptions,
): Promise<PaymentIntentRow> {
  const allowed = INTENT_MOVES[intent.status][to];
  if (!allowed) throw new IllegalIntentMove(intent.status, to);
  const eventType = opts.eventType ?? allowed[0]!;
  if (!allowed.includes(eventType)) throw new IllegalIntentMove(intent.status, eventType);
  const patch = { ...opts.patch, status: to, updated_at: opts.at };
  const res = await trx
    .updateTable('payment_intents')
    .set(patch)
    .where('id', '=', intent.id)
    .where('status', '=', intent.status)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new IntentMoveConflict(intent.id);
  const moved: PaymentIntentRow = { ...intent, ...(patch as Partial<PaymentIntentRow>) };
  await recordIntentEvent(trx, ctx, moved, eventType, opts.at, opts.eventData);
  return moved;
}

/** Records an event that changes no status (underpaid, overpaid, duplicate payment, dispute). */
export async function recordIntentEventInPlace(
  trx: Transaction<DB> | Kysely<DB>,
  ctx: MoveContext,
  intent: PaymentIntentRow,
  type: EventType,
  at: number,
  eventData?: Record<string, unknown>,
): Promise<void> {
  const statuses = INTENT_EVENTS_IN_PLACE[type];
  if (!statuses || !statuses.includes(intent.status)) throw new IllegalIntentMove(intent.status, type);
  await recordIntentEvent(trx, ctx, intent, type, at, eventData);
}

/**
 * The creation move (created -> awaiting_payment) of intents inserted as awaiting_payment: the statements
 * that record their events, for the caller to run in the transaction that inserts them. `views`, when
 * given, are the intents as the API shows them (the events' data), already built by the caller.
 */
export function creationEvents(
  trx: Transaction<DB> | Kysely<DB>,
  ctx: MoveContext,
  intents: readonly PaymentIntentRow[],
  views?: readonly PaymentIntent[],
): EventStatements {
  for (const intent of intents) {
    if (intent.status !== 'awaiting_payment' || !canMove('created', 'awaiting_payment')) {
      throw new IllegalIntentMove('created', intent.status);
    }
  }
  return eventStatements(
    trx,
    intents.map((intent, i) => intentEvent(ctx, intent, 'payment_intent.created', intent.created_at, undefined, views?.[i])),
  );
}

function intentEvent(
  ctx: MoveContext,
  intent: PaymentIntentRow,
  type: EventType,
  at: number,
  extra?: Record<string, unknown>,
  view?: PaymentIntent,
): RecordEventInput {
  const shown = view ?? intentView(intent, ctx.checkoutUrl);
  return {
    merchantId: intent.merchant_id,
    environment: intent.environment,
    type,
    paymentIntentId: intent.id,
    data: extra ? { ...shown, ...extra } : (shown as unknown as Record<string, unknown>),
    at,
  };
}

async function recordIntentEvent(
  trx: Transaction<DB> | Kysely<DB>,
  ctx: MoveContext,
  intent: PaymentIntentRow,
  type: EventType,
  at: number,
  extra?: Record<string, unknown>,
): Promise<void> {
  await recordEvent(trx, intentEvent(ctx, intent, type, at, extra));
}
