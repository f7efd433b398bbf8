// The live PayPal rail (Orders v2): the attempt is recorded, then an order is created with the attempt's id
// as `PayPal-Request-Id` (so a crash before its answer is recorded is healed by asking again: PayPal answers
// the same order), and the customer is sent to its approval link. The customer's return, the cancel URL, a
// webhook and the questions are hints; the order's own status (and the capture it holds) decides, and the
// capture is idempotent (`PayPal-Request-Id` `capture-<attempt id>`). No transaction is held across a call
// to PayPal; a payment stays `pending` until its outcome and the intent's move commit together.
import type { Logger } from 'pino';
import type { RailPaymentRow } from '../../../db/schema.js';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import { AppError } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import { Decimal } from '../../../shared/money.js';
import type { MerchantScope } from '../../../shared/scope.js';
import {
  findIntent,
  isPayable,
  type PaymentRail,
  type ProviderRefund,
  type RefundRequest,
  type RefundResult,
  type RefundToSend,
  type StartPaymentRequest,
  type StartPaymentResult,
} from '../../payment-intents/index.js';
import type { PaymentService } from '../../payments/index.js';
import { resolveRailPayment, scopeOfRailPayment, type RailOutcome } from '../rail-outcomes.js';
import * as repo from '../rail-payments.repo.js';
import { PaypalError, type PaypalClient, type PaypalOrder } from './paypal-client.js';

/** What the rail needs of a PayPal client (paypal-client.ts is one). */
export type PaypalApi = Pick<PaypalClient, 'createOrder' | 'getOrder' | 'captureOrder' | 'refundCapture' | 'getRefund' | 'verifyWebhook'>;

export interface PaypalRailOptions {
  db: Db;
  clocks: MerchantClocks;
  client: PaypalApi;
  /** The live origin: the customer comes back to `<origin>/rails/paypal/return` or `/cancel`. */
  returnOrigin: string;
  /** First look-up this long after the redirect; then doubling, up to five minutes. */
  queryAfterMs: number;
  logger?: Logger;
}

/** What a PayPal rail payment keeps. */
export interface PaypalDetails {
  /** The order's amount as sent: PayPal's decimals for the currency. */
  value: string;
  currency: string;
  approve_url?: string;
  /** The capture, once PayPal made one that is still PENDING (the intent is `confirming` meanwhile). */
  pending_capture?: string;
}

const MAX_QUESTION_GAP_MS = 5 * 60_000;
/** Of Cowrie's currencies, those PayPal takes live (never KES). */
export const PAYPAL_CURRENCIES = ['USD', 'EUR', 'GBP'] as const;
/** Currencies PayPal takes without decimals. */
const WHOLE_CURRENCIES = new Set(['HUF', 'JPY', 'TWD']);

/** The order's value: PayPal's decimals for the currency (none for HUF, JPY and TWD, else two), rounded up. */
export function paypalValue(amount: string, currency: string): string {
  const places = WHOLE_CURRENCIES.has(currency) ? 0 : 2;
  return new Decimal(amount).toDecimalPlaces(places, Decimal.ROUND_CEIL).toFixed(places);
}

/** What a look-up or capture came to: an outcome, a pending capture, the approval again, or nothing yet. */
type Verdict = { outcome: RailOutcome } | { pendingCapture: string } | { approveAgain: string } | null;

export class PaypalRail implements PaymentRail {
  readonly name = 'paypal';
  readonly methods = ['paypal'] as const;

  constructor(
    private readonly payments: PaymentService,
    private readonly opts: PaypalRailOptions,
  ) {}

