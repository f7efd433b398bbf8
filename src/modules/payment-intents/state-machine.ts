// The payment intent state machine: the tables of allowed moves, of the events recorded without a move,
// and of the payment outcomes each status accepts; the rule that an intent awaiting payment past its
// expiry is expired; and the one function through which every move goes (creation, the checkout, the
// sandbox driver, rail callbacks, the expiry sweep, refunds). A move is a conditional UPDATE
// (`WHERE status = <from>`) plus its event, in the caller's transaction: of two concurrent moves of one
// intent exactly one wins; the loser sees IntentMoveConflict. An illegal move throws IllegalIntentMove
// and writes nothing.
import type { PaymentIntentRow } from '../../db/schema.js';
import { afterCommitOrNow, type Tx } from '../../db/transaction.js';
import { countIntentMove } from '../../shared/metrics.js';
import { RawJson } from '../../shared/raw-json.js';
import { addEvents, recordEvent, type EventType, type LeadingInsert, type RecordEventInput } from '../events/index.js';
import type { WriteBatch, Db } from '../../db/transaction.js';
import { intentView, type CheckoutUrlFor, type IntentStatus, type PaymentIntent } from './payment-intent.schema.js';
import * as repo from './payment-intents.repo.js';
import type { IntentPatch } from './payment-intents.repo.js';

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
    // The on-chain transfer that was confirming it was removed by a reorganisation: payable again.
    awaiting_payment: ['payment_intent.payment_failed'],
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
  'payment_intent.dispute_closed': ['paid'],
  'payment_intent.payment_failed': ['awaiting_payment'],
};

/**
 * What a pay attempt can come to. `attempt_failed` is a failed attempt: the intent stays payable (the fifth
 * one fails it); `failed` and `cancelled` end the intent at once (the sandbox driver's outcomes).
 */
export const PAYMENT_OUTCOMES = [
  'success',
  'failed',
  'attempt_failed',
  'underpaid',
  'overpaid',
  'expired',
  'cancelled',
  'review',
  'duplicate',
  'dispute',
  'dispute_won',
  'dispute_lost',
] as const;

/**
 * Outcomes only the on-chain rail reports: `seen`, a transfer of the exact amount first seen on chain (the
 * intent waits in `confirming` for its depth); `reversed`, that transfer removed by a reorganisation
 * before its depth (the intent is payable again).
 */
export const CHAIN_OUTCOMES = ['seen', 'reversed'] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number] | (typeof CHAIN_OUTCOMES)[number];

/**
 * The payment outcomes each status accepts (after a success of a paid or refunded intent has been read as
 * a duplicate payment); any other is refused with 409 intent_not_payable, whatever its amount.
 */
export const OUTCOMES_BY_STATUS: Readonly<Partial<Record<IntentStatus, readonly PaymentOutcome[]>>> = {
  awaiting_payment: ['success', 'failed', 'attempt_failed', 'underpaid', 'overpaid', 'review', 'expired', 'cancelled', 'seen'],
  confirming: ['success', 'failed', 'reversed'],
  paid: ['duplicate', 'dispute', 'dispute_won', 'dispute_lost'],
  refunded: ['duplicate'],
};

/** The outcome a report means for an intent in its status: paying a paid (or refunded) intent again is a duplicate. */
export function outcomeFor(status: IntentStatus, reported: PaymentOutcome): PaymentOutcome {
  return (status === 'paid' || status === 'refunded') && (reported === 'success' || reported === 'overpaid') ? 'duplicate' : reported;
}

export function acceptsOutcome(status: IntentStatus, outcome: PaymentOutcome): boolean {
  return (OUTCOMES_BY_STATUS[status] ?? []).includes(outcome);
}

/**
 * An intent awaiting payment past its expiry (by its merchant's clock) is expired, even before the sweep
 * has moved it: nothing shows or pays it as awaiting payment.
 */
export function isOverdue(row: Pick<PaymentIntentRow, 'status' | 'expires_at'>, nowMs: number): boolean {
  return row.status === 'awaiting_payment' && row.expires_at <= nowMs;
}

/**
 * Whether an intent can still take a payment now: awaiting payment and not past its expiry (by its
 * merchant's clock). The one answer to "can this intent still be paid?" for the checkout, the links, the
 * rails and the wallet allocations.
 */
export function isPayable(row: Pick<PaymentIntentRow, 'status' | 'expires_at'>, nowMs: number): boolean {
  return row.status === 'awaiting_payment' && row.expires_at > nowMs;
}

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
  patch?: IntentPatch;
  /** Another event type the table allows for this move (review instead of confirming). */
  eventType?: EventType;
  /** Extra fields for the event's data beside the intent. */
  eventData?: Record<string, unknown>;
}

