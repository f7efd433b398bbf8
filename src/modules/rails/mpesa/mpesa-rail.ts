// The live M-Pesa rail: an STK push through Safaricom's Daraja from the checkout, the callback at an
// unguessable per-payment URL, and questions (STK query) about a payment whose answer is due. No database
// transaction is held across a call to Daraja: the attempt is written and committed, Daraja is called, then
// the answer is recorded. A callback that reports success is only a hint: Daraja's own STK query confirms
// it before the intent moves. The rail payment's final state and the intent's move commit together
// (rail-outcomes.ts), and a payment stays `pending` (due for a question) until then, so a crash at any
// point leaves it to the next question, in this process or another.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { RailPaymentRow } from '../../../db/schema.js';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import { AppError } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import { Decimal } from '../../../shared/money.js';
import { sha256Hex } from '../../../shared/sha256.js';
import type { MerchantScope } from '../../../shared/scope.js';
import { maskPhone, normalizeMpesaPhone } from '../payment-details.js';
import {
  findIntent,
  isPayable,
  type PaymentRail,
  type ProviderRefund,
  type RefundResult,
  type RefundToSend,
  type StartPaymentRequest,
  type StartPaymentResult,
} from '../../payment-intents/index.js';
import type { PaymentService } from '../../payments/index.js';
import { resolveRailPayment, scopeOfRailPayment, type RailOutcome } from '../rail-outcomes.js';
import * as repo from '../rail-payments.repo.js';
import { DarajaError, outcomeOfResultCode, parseStkCallback, type StkCallback } from './daraja-client.js';
import type { MpesaReversals } from './mpesa-reversals.js';

/** What the rail needs of a Daraja client (src/modules/rails/mpesa/daraja-client.ts is one). */
export interface DarajaApi {
  stkPush(req: {
    amount: number;
    phone: string;
    callbackUrl: string;
    accountReference: string;
    description: string;
  }): Promise<{ merchantRequestId: string; checkoutRequestId: string; customerMessage?: string }>;
  stkQuery(checkoutRequestId: string): Promise<{ state: 'pending' } | { state: 'final'; resultCode: number; resultDesc: string }>;
}

export interface MpesaRailOptions {
  db: Db;
  clocks: MerchantClocks;
  client: DarajaApi;
  /** Public origin Daraja posts callbacks to. */
  callbackOrigin: string;
  /** First question after this long without a callback; then doubling, up to five minutes. */
  queryAfterMs: number;
  /** Reversals of refunds, when the initiator variables are set; without them refunds stay `requested`. */
  reversals?: MpesaReversals;
  logger?: Logger;
}

/** What Daraja's callback answer is: accepted, or refused with a reason (nothing changed either way). */
export type CallbackAnswer =
  { status: 200; body: { ResultCode: 0; ResultDesc: 'Accepted' } } | { status: 400 | 404; body: { ResultCode: 1; ResultDesc: string } };

const ACCEPTED = { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } } as const;
const MAX_QUESTION_GAP_MS = 5 * 60_000;

interface MpesaDetails {
  phone: string;
  amount_kes: number;
  merchant_request_id?: string;
  customer_message?: string;
  /** What a success callback said, kept until Daraja's STK query confirms it. */
  callback?: { receipt: string; amount_kes: number };
}

export class MpesaRail implements PaymentRail {
  readonly name = 'mpesa-daraja';
  readonly methods = ['mpesa'] as const;
  /** Present only when the rail can send refunds (the initiator variables are set). */
  readonly sendRefund?: (refund: RefundToSend) => Promise<ProviderRefund>;
  readonly refundStatus?: (scope: MerchantScope, reference: string) => Promise<ProviderRefund>;

  constructor(
    private readonly payments: PaymentService,
    private readonly opts: MpesaRailOptions,
  ) {
    const reversals = opts.reversals;
    if (reversals) {
      this.sendRefund = (refund) => reversals.send(refund);
      this.refundStatus = (_scope, reference) => reversals.status(reference);
    }
  }

  /** The Daraja client, for the other users of the same shortcode (payers' M-Pesa top-ups). */
  get daraja(): DarajaApi {
    return this.opts.client;
  }