  private now(): number {
    return this.opts.clocks.base.nowMs();
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const { intent } = request;
    if (!(PAYPAL_CURRENCIES as readonly string[]).includes(intent.currency)) {
      throw new AppError('payment_method_unavailable', 'PayPal takes USD, EUR and GBP only.', { param: 'method' });
    }
    const details: PaypalDetails = { value: paypalValue(intent.amount, intent.currency), currency: intent.currency };
    const row = this.railPayment(request, details);
    // The attempt is recorded before PayPal is called: a crash after the call leaves it to the questions.
    await repo.insertRailPayment(this.opts.db, row);
    let order: PaypalOrder;
    try {
      order = await this.createOrder(row, details);
      if (!order.approveUrl) throw new PaypalError(200, 'NO_APPROVAL_LINK', 'the order has no approval link', null, null);
    } catch (err) {
      this.logFailure(err, row.id, 'PayPal order not created');
      const text = err instanceof PaypalError ? err.clearText : 'PayPal could not be reached';
      const failed = { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: text } as const;
      const resolved = await resolveRailPayment(this.opts.db, this.payments, row, 'pending', failed, this.now());
      return { state: 'completed', intent: resolved && 'intent' in resolved ? resolved.intent : intent };
    }
    const kept = JSON.stringify({ ...details, approve_url: order.approveUrl });
    await repo.setProviderRequest(this.opts.db, row.id, order.id, kept, this.now());
    // The checkout's own step answers 303 to the approval link (its CSP keeps forms on its origin).
    const url = `/checkout/${intent.id}/paypal/${row.id}`;
    return { state: 'pending', reference: row.id, intent, nextAction: { type: 'redirect', url } };
  }

  private createOrder(row: RailPaymentRow, details: PaypalDetails): Promise<PaypalOrder> {
    return this.opts.client.createOrder({
      requestId: row.id,
      referenceId: row.payment_intent_id,
      customId: row.id,
      amount: { currency_code: details.currency, value: details.value },
      returnUrl: `${this.opts.returnOrigin}/rails/paypal/return`,
      cancelUrl: `${this.opts.returnOrigin}/rails/paypal/cancel`,
    });
  }

  private logFailure(err: unknown, railPayment: string, what: string): void {
    const debugId = err instanceof PaypalError ? err.debugId : null;
    this.opts.logger?.warn({ err, rail_payment: railPayment, paypal_debug_id: debugId }, what);
  }

