// Payment outcomes: what a rail (or the sandbox driver, through the sandbox rail) reports about a pay
// attempt, applied to the intent through the state machine in one transaction with its attempt record,
// its events and the receiving-cap check. Nothing here calls out of the process: rails call providers
// before or after, never inside this transaction.
import type { Merchant, PaymentIntentRow } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import { DAY_MS, isoTime, type MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, roundUp, type SettlementAsset } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import { lockMerchant } from '../merchants/index.js';
import type { RateProvider } from '../rates/index.js';
import { creditDuplicatePayment, freezeSettlementForDispute, settlePayment, type SettlementPolicy } from '../settlements/index.js';
import type { CheckoutUrlFor } from './payment-intent.schema.js';
import { MAX_FAILED_ATTEMPTS, failureMessage, isFailureCode, type FailureCode } from './payment-failures.js';
import type { PaymentMethod } from './payment-methods.js';
import * as repo from './payment-intents.repo.js';
import * as attempts from './payments.repo.js';
import { countRailCall } from '../../shared/metrics.js';
import {
  IntentMoveConflict,
  acceptsOutcome,
  isOverdue,
  moveIntent,
  outcomeFor,
  recordIntentEventInPlace,
  type PaymentOutcome,
} from './state-machine.js';

/** What a rail reports about a pay attempt: the one way a payment reaches an intent. */
export interface PaymentReport {
  intentId: string;
  method: PaymentMethod;
  outcome: PaymentOutcome;
  /** Asset amount received; defaults by outcome (the amount due, half of it, 10 % more). */
  amount?: Decimal;
  /** Why a failed attempt (or a failed payment) failed: one of FAILURE_CODES. */
  failureCode?: string;
  /** The provider's own words about a provider error, shown in the error's message. */
  failureText?: string;
  /** The provider's reference of the money received (the M-Pesa receipt number, a transaction hash). */
  providerReference?: string;
}

/**
 * Checks, inside the payment's transaction, whether the payment link that minted an intent has a place
 * left for one more paid payment (locking the link); answers the refusal when it has none. Provided by the
 * payment-links module.
 */
export type LinkCapCheck = (tx: Tx, linkId: string) => Promise<AppError | null>;

export interface PaymentServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  rates: RateProvider;
  checkoutUrl: CheckoutUrlFor;
  settlementPolicy: SettlementPolicy;
  linkCap: LinkCapCheck;
}

/** Outcomes whose money counts towards the receiving caps. */
const CAP_OUTCOMES = new Set<PaymentOutcome>(['success', 'overpaid', 'underpaid', 'review', 'duplicate', 'seen']);

/** What a report came to: the intent after it and the outcome it meant (a success of a paid intent is a duplicate), or a refusal. */
export type Applied = { ok: true; row: PaymentIntentRow; outcome: PaymentOutcome } | { ok: false; error: AppError };

/**
 * Work of the rail's own that must commit with the outcome or not at all (the chain watcher's record of
 * what a transfer came to): runs in the outcome's transaction, after it; throwing rolls both back.
 */
export type WithinOutcome = (tx: Tx, applied: Applied) => Promise<void>;

/** A failed attempt's code: the rail's, when it is one of the documented codes, else provider_error. */
function failureCodeOf(report: PaymentReport): FailureCode {
  return report.failureCode !== undefined && isFailureCode(report.failureCode) ? report.failureCode : 'provider_error';
}

function notPayable(row: PaymentIntentRow, outcome: PaymentOutcome): AppError {
  return new AppError('intent_not_payable', `A ${outcome} outcome cannot apply to a payment intent that is ${row.status}.`);
}

export class PaymentService {
  readonly checkoutUrl: CheckoutUrlFor;

  constructor(private readonly deps: PaymentServiceDeps) {
    this.checkoutUrl = deps.checkoutUrl;
  }

  /** Applies a rail's report of a pay attempt. Answers the intent's row after the outcome. */
  async apply(scope: MerchantScope, report: PaymentReport, within?: WithinOutcome): Promise<PaymentIntentRow> {
    const clock = await this.deps.clocks.of(scope);
    let applied: Applied;
    try {
      applied = await transaction(this.deps.db, async (tx) => {
        const result = await this.applyIn(tx, clock.nowMs(), scope, report);
        if (within) await within(tx, result);
        return result;
      });
    } catch (err) {
      if (err instanceof IntentMoveConflict) {
        throw new AppError('intent_not_payable', 'The payment intent changed while this payment was applied; retrieve it and retry.');
      }
      throw err;
    }
    countRailCall(scope.environment, report.method, applied.ok ? report.outcome : `refused_${applied.error.code}`);
    if (!applied.ok) throw applied.error;
    return applied.row;
  }