  get reversals(): MpesaReversals | null {
    return this.opts.reversals ?? null;
  }

  private now(): number {
    return this.opts.clocks.base.nowMs();
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const { intent } = request;
    if (intent.currency !== 'KES') {
      throw new AppError('payment_method_unavailable', 'M-Pesa takes Kenyan shillings only.', { param: 'method' });
    }
    const phone = normalizeMpesaPhone(String(request.details['phone'] ?? ''));
    // Whole shillings: the amount rounded up; paying it is exact.
    const amountKes = new Decimal(intent.amount).toDecimalPlaces(0, Decimal.ROUND_CEIL).toNumber();
    const token = randomBytes(24).toString('base64url');
    const details: MpesaDetails = { phone: maskPhone(phone), amount_kes: amountKes };
    const row = this.railPayment(request, details, sha256Hex(token));
    await repo.insertRailPayment(this.opts.db, row);
    let answer;
    try {
      answer = await this.opts.client.stkPush({
        amount: amountKes,
        phone: phone.slice(1),
        callbackUrl: `${this.opts.callbackOrigin}/rails/mpesa/callback/${token}`,
        accountReference: intent.id.slice(-12),
        description: 'Payment',
      });
    } catch (err) {
      // Daraja refused or could not be reached: a failed attempt in plain words; the intent stays payable.
      const text = err instanceof DarajaError ? err.errorMessage : String((err as Error)?.message ?? err);
      this.opts.logger?.warn({ err, rail_payment: row.id }, 'M-Pesa STK push failed');
      const failed = { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: text } as const;
      const resolved = await resolveRailPayment(this.opts.db, this.payments, row, 'pending', failed, this.now());
      return { state: 'completed', intent: resolved && 'intent' in resolved ? resolved.intent : intent };
    }
    await repo.setProviderRequest(
      this.opts.db,
      row.id,
      answer.checkoutRequestId,
      JSON.stringify({ ...details, merchant_request_id: answer.merchantRequestId, customer_message: answer.customerMessage }),
      this.now(),
    );
    return { state: 'pending', reference: row.id, intent, nextAction: { type: 'stk_push', phone: maskPhone(phone) } };
  }