  private railPayment(request: StartPaymentRequest, details: PaypalDetails): RailPaymentRow {
    const now = this.now();
    return {
      id: newId('rail_payment'),
      merchant_id: request.scope.merchantId,
      environment: request.scope.environment,
      payment_intent_id: request.intent.id,
      method: 'paypal',
      state: 'pending',
      details: JSON.stringify(details),
      failure_code: null,
      resolve_at: now + this.opts.queryAfterMs,
      external_id: null,
      callback_token_hash: null,
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
  }

  /** The rail payment of a PayPal order, or null. */
  paymentOfOrder(orderId: string): Promise<RailPaymentRow | undefined> {
    return repo.findByExternalId(this.opts.db, 'paypal', orderId);
  }

  /**
   * The customer came back (`?token=<order id>`), or PayPal said the order was approved or its capture
   * moved (a webhook): the order is looked up and captured when approved. Answers the intent's id and, after
   * `INSTRUMENT_DECLINED`, the approval link to send the customer back to; null for an unknown order.
   */
  async hint(orderId: string): Promise<{ intentId: string; approveAgain?: string } | null> {
    const row = await this.paymentOfOrder(orderId);
    if (!row) return null;
    if (row.state !== 'pending') return { intentId: row.payment_intent_id };
    if (!(await repo.recordCallback(this.opts.db, row.id, orderId, row.details, this.now()))) return { intentId: row.payment_intent_id };
    const verdict = await this.decide({ ...row, external_id: orderId }, false);
    return verdict && 'approveAgain' in verdict
      ? { intentId: row.payment_intent_id, approveAgain: verdict.approveAgain }
      : { intentId: row.payment_intent_id };
  }

  /** The customer turned back at PayPal (the cancel URL): a failed attempt, unless the order was paid after all. */
  async cancelled(orderId: string): Promise<{ intentId: string } | null> {
    const row = await this.paymentOfOrder(orderId);
    if (!row) return null;
    if (row.state === 'pending') await this.decide(row, true);
    return { intentId: row.payment_intent_id };
  }

  /** A question about a pending payment whose answer is due, claimed in the database (one process asks). */
  async poll(_scope: MerchantScope, reference: string): Promise<void> {
    const row = await repo.findRailPaymentById(this.opts.db, reference);
    if (!row || row.method !== 'paypal' || row.state !== 'pending' || row.resolve_at === null) return;
    const now = this.now();
    if (row.resolve_at > now) return;
    const gap = Math.min(MAX_QUESTION_GAP_MS, this.opts.queryAfterMs * 2 ** Math.min(row.queries + 1, 16));
    if (!(await repo.claimQuestion(this.opts.db, row.id, row.resolve_at, now + gap, now))) return;
    const verdict = await this.decide(row, false);
    if (verdict && 'outcome' in verdict) return;
    const intent = await findIntent(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id);
    if (!intent || (intent.status !== 'confirming' && !isPayable(intent, now))) await repo.stopQuestions(this.opts.db, row.id, now);
  }

  /**
   * Looks the order up (first learning its id again when a crash lost the create's answer), captures it when
   * approved, and applies what that came to. `cancelled`: the customer turned back, so an order not yet
   * approved is a failed attempt `customer_cancelled`.
   */
  private async decide(row: RailPaymentRow, cancelled: boolean): Promise<Verdict> {
    const details = JSON.parse(row.details) as PaypalDetails;
    let verdict: Verdict;
    try {
      let order = row.external_id ? await this.opts.client.getOrder(row.external_id) : await this.recreate(row, details);
      if (order.status === 'APPROVED') order = await this.opts.client.captureOrder(order.id, `capture-${row.id}`);
      verdict = await this.verdictOf(row, details, order);
    } catch (err) {
      verdict = this.refusalVerdict(err, details);
      if (verdict === null) this.logFailure(err, row.id, 'PayPal not answered; asking again later');
    }
    if (verdict === null && cancelled && !details.pending_capture) {
      verdict = { outcome: { outcome: 'attempt_failed', failureCode: 'customer_cancelled' } };
    }
    if (verdict && 'outcome' in verdict) await resolveRailPayment(this.opts.db, this.payments, row, 'pending', verdict.outcome, this.now());
    if (verdict && 'pendingCapture' in verdict) await this.captureIsPending(row, details, verdict.pendingCapture);
    return verdict;
  }

  /** The order of an attempt whose create answer was lost: PayPal answers the same order to the same request id. */
  private async recreate(row: RailPaymentRow, details: PaypalDetails): Promise<PaypalOrder> {
    const order = await this.createOrder(row, details);
    await repo.setProviderRequest(
      this.opts.db,
      row.id,
      order.id,
      JSON.stringify({ ...details, approve_url: order.approveUrl }),
      this.now(),
    );
    return order;
  }

  /** A capture PayPal refused: declined instruments go back to approval; other refusals are failed attempts. */
  private refusalVerdict(err: unknown, details: PaypalDetails): Verdict {
    if (!(err instanceof PaypalError) || err.httpStatus >= 500 || err.httpStatus === 429 || err.httpStatus === 401) return null;
    if (err.issue === 'INSTRUMENT_DECLINED' && details.approve_url) return { approveAgain: details.approve_url };
    if (err.issue === 'ORDER_NOT_APPROVED' || err.issue === 'ORDER_ALREADY_CAPTURED') return null;
    this.opts.logger?.warn({ paypal_debug_id: err.debugId, issue: err.issue, name: err.errorName }, 'PayPal refused the capture');
    return { outcome: { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: err.clearText } };
  }

  /** What an order (after a capture, or as looked up) means. */
  private async verdictOf(row: RailPaymentRow, details: PaypalDetails, order: PaypalOrder): Promise<Verdict> {
    if (order.status === 'VOIDED') {
      return { outcome: { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: 'PayPal voided the order' } };
    }
    const capture = order.capture;
    if (order.status !== 'COMPLETED' || !capture) return null;
    switch (capture.status) {
      case 'COMPLETED':
      case 'REFUNDED':
      case 'PARTIALLY_REFUNDED':
        return { outcome: await this.successOf(row, details, capture.id, capture.amount) };
      case 'PENDING':
        return details.pending_capture === capture.id ? null : { pendingCapture: capture.id };
      default: {
        const text = `PayPal ${capture.status === 'DECLINED' ? 'denied' : 'failed'} the capture ${capture.id}`;
        if (details.pending_capture) return { outcome: { outcome: 'reversed', providerReference: capture.id, failureText: text } };
        return { outcome: { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: text } };
      }
    }
  }

  /** A completed capture: paid as asked, or underpaid or overpaid (pro rata in the settlement asset). */
  private async successOf(
    row: RailPaymentRow,
    details: PaypalDetails,
    captureId: string,
    amount: { currency_code: string; value: string } | null,
  ): Promise<RailOutcome> {
    if (!amount || (amount.currency_code === details.currency && new Decimal(amount.value).eq(details.value))) {
      return { outcome: 'success', providerReference: captureId };
    }
    if (amount.currency_code !== details.currency) {
      const failureText = `PayPal captured ${amount.currency_code} instead of ${details.currency}; the payment was not accepted`;
      return { outcome: 'attempt_failed', failureCode: 'provider_error', failureText };
    }
    const intent = await findIntent(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id);
    const asset = new Decimal(intent!.pay_amount).mul(amount.value).div(details.value).toDecimalPlaces(6, Decimal.ROUND_DOWN);
    return { outcome: new Decimal(amount.value).lt(details.value) ? 'underpaid' : 'overpaid', amount: asset, providerReference: captureId };
  }

  /** A PENDING capture: kept on the attempt, and the intent is `confirming` until PayPal completes or denies it. */
  private async captureIsPending(row: RailPaymentRow, details: PaypalDetails, captureId: string): Promise<void> {
    await repo.setProviderRequest(
      this.opts.db,
      row.id,
      row.external_id!,
      JSON.stringify({ ...details, pending_capture: captureId }),
      this.now(),
    );
    try {
      await this.payments.apply(scopeOfRailPayment(row), {
        intentId: row.payment_intent_id,
        method: 'paypal',
        outcome: 'seen',
        providerReference: captureId,
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.opts.logger?.info({ rail_payment: row.id, reason: err.message }, 'pending PayPal capture changed nothing');
    }
  }

  /** The rail payment a PayPal capture paid, or undefined. */
  paymentOfCapture(captureId: string): Promise<RailPaymentRow | undefined> {
    return repo.succeededRailPaymentByReference(this.opts.db, 'paypal', captureId);
  }

  /** A dispute at PayPal on the capture with this id: opened, or closed won or lost. A repeat changes nothing. */
  async applyDispute(captureId: string, outcome: 'dispute' | 'dispute_won' | 'dispute_lost', reason?: string): Promise<void> {
    const row = await this.paymentOfCapture(captureId);
    if (!row) return;
    try {
      await this.payments.apply(scopeOfRailPayment(row), {
        intentId: row.payment_intent_id,
        method: 'paypal',
        outcome,
        ...(reason === undefined ? {} : { disputeReason: reason }),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.opts.logger?.info({ rail_payment: row.id, outcome, reason: err.message }, 'PayPal dispute event changed nothing');
    }
  }

  /** Refunds of live PayPal payments wait for the operator's approval (`cowrie refunds approve`). */
  async refund(_request: RefundRequest): Promise<RefundResult> {
    return { state: 'requested' };
  }

  /**
   * An approved refund: `POST /v2/payments/captures/{id}/refund` with `PayPal-Request-Id` = the refund's id,
   * so a second call after a crash answers the refund the first one made.
   */
  async sendRefund(refund: RefundToSend): Promise<ProviderRefund> {
    const paid = await repo.succeededRailPayment(this.opts.db, refund.intent.id, 'paypal');
    if (!paid?.provider_reference) return { state: 'failed', reason: 'No PayPal capture paid this payment.' };
    try {
      return providerRefundOf(await this.opts.client.refundCapture(paid.provider_reference, refund.refundId));
    } catch (err) {
      if (err instanceof PaypalError && err.httpStatus >= 400 && err.httpStatus < 500 && err.httpStatus !== 401 && err.httpStatus !== 429) {
        this.logFailure(err, paid.id, 'PayPal refused the refund');
        return { state: 'failed', reason: `PayPal refused the refund: ${err.issue ?? err.errorName} (${err.providerMessage})` };
      }
      throw err;
    }
  }

  /** `GET /v2/payments/refunds/{id}`. */
  async refundStatus(_scope: MerchantScope, reference: string): Promise<ProviderRefund> {
    return providerRefundOf(await this.opts.client.getRefund(reference));
  }
}

/** PayPal's refund status: COMPLETED succeeded, FAILED or CANCELLED failed, PENDING under way. */
function providerRefundOf(r: { id: string; status: string }): ProviderRefund {
  if (r.status === 'COMPLETED') return { state: 'succeeded', reference: r.id };
  if (r.status === 'FAILED' || r.status === 'CANCELLED') {
    return { state: 'failed', reference: r.id, reason: `PayPal's refund ended ${r.status.toLowerCase()}.` };
  }
  return { state: 'pending', reference: r.id };
}
