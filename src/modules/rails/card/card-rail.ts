// The live card rail through Paystack: card numbers never reach Cowrie. The checkout's card panel sends the
// customer's email; the rail records the attempt, calls `POST /transaction/initialize` (a new reference per
// attempt: the rail payment's id with `_` written `-`) and sends the customer to Paystack's page. The
// outcome arrives three ways, the customer's return, the signed webhook and questions with backoff, and
// each is only a hint: `GET /transaction/verify/{reference}` decides before anything moves. No database
// transaction is held across a call to Paystack, and a payment stays `pending` (due for a question) until
// its outcome and the intent's move commit together (rail-outcomes.ts), so a crash at any point leaves it to
// the next question, in this process or another.
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
  type RefundToSend,
  type RefundResult,
  type StartPaymentRequest,
  type StartPaymentResult,
} from '../../payment-intents/index.js';
import type { PaymentService } from '../../payments/index.js';
import { resolveRailPayment, scopeOfRailPayment, type RailOutcome } from '../rail-outcomes.js';
import * as repo from '../rail-payments.repo.js';
import { PaystackError, type PaystackRefund, type VerifiedTransaction } from './paystack-client.js';

/** What the rail needs of a Paystack client (paystack-client.ts is one). */
export interface PaystackApi {
  initialize(req: {
    email: string;
    amount: number;
    currency: string;
    reference: string;
    callbackUrl: string;
    metadata: Record<string, unknown>;
  }): Promise<{ authorizationUrl: string }>;
  verify(reference: string): Promise<VerifiedTransaction>;
  createRefund(transactionReference: string): Promise<PaystackRefund>;
  listRefunds(transactionReference: string): Promise<PaystackRefund[]>;
  fetchRefund(id: string): Promise<PaystackRefund>;
}

export interface CardRailOptions {
  db: Db;
  clocks: MerchantClocks;
  client: PaystackApi;
  /** The live origin: the customer comes back to `<origin>/rails/paystack/return`. */
  returnOrigin: string;
  /** First question this long after the redirect; then doubling, up to five minutes. */
  queryAfterMs: number;
  logger?: Logger;
}

/** The currencies Paystack takes cards in for Cowrie's merchants, each with 100 subunits. */
export const CARD_CURRENCIES = ['KES', 'USD'] as const;
const MAX_QUESTION_GAP_MS = 5 * 60_000;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/;

/** What a card rail payment keeps. */
export interface CardDetails {
  email: string;
  /** Subunits asked for. */
  amount: number;
  currency: string;
  authorization_url?: string;
  /** The customer came back from Paystack's page (an `abandoned` answer is then final). */
  returned?: boolean;
}

/** Paystack's reference of a rail payment (letters, digits, `-`, `.` and `=` only) and back. */
export const referenceOf = (railPaymentId: string) => railPaymentId.replace('_', '-');
export const railPaymentIdOf = (reference: string) => (/^rp-[0-9A-Za-z]{24}$/.test(reference) ? reference.replace('-', '_') : null);

/** The customer's email: what the card panel sent, else the intent's customer's. */
function emailOf(request: StartPaymentRequest): string {
  const sent = String(request.details['email'] ?? '').trim();
  let email = sent;
  if (email === '' && request.intent.customer) {
    const customer = JSON.parse(request.intent.customer) as { email?: unknown };
    if (typeof customer.email === 'string') email = customer.email;
  }
  if (!EMAIL.test(email) || email.length > 254) {
    throw new AppError('parameter_invalid', 'Enter the email address your card receipt should go to.', { param: 'email' });
  }
  return email;
}

export class CardRail implements PaymentRail {
  readonly name = 'card-paystack';
  readonly methods = ['card'] as const;

  constructor(
    private readonly payments: PaymentService,
    private readonly opts: CardRailOptions,
  ) {}

