// Payment outcomes: what a rail (or the sandbox driver, through the sandbox rail) reports about a pay
// attempt, applied to the intent through the state machine in one transaction with its attempt record,
// its events and the receiving-cap check. Nothing here calls out of the process: rails call providers
// before or after, never inside this transaction.
import type { Transaction } from 'kysely';
import type { DB, Merchant, PaymentIntentRow } from '../../db/schema.js';
import { forUpdate } from '../../db/dialect.js';
import { isoTime, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, roundUp, type SettlementAsset } from '../../shared/money.js';
import { DEFAULT_SETTLEMENT_POLICY, creditDuplicatePayment, freezeSettlementForDispute, settlePayment } from '../settlements/index.js';
import type { PaymentMethod } from './payment-methods.js';
import * as repo from './payment-intents.repo.js';
import { clockFor, isOverdue, type IntentContext, type Scope } from './payment-intents.service.js';
import { paymentLinkFull } from '../payment-links/link-cap.js';
import { IntentMoveConflict, moveIntent, recordIntentEventInPlace } from './state-machine.js';

export const PAYMENT_OUTCOMES = [
  'success',
  'failed',
  'underpaid',
  'overpaid',
  'expired',
  'cancelled',
  'review',
  'duplicate',
  'dispute',
] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];

export interface PaymentReport {
  intentId: string;
  method: PaymentMethod;
  outcome: PaymentOutcome;
  /** Asset amount received; defaults by outcome (the amount due, half of it, 10 % more). */
  amount?: Decimal;
  /** Why a failed payment failed (card_declined, insufficient_funds, ...). */
  failureCode?: string;
}

const CAP_OUTCOMES = new Set<PaymentOutcome>(['success', 'overpaid', 'underpaid', 'review', 'duplicate']);
const DAY_MS = 24 * 3_600_000;

type Applied =
  | { ok: true; row: PaymentIntentRow }
  | { ok: false; error: AppError };

function notPayable(row: PaymentIntentRow, outcome: PaymentOutcome): AppError {
  return new AppError('intent_not_payable', `A ${outcome} outcome cannot apply to a payment intent that is ${row.status}.`);
}

/** Sum of accepted attempts' USD value since `sinceMs` (merchant and environment). */
async function acceptedUsdSince(trx: Transaction<DB>, scope: Scope, sinceMs: number): Promise<Decimal> {
  const rows = await trx
    .selectFrom('payment_attempts')
    .select('usd_value')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('counts_to_caps', '=', 1)
    .where('created_at', '>', sinceMs)
    .execute();
  return rows.reduce((sum, r) => sum.plus(r.usd_value), new Decimal(0));
}

/** The cap a payment of `usd` would break, or null. */
async function capBroken(trx: Transaction<DB>, merchant: Merchant, scope: Scope, usd: Decimal, now: number): Promise<string | null> {
  if (merchant.limit_per_payment !== null && usd.gt(merchant.limit_per_payment)) return 'per-payment';
  if (merchant.limit_daily !== null && (await acceptedUsdSince(trx, scope, now - DAY_MS)).plus(usd).gt(merchant.limit_daily)) return 'daily';
  if (merchant.limit_monthly !== null && (await acceptedUsdSince(trx, scope, now - 30 * DAY_MS)).plus(usd).gt(merchant.limit_monthly)) {
    return 'monthly';
  }
  return null;
}

/** Applies a rail's report of a pay attempt. Answers the intent's row after the outcome. */
export async function applyPaymentOutcome(ctx: IntentContext, scope: Scope, report: PaymentReport): Promise<PaymentIntentRow> {
  const clock = await clockFor(ctx, scope);
  let applied: Applied;
  try {
    applied = await ctx.db.transaction().execute((trx) => applyInTransaction(trx, ctx, clock, scope, report));
  } catch (err) {
    if (err instanceof IntentMoveConflict) {
      throw new AppError('intent_not_payable', 'The payment intent changed while this payment was applied; retrieve it and retry.');
    }
    throw err;
  }
  if (!applied.ok) throw applied.error;
  return applied.row;
}

