// Payment outcomes: what a rail (or the sandbox driver, through the sandbox rail) learnt about a pay attempt,
// applied to the intent in one transaction with its attempt record, its events, the receiving caps and the
// payment link's cap. Nothing here calls out of the process: rails call their providers before or after,
// never inside this transaction. A rail with records of its own changes them in the same transaction, by
// calling `applyIn` inside it.
import type { Merchant, PaymentIntentRow } from '../../db/schema.js';
import { afterCommitOrNow, transaction, type CommitWith, type Db, type Tx } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { countRailCall } from '../../shared/metrics.js';
import { formatAmount, type Decimal, type SettlementAsset } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import { lockMerchant } from '../merchants/index.js';
import {
  IntentMoveConflict,
  acceptsOutcome,
  isFailureCode,
  isOverdue,
  lockIntent,
  moveIntent,
  outcomeFor,
  type CheckoutUrlFor,
  type PaymentMethod,
  type PaymentOutcome,
} from '../payment-intents/index.js';
import type { LinkService } from '../payment-links/index.js';
import type { RateProvider } from '../rates/index.js';
import type { SettlementPolicy } from '../settlements/index.js';
import { amountOf } from './outcome-amounts.js';
import { moveForOutcome, type AcceptedOutcome } from './outcome-moves.js';
import * as attempts from './payments.repo.js';
import { capBroken, capRefusal, countsToCaps, linkFull } from './receiving-limits.js';

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
  /** A chargeback's reason, as its provider gives it (`dispute`). */
  disputeReason?: string;
}

/** What a report came to: the intent after it and the outcome it meant (a success of a paid intent is a duplicate), or a refusal. */
export type Applied = { ok: true; row: PaymentIntentRow; outcome: PaymentOutcome } | { ok: false; error: AppError };

export interface PaymentServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  rates: RateProvider;
  checkoutUrl: CheckoutUrlFor;
  settlementPolicy: SettlementPolicy;
  /** The payment link's cap on paid payments. */
  links: Pick<LinkService, 'capCheck'>;
}

type Refusal = { ok: false; error: AppError };
const refused = (error: AppError): Refusal => ({ ok: false, error });

export class PaymentService {
  readonly checkoutUrl: CheckoutUrlFor;

  constructor(private readonly deps: PaymentServiceDeps) {
    this.checkoutUrl = deps.checkoutUrl;
  }

  /**
   * Applies a report in a transaction of its own; answers the intent after it, or throws the refusal. What
   * commits with an applied outcome (the sandbox driver's idempotent response) is written in it.
   */
  async apply(scope: MerchantScope, report: PaymentReport, commitWith?: CommitWith<PaymentIntentRow>): Promise<PaymentIntentRow> {
    let applied: Applied;
    try {
      applied = await transaction(this.deps.db, async (tx) => {
        const result = await this.applyIn(tx, scope, report);
        if (result.ok) await commitWith?.inTransaction(tx, result.row);
        return result;
      });
    } catch (err) {
      if (!(err instanceof IntentMoveConflict)) throw err;
      throw new AppError('intent_not_payable', 'The payment intent changed while this payment was applied; retrieve it and retry.');
    }
    if (!applied.ok) throw applied.error;
    return applied.row;
  }

  /**
   * Applies a report in the caller's transaction (a rail writes its own record of the attempt beside it):
   * answers what it came to. A refusal is an answer, not an exception, and what the refusal wrote (a
   * declined attempt, an expiry) commits with the caller's transaction. An intent moved by someone else
   * meanwhile throws IntentMoveConflict: the caller's transaction must roll back.
   */
  async applyIn(tx: Tx, scope: MerchantScope, report: PaymentReport): Promise<Applied> {
    const now = await this.deps.clocks.nowMs(scope);
    const applied = await this.applyLocked(tx, now, scope, report);
    afterCommitOrNow(tx, () =>
      countRailCall(scope.environment, report.method, applied.ok ? report.outcome : `refused_${applied.error.code}`),
    );
    return applied;
  }

  private async applyLocked(tx: Tx, now: number, scope: MerchantScope, report: PaymentReport): Promise<Applied> {
    // The merchant row is the lock that makes receiving caps hold under concurrent payments.
    const merchant = await lockMerchant(tx, scope.merchantId);
    if (!merchant) throw notFound('merchant', scope.merchantId);
    const row = await lockIntent(tx, scope, report.intentId);
    if (!row) throw notFound('payment_intent', report.intentId);
    const outcome = await this.acceptedOutcome(tx, row, report, now);
    if (typeof outcome !== 'string') return outcome;
    const amount = amountOf(outcome, row, report.amount);
    if (amount instanceof AppError) return refused(amount);
    const accepted: AcceptedOutcome = {
      outcome,
      method: report.method,
      amount,
      failureCode: failureCodeOf(outcome, report),
      ...(report.failureText === undefined ? {} : { failureText: report.failureText }),
      ...(report.providerReference === undefined ? {} : { providerReference: report.providerReference }),
      ...(report.disputeReason === undefined ? {} : { disputeReason: report.disputeReason }),
    };
    const declined = await this.recordAttempt(tx, merchant, scope, row, accepted, now);
    if (declined) return refused(declined);
    const moved = await moveForOutcome(tx, { ctx: this, settlementPolicy: this.deps.settlementPolicy }, merchant, row, accepted, now);
    return { ok: true, row: moved, outcome };
  }