  private now(): number {
    return this.opts.clocks.base.nowMs();
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const { intent } = request;
    if (!(CARD_CURRENCIES as readonly string[]).includes(intent.currency)) {
      throw new AppError('payment_method_unavailable', 'Cards are taken in KES and USD only.', { param: 'method' });
    }
    const email = emailOf(request);
    const amount = new Decimal(intent.amount).mul(100).toDecimalPlaces(0, Decimal.ROUND_CEIL).toNumber();
    const details: CardDetails = { email, amount, currency: intent.currency };
    const row = this.railPayment(request, details);
    // The attempt is recorded before Paystack is called: a crash after the call leaves it to the questions.
    await repo.insertRailPayment(this.opts.db, row);
    let answer;
    try {
      answer = await this.opts.client.initialize({
        email,
        amount,
        currency: intent.currency,
        reference: row.external_id!,
        callbackUrl: `${this.opts.returnOrigin}/rails/paystack/return`,
        metadata: { payment_intent: intent.id },
      });
    } catch (err) {
      const text = err instanceof PaystackError ? err.providerMessage : 'Paystack could not be reached';
      this.opts.logger?.warn({ err, rail_payment: row.id }, 'Paystack initialize failed');
      const failed = { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: text } as const;
      const resolved = await resolveRailPayment(this.opts.db, this.payments, row, 'pending', failed, this.now());
      return { state: 'completed', intent: resolved && 'intent' in resolved ? resolved.intent : intent };
    }
    const kept = JSON.stringify({ ...details, authorization_url: answer.authorizationUrl });
    await repo.setProviderRequest(this.opts.db, row.id, row.external_id!, kept, this.now());
    // The checkout sends the customer to its own step to Paystack's page, which answers 303 to authorization_url.
    const url = `/checkout/${intent.id}/card/${row.id}`;
    return { state: 'pending', reference: row.id, intent, nextAction: { type: 'redirect', url } };
  }