  /** The cap a payment of `usd` would break, or null. */
  private async capBroken(tx: Tx, merchant: Merchant, scope: MerchantScope, usd: Decimal, now: number): Promise<string | null> {
    if (merchant.limit_per_payment !== null && usd.gt(merchant.limit_per_payment)) return 'per-payment';
    if (merchant.limit_daily !== null && (await attempts.acceptedUsdSince(tx, scope, now - DAY_MS)).plus(usd).gt(merchant.limit_daily))
      return 'daily';
    if (
      merchant.limit_monthly !== null &&
      (await attempts.acceptedUsdSince(tx, scope, now - 30 * DAY_MS)).plus(usd).gt(merchant.limit_monthly)
    ) {
      return 'monthly';
    }
    return null;
  }

  private async applyIn(tx: Tx, now: number, scope: MerchantScope, report: PaymentReport): Promise<Applied> {
    // The merchant row is the lock that makes receiving caps hold under concurrent payments.
    const merchant = await lockMerchant(tx, scope.merchantId);
    if (!merchant) throw notFound('merchant', scope.merchantId);
    let row = await repo.lockIntent(tx, scope, report.intentId);
    if (!row) throw notFound('payment_intent', report.intentId);
    const providerRef = report.providerReference === undefined ? {} : { provider_reference: report.providerReference };
    const methods = JSON.parse(row.payment_methods) as string[];
    if (!methods.includes(report.method)) {
      throw new AppError(
        'payment_method_unavailable',
        `Payment method ${report.method} is not allowed on this payment intent (allowed: ${methods.join(', ')}).`,
        {
          param: 'payment_method',
        },
      );
    }
    if (isOverdue(row, now)) {
      await moveIntent(tx, this, row, 'expired', { at: row.expires_at });
      return { ok: false, error: new AppError('intent_not_payable', 'This payment intent expired before the payment arrived.') };
    }

    const asset = row.settlement_currency as SettlementAsset;
    const due = new Decimal(row.pay_amount).minus(row.amount_received);
    const outcome = outcomeFor(row.status, report.outcome);
    // The status decides first: an outcome the intent cannot take is 409 whatever its amount.
    if (!acceptsOutcome(row.status, outcome)) return { ok: false, error: notPayable(row, report.outcome) };
    if (outcome === 'dispute' && row.payment_method !== 'card' && row.payment_method !== 'paypal') {
      return { ok: false, error: new AppError('intent_not_payable', 'Only card and PayPal payments can be disputed.') };
    }

    if (outcome === 'reversed' && (report.providerReference === undefined || row.provider_reference !== report.providerReference)) {
      return { ok: false, error: new AppError('intent_not_payable', 'Another payment is confirming this payment intent.') };
    }

    let amount: Decimal;
    switch (outcome) {
      case 'success':
      case 'review':
      case 'seen':
        amount = report.amount ?? due;
        break;
      case 'reversed':
        amount = report.amount ?? new Decimal(row.amount_received);
        break;
      case 'overpaid':
        amount = report.amount ?? roundUp(due.mul('1.1'), asset);
        if (!amount.gt(due)) {
          return {
            ok: false,
            error: new AppError(
              'parameter_invalid',
              `Invalid amount: an overpayment is more than the ${formatAmount(due, asset)} ${asset} due`,
              { param: 'amount' },
            ),
          };
        }
        break;
      case 'underpaid':
        amount = report.amount ?? roundUp(due.div(2), asset);
        if (!amount.lt(due)) {
          return {
            ok: false,
            error: new AppError(
              'parameter_invalid',
              `Invalid amount: an underpayment is less than the ${formatAmount(due, asset)} ${asset} due`,
              { param: 'amount' },
            ),
          };
        }
        break;
      case 'duplicate':
        amount = report.amount ?? new Decimal(row.pay_amount);
        break;
      default:
        amount = new Decimal(0);
    }

    const usd = amount.mul(this.deps.rates.price(asset, 'USD'));
    const countsToCaps = CAP_OUTCOMES.has(outcome) && amount.gt(0) && !(row.status === 'confirming' && outcome === 'success');
    const attempt = {
      id: newId('payment_attempt'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      payment_intent_id: row.id,
      payment_method: report.method,
      asset,
      amount: formatAmount(amount, asset),
      usd_value: usd.toFixed(),
      created_at: now,
    };
    if (countsToCaps) {
      const broken = await this.capBroken(tx, merchant, scope, usd, now);
      if (broken) {
        await attempts.insertAttempt(tx, { ...attempt, outcome: 'declined', counts_to_caps: 0, failure_code: 'MERCHANT_LIMIT_EXCEEDED' });
        return {
          ok: false,
          error: new AppError(
            'MERCHANT_LIMIT_EXCEEDED',
            `This payment would exceed the merchant's ${broken} receiving limit; it was declined and the payment intent is still awaiting payment.`,
          ),
        };
      }
    }
    // A payment link's cap: the link row is locked there, so concurrent payments never go past it.
    if (row.payment_link !== null && (outcome === 'success' || outcome === 'overpaid')) {
      const full = await this.deps.linkCap(tx, row.payment_link);
      if (full) {
        await attempts.insertAttempt(tx, { ...attempt, outcome: 'declined', counts_to_caps: 0, failure_code: full.code });
        return { ok: false, error: full };
      }
    }
    const failureCode =
      outcome === 'attempt_failed'
        ? failureCodeOf(report)
        : outcome === 'failed'
          ? (report.failureCode ?? 'payment_failed')
          : outcome === 'reversed'
            ? 'chain_reorganization'
            : null;
    await attempts.insertAttempt(tx, { ...attempt, outcome, counts_to_caps: countsToCaps ? 1 : 0, failure_code: failureCode });

    const received = formatAmount(new Decimal(row.amount_received).plus(amount), asset);
    switch (outcome) {
      case 'success':
      case 'overpaid': {
        if (row.status === 'awaiting_payment') {
          row = await moveIntent(tx, this, row, 'confirming', {
            at: now,
            patch: { amount_received: received, payment_method: report.method, last_payment_error: null, ...providerRef },
          });
        }
        // The settlement (and its ledger movement) is made first: the paid event carries its status.
        const settlement = await settlePayment(tx, this.deps.settlementPolicy, merchant, row, now);
        row = await moveIntent(tx, this, row, 'paid', {
          at: now,
          patch: { paid_at: now, payment_method: report.method },
          eventData: {
            settlement_status: settlement.status,
            settlement_available_at: settlement.available_at === null ? null : isoTime(settlement.available_at),
          },
        });
        if (outcome === 'overpaid') {
          const surplus = new Decimal(received).minus(row.pay_amount);
          await recordIntentEventInPlace(tx, this, row, 'payment_intent.overpaid', now, {
            eventData: { surplus: formatAmount(surplus, asset) },
          });
        }
        return { ok: true, row, outcome };
      }
      case 'review':
        row = await moveIntent(tx, this, row, 'confirming', {
          at: now,
          eventType: 'payment_intent.review',
          patch: { amount_received: received, payment_method: report.method, last_payment_error: null, ...providerRef },
        });
        return { ok: true, row, outcome };
      case 'seen':
        // First seen on chain: confirming until the transfer is deep enough (then `success` pays it).
        row = await moveIntent(tx, this, row, 'confirming', {
          at: now,
          patch: { amount_received: received, payment_method: report.method, last_payment_error: null, ...providerRef },
        });
        return { ok: true, row, outcome };
      case 'reversed': {
        // The transfer was removed before its depth: it never pays; its money no longer counts to caps.
        await attempts.releaseSeenAttempts(tx, row.id);
        const back = Decimal.max(0, new Decimal(row.amount_received).minus(amount));
        const error = {
          code: 'provider_error',
          message: `The transfer ${report.providerReference} was removed from the chain by a reorganisation before it was confirmed; it did not pay.`,
          payment_method: report.method,
        };
        row = await moveIntent(tx, this, row, 'awaiting_payment', {
          at: now,
          patch: {
            amount_received: formatAmount(back, asset),
            payment_method: null,
            provider_reference: null,
            last_payment_error: JSON.stringify(error),
          },
        });
        return { ok: true, row, outcome };
      }
      case 'underpaid':
        row = await recordIntentEventInPlace(tx, this, row, 'payment_intent.underpaid', now, {
          patch: { amount_received: received },
          eventData: { amount_due: formatAmount(new Decimal(row.pay_amount).minus(received), asset) },
        });
        return { ok: true, row, outcome };
      case 'failed':
        row = await moveIntent(tx, this, row, 'failed', { at: now, patch: { failure_code: report.failureCode ?? 'payment_failed' } });
        return { ok: true, row, outcome };
      case 'attempt_failed': {
        // The attempt failed; the intent stays payable until the fifth failure, which fails it.
        const code = failureCodeOf(report);
        const error = { code, message: failureMessage(code, report.failureText), payment_method: report.method };
        row = await recordIntentEventInPlace(tx, this, row, 'payment_intent.payment_failed', now, {
          patch: { last_payment_error: JSON.stringify(error) },
        });
        if ((await attempts.countFailedAttempts(tx, row.id)) >= MAX_FAILED_ATTEMPTS) {
          row = await moveIntent(tx, this, row, 'failed', { at: now, patch: { failure_code: code } });
        }
        return { ok: true, row, outcome };
      }
      case 'cancelled':
        row = await moveIntent(tx, this, row, 'cancelled', { at: now, patch: { cancelled_at: now } });
        return { ok: true, row, outcome };
      case 'expired':
        row = await moveIntent(tx, this, row, 'expired', { at: now, patch: { expires_at: now } });
        return { ok: true, row, outcome };
      case 'duplicate':
        await creditDuplicatePayment(tx, row, amount, now);
        await recordIntentEventInPlace(tx, this, row, 'payment_intent.duplicate_payment', now, {
          eventData: { duplicate_amount: formatAmount(amount, asset), duplicate_payment_method: report.method },
        });
        return { ok: true, row, outcome };
      case 'dispute': {
        const frozen = await freezeSettlementForDispute(tx, row, now);
        await recordIntentEventInPlace(tx, this, row, 'payment_intent.disputed', now, {
          eventData: { settlement_status: frozen?.status ?? null },
        });
        return { ok: true, row, outcome };
      }
    }
  }
}