export async function moveIntent(
  tx: Tx,
  ctx: MoveContext,
  intent: PaymentIntentRow,
  to: IntentStatus,
  opts: MoveOptions,
): Promise<PaymentIntentRow> {
  const allowed = INTENT_MOVES[intent.status][to];
  if (!allowed) throw new IllegalIntentMove(intent.status, to);
  const eventType = opts.eventType ?? allowed[0]!;
  if (!allowed.includes(eventType)) throw new IllegalIntentMove(intent.status, eventType);
  const moved = await write(tx, intent, { ...opts.patch, status: to, updated_at: opts.at });
  await recordEvent(tx, intentEvent(ctx, moved, eventType, opts.at, opts.eventData));
  const from = intent.status;
  afterCommitOrNow(tx, () => countIntentMove(from, to));
  return moved;
}

/**
 * Records an event that changes no status (underpaid, overpaid, duplicate payment, dispute), with the
 * columns it writes (`patch`, under the same condition as a move).
 */
export async function recordIntentEventInPlace(
  tx: Tx,
  ctx: MoveContext,
  intent: PaymentIntentRow,
  type: EventType,
  at: number,
  opts: { eventData?: Record<string, unknown>; patch?: IntentPatch } = {},
): Promise<PaymentIntentRow> {
  const statuses = INTENT_EVENTS_IN_PLACE[type];
  if (!statuses || !statuses.includes(intent.status)) throw new IllegalIntentMove(intent.status, type);
  const current = opts.patch ? await write(tx, intent, { ...opts.patch, updated_at: at }) : intent;
  await recordEvent(tx, intentEvent(ctx, current, type, at, opts.eventData));
  return current;
}

/** The move's (or in-place event's) columns, written only while the intent still has the status read. */
async function write(tx: Tx, intent: PaymentIntentRow, patch: IntentPatch & { status?: IntentStatus }): Promise<PaymentIntentRow> {
  if (!(await repo.updateIfStatus(tx, intent.id, intent.status, patch))) throw new IntentMoveConflict(intent.id);
  return { ...intent, ...(patch as Partial<PaymentIntentRow>) };
}

/** An intent past its expiry moves to expired, at its expiry; answers the row as it now is. */
export async function expireIfOverdue(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, nowMs: number): Promise<PaymentIntentRow> {
  if (!isOverdue(row, nowMs)) return row;
  return moveIntent(tx, ctx, row, 'expired', { at: row.expires_at });
}

/**
 * The creation move (created -> awaiting_payment) of intents inserted as awaiting_payment: their events,
 * added to the batch that inserts them. `views` are the intents as the API shows them (the events' data).
 */
export function addCreationEvents(
  db: Db | Tx,
  batch: WriteBatch,
  intents: readonly PaymentIntentRow[],
  /** What each creation event shows: the view, or its JSON text when already written. */
  views: ReadonlyArray<PaymentIntent | RawJson>,
  /** The intents' own INSERT, written with their events. */
  before?: LeadingInsert<PaymentIntentRow>,
): void {
  for (const intent of intents) {
    if (intent.status !== 'awaiting_payment' || !canMove('created', 'awaiting_payment')) {
      throw new IllegalIntentMove('created', intent.status);
    }
  }
  addEvents(
    db,
    batch,
    intents.map((intent, i) => creationEvent(intent, views[i]!)),
    before,
  );
}

/** The creation event of an intent, showing the intent as its creation's response did. */
function creationEvent(intent: PaymentIntentRow, view: PaymentIntent | RawJson): RecordEventInput {
  return {
    merchantId: intent.merchant_id,
    environment: intent.environment,
    type: 'payment_intent.created',
    paymentIntentId: intent.id,
    data: view instanceof RawJson ? view : (view as unknown as Record<string, unknown>),
    at: intent.created_at,
  };
}

function intentEvent(
  ctx: MoveContext,
  intent: PaymentIntentRow,
  type: EventType,
  at: number,
  extra?: Record<string, unknown>,
): RecordEventInput {
  const shown = intentView(intent, ctx.checkoutUrl);
  return {
    merchantId: intent.merchant_id,
    environment: intent.environment,
    type,
    paymentIntentId: intent.id,
    data: extra ? { ...shown, ...extra } : (shown as unknown as Record<string, unknown>),
    at,
  };
}