  private railPayment(request: StartPaymentRequest, details: CardDetails): RailPaymentRow {
    const now = this.now();
    const id = newId('rail_payment');
    return {
      id,
      merchant_id: request.scope.merchantId,
      environment: request.scope.environment,
      payment_intent_id: request.intent.id,
      method: 'card',
      state: 'pending',
      details: JSON.stringify(details),
      failure_code: null,
      resolve_at: now + this.opts.queryAfterMs,
      external_id: referenceOf(id),
      callback_token_hash: null,
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * A hint that Paystack has an answer (the customer's return, a `charge.success` webhook): the payment is
   * made due for a question at once, and verify is asked now, whoever else is asking (of two that resolve
   * it, one does). Answers the rail payment, or null for an unknown reference.
   */
  async hint(reference: string, returned: boolean): Promise<RailPaymentRow | null> {
    const id = railPaymentIdOf(reference);
    const row = id ? await repo.findRailPaymentById(this.opts.db, id) : undefined;
    if (!row || row.method !== 'card') return null;
    if (row.state !== 'pending') return row;
    const details = JSON.parse(row.details) as CardDetails;
    const kept = returned ? JSON.stringify({ ...details, returned: true }) : row.details;
    if (await repo.recordCallback(this.opts.db, row.id, row.external_id ?? reference, kept, this.now())) {
      await this.verifyAndResolve({ ...row, details: kept });
    }
    return row;
  }

  /**
   * A chargeback at Paystack on the transaction with this reference: opened (the intent carries it, its
   * settlement is frozen), or closed won or lost. A repeated event is refused by the payment's rules and
   * changes nothing.
   */
  async applyDispute(reference: string, outcome: 'dispute' | 'dispute_won' | 'dispute_lost', reason?: string): Promise<void> {
    const row = await this.paymentOf(reference);
    if (!row || row.state !== 'succeeded') return;
    try {
      await this.payments.apply(scopeOfRailPayment(row), {
        intentId: row.payment_intent_id,
        method: 'card',
        outcome,
        ...(reason === undefined ? {} : { disputeReason: reason }),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      this.opts.logger?.info({ rail_payment: row.id, outcome, reason: err.message }, 'Paystack dispute event changed nothing');
    }
  }

  /** The rail payment a Paystack transaction reference names, or null. */
  async paymentOf(reference: string): Promise<RailPaymentRow | null> {
    const id = railPaymentIdOf(reference);
    const row = id ? await repo.findRailPaymentById(this.opts.db, id) : undefined;
    return row?.method === 'card' ? row : null;
  }

  /**
   * A question (verify) about a pending payment whose answer is due: claimed in the database, so that of
   * any number of processes one asks; the next comes later (doubling). Asked until Paystack gives a final
   * answer or the intent can no longer be paid.
   */
  async poll(_scope: MerchantScope, reference: string): Promise<void> {
    const row = await repo.findRailPaymentById(this.opts.db, reference);
    if (!row || row.method !== 'card' || row.state !== 'pending' || row.resolve_at === null) return;
    const now = this.now();
    if (row.resolve_at > now) return;
    const gap = Math.min(MAX_QUESTION_GAP_MS, this.opts.queryAfterMs * 2 ** Math.min(row.queries + 1, 16));
    if (!(await repo.claimQuestion(this.opts.db, row.id, row.resolve_at, now + gap, now))) return;
    if (await this.verifyAndResolve(row)) return;
    const intent = await findIntent(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id);
    if (!intent || !isPayable(intent, now)) await repo.stopQuestions(this.opts.db, row.id, now);
  }

  /** Asks verify and applies a final answer; false when there is none yet (or Paystack could not be asked). */
  private async verifyAndResolve(row: RailPaymentRow): Promise<boolean> {
    let answer: VerifiedTransaction;
    try {
      answer = await this.opts.client.verify(row.external_id!);
    } catch (err) {
      this.opts.logger?.warn({ err, rail_payment: row.id }, 'Paystack verify failed; asking again later');
      return false;
    }
    const outcome = await this.outcomeOf(row, answer);
    if (!outcome) return false;
    await resolveRailPayment(this.opts.db, this.payments, row, 'pending', outcome, this.now());
    return true;
  }

  /** What verify's answer means: an outcome, or null to wait (not final yet). */
  private async outcomeOf(row: RailPaymentRow, tx: VerifiedTransaction): Promise<RailOutcome | null> {
    const details = JSON.parse(row.details) as CardDetails;
    switch (tx.status) {
      case 'success':
        return this.successOf(row, details, tx);
      case 'failed':
        return {
          outcome: 'attempt_failed',
          failureCode: /insufficient/i.test(tx.gatewayResponse) ? 'insufficient_funds' : 'card_declined',
          ...(tx.gatewayResponse ? { failureText: tx.gatewayResponse } : {}),
        };
      case 'abandoned':
        return details.returned ? { outcome: 'attempt_failed', failureCode: 'customer_cancelled' } : null;
      default:
        return null;
    }
  }

  /** A success: paid as asked, or underpaid or overpaid (pro rata in the settlement asset) when the amount differs. */
  private async successOf(row: RailPaymentRow, details: CardDetails, tx: VerifiedTransaction): Promise<RailOutcome> {
    if (tx.currency !== details.currency) {
      return {
        outcome: 'attempt_failed',
        failureCode: 'provider_error',
        failureText: `Paystack charged ${tx.currency} instead of ${details.currency}; the payment was not accepted`,
      };
    }
    if (tx.amount === details.amount) return { outcome: 'success', providerReference: tx.id };
    const intent = await findIntent(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id);
    const asset = new Decimal(intent!.pay_amount).mul(tx.amount).div(details.amount).toDecimalPlaces(6, Decimal.ROUND_DOWN);
    return { outcome: tx.amount < details.amount ? 'underpaid' : 'overpaid', amount: asset, providerReference: tx.id };
  }

  /** Refunds of live card payments wait for the operator's approval (`cowrie refunds approve`). */
  async refund(_request: RefundRequest): Promise<RefundResult> {
    return { state: 'requested' };
  }

  /**
   * An approved refund: Paystack `POST /refund` of the transaction that paid the intent (its full amount),
   * unless an earlier call (whose answer a crash lost) already made one, which is answered instead.
   */
  async sendRefund(refund: RefundToSend): Promise<ProviderRefund> {
    const paid = await repo.succeededRailPayment(this.opts.db, refund.intent.id, 'card');
    if (!paid?.external_id) return { state: 'failed', reason: 'No Paystack transaction paid this payment.' };
    const earlier = (await this.opts.client.listRefunds(paid.external_id)).find((r) => r.status !== 'failed');
    if (earlier) return providerRefundOf(earlier);
    try {
      return providerRefundOf(await this.opts.client.createRefund(paid.external_id));
    } catch (err) {
      // A refusal (the transaction already reversed, a refund Paystack will not make) is final; a fault is asked again.
      if (
        err instanceof PaystackError &&
        err.httpStatus >= 400 &&
        err.httpStatus < 500 &&
        err.httpStatus !== 401 &&
        err.httpStatus !== 429
      ) {
        return { state: 'failed', reason: `Paystack refused the refund: ${err.providerMessage}` };
      }
      throw err;
    }
  }

  /** `GET /refund/{id}`. */
  async refundStatus(_scope: MerchantScope, reference: string): Promise<ProviderRefund> {
    return providerRefundOf(await this.opts.client.fetchRefund(reference));
  }
}

/** Paystack's refund status: `processed` succeeded, `failed` failed; any other (pending, processing, …) is under way. */
function providerRefundOf(r: PaystackRefund): ProviderRefund {
  if (r.status === 'processed') return { state: 'succeeded', reference: r.id };
  if (r.status === 'failed') return { state: 'failed', reference: r.id, reason: 'Paystack could not process the refund.' };
  return { state: 'pending', reference: r.id };
}