  /** The outcome the report means for the intent as it is, or the refusal (an overdue intent is expired first). */
  private async acceptedOutcome(tx: Tx, row: PaymentIntentRow, report: PaymentReport, now: number): Promise<PaymentOutcome | Refusal> {
    const methods = JSON.parse(row.payment_methods) as string[];
    if (!methods.includes(report.method)) {
      return refused(
        new AppError(
          'payment_method_unavailable',
          `Payment method ${report.method} is not allowed on this payment intent (allowed: ${methods.join(', ')}).`,
          { param: 'payment_method' },
        ),
      );
    }
    if (isOverdue(row, now)) {
      await moveIntent(tx, this, row, 'expired', { at: row.expires_at });
      return refused(new AppError('intent_not_payable', 'This payment intent expired before the payment arrived.'));
    }
    const outcome = outcomeFor(row.status, report.outcome);
    // The status decides first: an outcome the intent cannot take is refused whatever its amount.
    if (!acceptsOutcome(row.status, outcome)) {
      return refused(
        new AppError('intent_not_payable', `A ${report.outcome} outcome cannot apply to a payment intent that is ${row.status}.`),
      );
    }
    const disputeRefusal = disputeRule(row, outcome);
    if (disputeRefusal) return refused(disputeRefusal);
    if (outcome === 'reversed' && (report.providerReference === undefined || row.provider_reference !== report.providerReference)) {
      return refused(new AppError('intent_not_payable', 'Another payment is confirming this payment intent.'));
    }
    return outcome;
  }

  /** Records the attempt; a payment over a receiving cap or past its link's cap is recorded declined and refused. */
  private async recordAttempt(
    tx: Tx,
    merchant: Merchant,
    scope: MerchantScope,
    row: PaymentIntentRow,
    accepted: AcceptedOutcome,
    now: number,
  ): Promise<AppError | null> {
    const asset = row.settlement_currency as SettlementAsset;
    // The payment is made: valued at the last known price even when it is stale, never refused for it.
    const usd = accepted.amount.mul(this.deps.rates.lastKnownPrice(asset, 'USD'));
    const counts = countsToCaps(accepted.outcome, row, accepted.amount);
    const attempt = {
      id: newId('payment_attempt'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      payment_intent_id: row.id,
      payment_method: accepted.method,
      asset,
      amount: formatAmount(accepted.amount, asset),
      usd_value: usd.toFixed(),
      created_at: now,
    };
    const cap = counts ? await capBroken(tx, merchant, scope, usd, now) : null;
    const refusal = cap ? capRefusal(cap) : await linkFull(tx, this.deps.links, row, accepted.outcome);
    if (refusal) {
      await attempts.insertAttempt(tx, { ...attempt, outcome: 'declined', counts_to_caps: 0, failure_code: refusal.code });
      return refusal;
    }
    await attempts.insertAttempt(tx, {
      ...attempt,
      outcome: accepted.outcome,
      counts_to_caps: counts ? 1 : 0,
      failure_code: accepted.failureCode,
    });
    return null;
  }
}

/** The failure code an outcome records: a failed attempt's documented code (else provider_error), a failed payment's, a reorganisation. */
function failureCodeOf(outcome: PaymentOutcome, report: PaymentReport): string | null {
  switch (outcome) {
    case 'attempt_failed':
      return report.failureCode !== undefined && isFailureCode(report.failureCode) ? report.failureCode : 'provider_error';
    case 'failed':
      return report.failureCode ?? 'payment_failed';
    case 'reversed':
      return 'chain_reorganization';
    default:
      return null;
  }
}

/** A dispute opens once on a card or PayPal payment, and only an open one closes. */
function disputeRule(row: PaymentIntentRow, outcome: PaymentOutcome): AppError | null {
  if (outcome === 'dispute') {
    if (row.payment_method !== 'card' && row.payment_method !== 'paypal')
      return new AppError('intent_not_payable', 'Only card and PayPal payments can be disputed.');
    if (row.dispute !== null) return new AppError('intent_not_payable', 'This payment has been disputed already.');
  }
  if ((outcome === 'dispute_won' || outcome === 'dispute_lost') && (row.dispute === null || JSON.parse(row.dispute).status !== 'open'))
    return new AppError('intent_not_payable', 'This payment has no open dispute to close.');
  return null;
}