  /** The rail payment of an STK push about to be sent: pending, its first question due after queryAfterMs. */
  private railPayment(request: StartPaymentRequest, details: MpesaDetails, tokenHash: string): RailPaymentRow {
    const now = this.now();
    return {
      id: newId('rail_payment'),
      merchant_id: request.scope.merchantId,
      environment: request.scope.environment,
      payment_intent_id: request.intent.id,
      method: 'mpesa',
      state: 'pending',
      details: JSON.stringify(details),
      failure_code: null,
      resolve_at: now + this.opts.queryAfterMs,
      external_id: null,
      callback_token_hash: tokenHash,
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * Daraja's callback to `/rails/mpesa/callback/<token>`. A failure is final and resolves the payment at
   * once. A success is kept and makes the payment due for a question at once: the STK query that confirms
   * it runs before the answer goes back, and if it cannot (Daraja unreachable, a crash) the next question
   * does. Duplicates and late callbacks change nothing.
   */
  async handleCallback(token: string, body: unknown): Promise<CallbackAnswer> {
    const row = /^[A-Za-z0-9_-]{20,64}$/.test(token) ? await repo.findByCallbackToken(this.opts.db, sha256Hex(token)) : undefined;
    if (!row) return { status: 404, body: { ResultCode: 1, ResultDesc: 'Unknown callback' } };
    let cb: StkCallback;
    try {
      cb = parseStkCallback(body);
    } catch (err) {
      return { status: 400, body: { ResultCode: 1, ResultDesc: `Rejected: ${(err as Error).message}` } };
    }
    if (row.external_id !== null && cb.checkoutRequestId !== row.external_id) {
      return { status: 400, body: { ResultCode: 1, ResultDesc: 'Rejected: CheckoutRequestID does not match this payment' } };
    }
    if (row.state !== 'pending') return ACCEPTED;
    if (cb.resultCode !== 0) {
      await this.finishWith(row, cb.resultCode, cb.resultDesc);
      return ACCEPTED;
    }
    const details: MpesaDetails = {
      ...(JSON.parse(row.details) as MpesaDetails),
      callback: { receipt: cb.receipt!, amount_kes: cb.amount! },
    };
    const due = await repo.recordCallback(this.opts.db, row.id, cb.checkoutRequestId, JSON.stringify(details), this.now());
    if (due) await this.poll(scopeOfRailPayment(row), row.id);
    return ACCEPTED;
  }

  /**
   * A question (STK query) about a pending payment whose answer is due. Claimed in the database, so that of
   * any number of processes one asks; the next question comes later (doubling). Asked until Daraja gives a
   * final answer or the intent can no longer be paid.
   */
  async poll(_scope: MerchantScope, reference: string): Promise<void> {
    const row = await repo.findRailPaymentById(this.opts.db, reference);
    if (!row || row.method !== 'mpesa' || row.state !== 'pending' || row.resolve_at === null) return;
    const now = this.now();
    if (row.resolve_at > now) return;
    const gap = Math.min(MAX_QUESTION_GAP_MS, this.opts.queryAfterMs * 2 ** Math.min(row.queries + 1, 16));
    if (!(await repo.claimQuestion(this.opts.db, row.id, row.resolve_at, now + gap, now))) return;
    const answer = row.external_id === null ? ({ state: 'pending' } as const) : await this.ask(row);
    if (answer === null) return;
    if (answer.state === 'final') {
      await this.finishWith({ ...row, queries: row.queries + 1 }, answer.resultCode, answer.resultDesc);
      return;
    }
    // Stop asking once the intent can no longer be paid.
    if (!(await isPayableNow(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id, now)))
      await repo.stopQuestions(this.opts.db, row.id, now);
  }

  /** Daraja's STK query; null when it could not be asked (asked again at the next question). */
  private async ask(row: RailPaymentRow) {
    try {
      return await this.opts.client.stkQuery(row.external_id!);
    } catch (err) {
      this.opts.logger?.warn({ err, rail_payment: row.id }, 'M-Pesa STK query failed; asking again later');
      return null;
    }
  }

  /**
   * Refunds of live M-Pesa payments wait for the operator's approval, which sends a Daraja reversal
   * (mpesa-reversals.ts), or, without the initiator variables, for a reversal made by hand and reviewed.
   */
  async refund(): Promise<RefundResult> {
    return { state: 'requested' };
  }

  /**
   * A final answer (a failure callback, or a query): moves the payment on. A success takes the receipt and
   * the amount a callback reported, when one came; a different amount than asked is underpaid or overpaid
   * (in the settlement asset, pro rata).
   */
  private async finishWith(row: RailPaymentRow, resultCode: number, resultDesc: string): Promise<void> {
    const details = JSON.parse(row.details) as MpesaDetails;
    const mapped = outcomeOfResultCode(resultCode, resultDesc);
    let outcome: RailOutcome;
    if (mapped.outcome === 'success') {
      const paidKes = details.callback?.amount_kes;
      outcome = { outcome: 'success', ...(details.callback ? { providerReference: details.callback.receipt } : {}) };
      if (paidKes !== undefined && paidKes !== details.amount_kes) {
        const intent = await findIntent(this.opts.db, scopeOfRailPayment(row), row.payment_intent_id);
        if (intent) {
          const asset = new Decimal(intent.pay_amount).mul(paidKes).div(details.amount_kes).toDecimalPlaces(6, Decimal.ROUND_DOWN);
          outcome = { ...outcome, outcome: paidKes < details.amount_kes ? 'underpaid' : 'overpaid', amount: asset };
        }
      }
    } else {
      outcome = {
        outcome: 'attempt_failed',
        failureCode: mapped.failureCode,
        ...(mapped.providerText ? { failureText: mapped.providerText } : {}),
      };
    }
    // A refusal (cap, link full) is kept on the rail payment (declined); the checkout shows it.
    await resolveRailPayment(this.opts.db, this.payments, row, 'pending', outcome, this.now());
  }
}

/** Whether the intent a payment is for can still be paid (else there is no use asking about the payment). */
async function isPayableNow(db: Db, scope: MerchantScope, intentId: string, now: number): Promise<boolean> {
  const intent = await findIntent(db, scope, intentId);
  return intent !== undefined && isPayable(intent, now);
}
