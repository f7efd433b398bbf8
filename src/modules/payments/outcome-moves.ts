// What each accepted payment outcome does to its intent, through the state machine, in the payment's
// transaction: the moves (and events recorded in place), the settlement of a paid intent, the credit of a
// duplicate payment, the freeze of a disputed settlement.
import type { Merchant, PaymentIntentRow } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { isoTime } from '../../shared/clock.js';
import { Decimal, formatAmount, type SettlementAsset } from '../../shared/money.js';
import {
  MAX_FAILED_ATTEMPTS,
  failureMessage,
  moveIntent,
  recordIntentEventInPlace,
  type FailureCode,
  type MoveContext,
  type PaymentMethod,
  type PaymentOutcome,
  type StoredDispute,
} from '../payment-intents/index.js';
import {
  closeDisputeOnSettlement,
  creditDuplicatePayment,
  freezeSettlementForDispute,
  lockSettlementOfIntent,
  settlePayment,
  type SettlementPolicy,
} from '../settlements/index.js';
import * as attempts from './payments.repo.js';

/** An accepted outcome, with what it received and what the rail said of it. */
export interface AcceptedOutcome {
  outcome: PaymentOutcome;
  method: PaymentMethod;
  /** Received with this outcome, in the settlement asset. */
  amount: Decimal;
  /** The failure code of a failed attempt or a failed payment. */
  failureCode: string | null;
  failureText?: string;
  providerReference?: string;
  /** A chargeback's reason, as its provider gives it. */
  disputeReason?: string;
}

export interface MoveDeps {
  ctx: MoveContext;
  settlementPolicy: SettlementPolicy;
}

/** Moves the intent as the outcome says; answers the intent after it. */
export async function moveForOutcome(
  tx: Tx,
  deps: MoveDeps,
  merchant: Merchant,
  row: PaymentIntentRow,
  accepted: AcceptedOutcome,
  now: number,
): Promise<PaymentIntentRow> {
  switch (accepted.outcome) {
    case 'success':
    case 'overpaid':
      return pay(tx, deps, merchant, row, accepted, now);
    case 'review':
    case 'seen':
      return confirm(tx, deps.ctx, row, accepted, now);
    case 'reversed':
      return reverse(tx, deps.ctx, row, accepted, now);
    case 'underpaid':
      return recordIntentEventInPlace(tx, deps.ctx, row, 'payment_intent.underpaid', now, {
        patch: { amount_received: receivedAfter(row, accepted.amount) },
        eventData: { amount_due: formatAmount(new Decimal(row.pay_amount).minus(receivedAfter(row, accepted.amount)), assetOf(row)) },
      });
    case 'failed':
      return moveIntent(tx, deps.ctx, row, 'failed', { at: now, patch: { failure_code: accepted.failureCode ?? 'payment_failed' } });
    case 'attempt_failed':
      return failAttempt(tx, deps.ctx, row, accepted, now);
    case 'cancelled':
      return moveIntent(tx, deps.ctx, row, 'cancelled', { at: now, patch: { cancelled_at: now } });
    case 'expired':
      return moveIntent(tx, deps.ctx, row, 'expired', { at: now, patch: { expires_at: now } });
    case 'duplicate':
      await creditDuplicatePayment(tx, row, accepted.amount, now);
      return recordIntentEventInPlace(tx, deps.ctx, row, 'payment_intent.duplicate_payment', now, {
        eventData: { duplicate_amount: formatAmount(accepted.amount, assetOf(row)), duplicate_payment_method: accepted.method },
      });
    case 'dispute':
      return openDispute(tx, deps.ctx, row, accepted, now);
    case 'dispute_won':
    case 'dispute_lost':
      return closeDispute(tx, deps.ctx, row, accepted.outcome === 'dispute_won', now);
  }
}

/** A chargeback opens: the intent stays paid and carries it; its settlement is frozen. */
async function openDispute(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, accepted: AcceptedOutcome, now: number) {
  const settlement = await lockSettlementOfIntent(tx, row.id);
  const dispute: StoredDispute = {
    status: 'open',
    reason: accepted.disputeReason ?? null,
    amount: row.amount,
    currency: row.currency,
    opened_at: isoTime(now),
    closed_at: null,
    settlement_available_at: settlement?.available_at ?? null,
  };
  const frozen = await freezeSettlementForDispute(tx, row, now);
  return recordIntentEventInPlace(tx, ctx, row, 'payment_intent.disputed', now, {
    patch: { dispute: JSON.stringify(dispute) },
    eventData: { settlement_status: frozen?.status ?? null },
  });
}