async function applyInTransaction(
  trx: Transaction<DB>,
  ctx: IntentContext,
  clock: Clock,
  scope: Scope,
  report: PaymentReport,
): Promise<Applied> {
  // The merchant row is the lock that makes receiving caps hold under concurrent payments.
  const merchant = await forUpdate(trx, trx.selectFrom('merchants').selectAll().where('id', '=', scope.merchantId)).executeTakeFirst();
  if (!merchant) throw notFound('merchant', scope.merchantId);
  let row = await repo.lockIntent(trx, scope, report.intentId);
  if (!row) throw notFound('payment_intent', report.intentId);
  const now = clock.nowMs();
  const methods = JSON.parse(row.payment_methods) as string[];
  if (!methods.includes(report.method)) {
    throw new AppError('payment_method_unavailable', `Payment method ${report.method} is not allowed on this payment intent (allowed: ${methods.join(', ')}).`, {
      param: 'payment_method',
    });
  }
  if (isOverdue(row, now)) {
    await moveIntent(trx, ctx, row, 'expired', { at: row.expires_at });
    return { ok: false, error: new AppError('intent_not_payable', 'This payment intent expired before the payment arrived.') };
  }

  const asset = row.settlement_currency as SettlementAsset;
  const due = new Decimal(row.pay_amount).minus(row.amount_received);
  let outcome = report.outcome;
  // A payment of an intent that is already paid (or refunded) is a duplicate payment.
  if ((row.status === 'paid' || row.status === 'refunded') && (outcome === 'success' || outcome === 'overpaid')) outcome = 'duplicate';

  // The status decides first: an outcome the intent cannot take is 409 whatever its amount.
  const allowedHere: Record<string, readonly PaymentOutcome[]> = {
    awaiting_payment: ['success', 'failed', 'underpaid', 'overpaid', 'review', 'expired', 'cancelled'],
    confirming: ['success', 'failed'],
    paid: ['duplicate', 'dispute'],
    refunded: ['duplicate'],
  };
  if (!(allowedHere[row.status] ?? []).includes(outcome)) return { ok: false, error: notPayable(row, report.outcome) };
  if (outcome === 'dispute' && row.payment_method !== 'card' && row.payment_method !== 'paypal') {
    return { ok: false, error: new AppError('intent_not_payable', 'Only card and PayPal payments can be disputed.') };
  }

  let amount: Decimal;
  switch (outcome) {
    case 'success':
    case 'review':
      amount = report.amount ?? due;
      break;
    case 'overpaid':
      amount = report.amount ?? roundUp(due.mul('1.1'), asset);
      if (!amount.gt(due)) {
        return { ok: false, error: new AppError('parameter_invalid', `Invalid amount: an overpayment is more than the ${formatAmount(due, asset)} ${asset} due`, { param: 'amount' }) };
      }
      break;
    case 'underpaid':
      amount = report.amount ?? roundUp(due.div(2), asset);
      if (!amount.lt(due)) {
        return { ok: false, error: new AppError('parameter_invalid', `Invalid amount: an underpayment is less than the ${formatAmount(due, asset)} ${asset} due`, { param: 'amount' }) };
      }
      break;
    case 'duplicate':
      amount = report.amount ?? new Decimal(row.pay_amount);
      break;
    default:
      amount = new Decimal(0);
  }

  const usd = amount.mul(ctx.rates.price(asset, 'USD'));
  const countsToCaps = CAP_OUTCOMES.has(outcome) && amount.gt(0) && !(row.status === 'confirming' && outcome === 'success');
  const attempt = {
    id: newId('payment_attempt'),
    merchant_id: scope.merchantId,
    environment: scope.environment,
    payment_intent_id: row.id,
    payment_method: report.method,
    asset,
    created_at: now,
  };
  if (countsToCaps) {
    const broken = await capBroken(trx, merchant, scope, usd, now);
    if (broken) {
      await trx
        .insertInto('payment_attempts')
        .values({ ...attempt, outcome: 'declined', amount: formatAmount(amount, asset), usd_value: usd.toFixed(), counts_to_caps: 0, failure_code: 'MERCHANT_LIMIT_EXCEEDED' })
        .execute();
      return {
        ok: false,
        error: new AppError('MERCHANT_LIMIT_EXCEEDED', `This payment would exceed the merchant's ${broken} receiving limit; it was declined and the payment intent is still awaiting payment.`),
      };
    }
  }
  // A payment link's cap: the link row is locked here, so concurrent payments never go past it.
  if (row.payment_link !== null && (outcome === 'success' || outcome === 'overpaid')) {
    const full = await paymentLinkFull(trx, row.payment_link);
    if (full) {
      await trx
        .insertInto('payment_attempts')
        .values({ ...attempt, outcome: 'declined', amount: formatAmount(amount, asset), usd_value: usd.toFixed(), counts_to_caps: 0, failure_code: full.code })
        .execute();
      return { ok: false, error: full };
    }
  }
  await trx
    .insertInto('payment_attempts')
    .values({
      ...attempt,
      outcome,
      amount: formatAmount(amount, asset),
      usd_value: usd.toFixed(),
      counts_to_caps: countsToCaps ? 1 : 0,
      failure_code: outcome === 'failed' ? report.failureCode ?? 'payment_failed' : null,
    })
    .execute();

  const received = formatAmount(new Decimal(row.amount_received).plus(amount), asset);
  switch (outcome) {
    case 'success':
    case 'overpaid': {
      if (row.status === 'awaiting_payment') {
        row = await moveIntent(trx, ctx, row, 'confirming', { at: now, patch: { amount_received: received, payment_method: report.method } });
      }
      // The settlement (and its ledger movement) is made first: the paid event carries its status.
      const settlement = await settlePayment(trx, ctx.settlementPolicy ?? DEFAULT_SETTLEMENT_POLICY, merchant, row, now);
      row = await moveIntent(trx, ctx, row, 'paid', {
        at: now,
        patch: { paid_at: now, payment_method: report.method },
        eventData: {
          settlement_status: settlement.status,
          settlement_available_at: settlement.available_at === null ? null : isoTime(settlement.available_at),
        },
      });
      if (outcome === 'overpaid') {
        const surplus = new Decimal(received).minus(row.pay_amount);
        await recordIntentEventInPlace(trx, ctx, row, 'payment_intent.overpaid', now, { surplus: formatAmount(surplus, asset) });
      }
      return { ok: true, row };
    }
    case 'review':
      row = await moveIntent(trx, ctx, row, 'confirming', {
        at: now,
        eventType: 'payment_intent.review',
        patch: { amount_received: received, payment_method: report.method },
      });
      return { ok: true, row };
    case 'underpaid': {
      const res = await trx
        .updateTable('payment_intents')
        .set({ amount_received: received, updated_at: now })
        .where('id', '=', row.id)
        .where('status', '=', 'awaiting_payment')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new IntentMoveConflict(row.id);
      row = { ...row, amount_received: received, updated_at: now };
      await recordIntentEventInPlace(trx, ctx, row, 'payment_intent.underpaid', now, {
        amount_due: formatAmount(new Decimal(row.pay_amount).minus(received), asset),
      });
      return { ok: true, row };
    }
    case 'failed':
      row = await moveIntent(trx, ctx, row, 'failed', { at: now, patch: { failure_code: report.failureCode ?? 'payment_failed' } });
      return { ok: true, row };
    case 'cancelled':
      row = await moveIntent(trx, ctx, row, 'cancelled', { at: now, patch: { cancelled_at: now } });
      return { ok: true, row };
    case 'expired':
      row = await moveIntent(trx, ctx, row, 'expired', { at: now, patch: { expires_at: now } });
      return { ok: true, row };
    case 'duplicate':
      await creditDuplicatePayment(trx, row, amount, now);
      await recordIntentEventInPlace(trx, ctx, row, 'payment_intent.duplicate_payment', now, {
        duplicate_amount: formatAmount(amount, asset),
        duplicate_payment_method: report.method,
      });
      return { ok: true, row };
    case 'dispute': {
      const frozen = await freezeSettlementForDispute(trx, row, now);
      await recordIntentEventInPlace(trx, ctx, row, 'payment_intent.disputed', now, { settlement_status: frozen?.status ?? null });
      return { ok: true, row };
    }
  }
}