/** A chargeback closes, won (the settlement is as it was) or lost (its amount leaves the balance). */
async function closeDispute(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, won: boolean, now: number) {
  const open = JSON.parse(row.dispute!) as StoredDispute;
  const settlement = await closeDisputeOnSettlement(tx, row, won, open.settlement_available_at ?? null, now);
  const closed: StoredDispute = { ...open, status: won ? 'won' : 'lost', closed_at: isoTime(now) };
  return recordIntentEventInPlace(tx, ctx, row, 'payment_intent.dispute_closed', now, {
    patch: { dispute: JSON.stringify(closed) },
    eventData: { settlement_status: settlement?.status ?? null },
  });
}

const assetOf = (row: PaymentIntentRow) => row.settlement_currency as SettlementAsset;

/** The intent's amount received once this outcome's amount is added. */
function receivedAfter(row: PaymentIntentRow, amount: Decimal): string {
  return formatAmount(new Decimal(row.amount_received).plus(amount), assetOf(row));
}

/** The columns a payment that reaches the intent writes as it moves to confirming. */
function receivedPatch(row: PaymentIntentRow, accepted: AcceptedOutcome) {
  return {
    amount_received: receivedAfter(row, accepted.amount),
    payment_method: accepted.method,
    last_payment_error: null,
    ...(accepted.providerReference === undefined ? {} : { provider_reference: accepted.providerReference }),
  };
}

/** Success or overpayment: confirming (when awaiting payment), settled, then paid; an overpayment records its surplus. */
async function pay(
  tx: Tx,
  deps: MoveDeps,
  merchant: Merchant,
  row: PaymentIntentRow,
  accepted: AcceptedOutcome,
  now: number,
): Promise<PaymentIntentRow> {
  const received = receivedAfter(row, accepted.amount);
  if (row.status === 'awaiting_payment') {
    row = await moveIntent(tx, deps.ctx, row, 'confirming', { at: now, patch: receivedPatch(row, accepted) });
  }
  // The settlement (and its ledger movement) is made first: the paid event carries its status.
  const settlement = await settlePayment(tx, deps.settlementPolicy, merchant, row, now);
  row = await moveIntent(tx, deps.ctx, row, 'paid', {
    at: now,
    patch: { paid_at: now, payment_method: accepted.method },
    eventData: {
      settlement_status: settlement.status,
      settlement_available_at: settlement.available_at === null ? null : isoTime(settlement.available_at),
    },
  });
  if (accepted.outcome === 'overpaid') {
    const surplus = new Decimal(received).minus(row.pay_amount);
    await recordIntentEventInPlace(tx, deps.ctx, row, 'payment_intent.overpaid', now, {
      eventData: { surplus: formatAmount(surplus, assetOf(row)) },
    });
  }
  return row;
}

/** Review (an operator decides) or a first sighting on chain (the depth decides): confirming until then. */
function confirm(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, accepted: AcceptedOutcome, now: number): Promise<PaymentIntentRow> {
  return moveIntent(tx, ctx, row, 'confirming', {
    at: now,
    ...(accepted.outcome === 'review' ? { eventType: 'payment_intent.review' as const } : {}),
    patch: receivedPatch(row, accepted),
  });
}

/** The transfer that was confirming the intent was removed before its depth: it never pays; payable again. */
async function reverse(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, accepted: AcceptedOutcome, now: number): Promise<PaymentIntentRow> {
  await attempts.releaseSeenAttempts(tx, row.id);
  const back = Decimal.max(0, new Decimal(row.amount_received).minus(accepted.amount));
  const error = {
    code: 'provider_error',
    message:
      accepted.method === 'paypal'
        ? `PayPal denied the pending capture ${accepted.providerReference}; it did not pay.`
        : `The transfer ${accepted.providerReference} was removed from the chain by a reorganisation before it was confirmed; it did not pay.`,
    payment_method: accepted.method,
  };
  return moveIntent(tx, ctx, row, 'awaiting_payment', {
    at: now,
    patch: {
      amount_received: formatAmount(back, assetOf(row)),
      payment_method: null,
      provider_reference: null,
      last_payment_error: JSON.stringify(error),
    },
  });
}

/** A failed attempt: the intent stays payable, with the failure shown, until the fifth one fails it. */
async function failAttempt(tx: Tx, ctx: MoveContext, row: PaymentIntentRow, accepted: AcceptedOutcome, now: number) {
  const code = accepted.failureCode as FailureCode;
  const error = { code, message: failureMessage(code, accepted.failureText), payment_method: accepted.method };
  row = await recordIntentEventInPlace(tx, ctx, row, 'payment_intent.payment_failed', now, {
    patch: { last_payment_error: JSON.stringify(error) },
  });
  if ((await attempts.countFailedAttempts(tx, row.id)) >= MAX_FAILED_ATTEMPTS) {
    row = await moveIntent(tx, ctx, row, 'failed', { at: now, patch: { failure_code: code } });
  }
  return row;
}
