// The live M-Pesa rail (DECISIONS "Live payment rails"; issue 15): an STK push through Safaricom's Daraja
// from the checkout, the callback at an unguessable per-payment URL, and questions (STK query) about a
// payment whose callback did not come. Every outcome goes into the state machine through the one sink,
// with its event and webhook in the same transaction. No database transaction is held across a call to
// Daraja: the attempt is written, committed, Daraja is called, then the answer is recorded.
import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { RailPaymentRow } from '../../../db/schema.js';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import { AppError } from '../../../shared/errors.js';
import { newId } from '../../../shared/ids.js';
import { Decimal } from '../../../shared/money.js';
import type { MerchantScope } from '../../../shared/scope.js';
import type { PaymentReport } from '../../payment-intents/index.js';
import { maskPhone, normalizeMpesaPhone } from '../payment-details.js';
import type { PaymentOutcomeSink, PaymentRail, RefundResult, StartPaymentRequest, StartPaymentResult } from '../rail.js';
import * as repo from '../rail-payments.repo.js';
import { DarajaError, outcomeOfResultCode, parseStkCallback, type StkCallback } from './daraja-client.js';

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
  logger?: Logger;
}

/** What Daraja's callback answer is: accepted, or refused with a reason (nothing changed either way). */
export type CallbackAnswer =
  { status: 200; body: { ResultCode: 0; ResultDesc: 'Accepted' } } | { status: 400 | 404; body: { ResultCode: 1; ResultDesc: string } };

const ACCEPTED = { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } } as const;
const MAX_QUESTION_GAP_MS = 5 * 60_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface MpesaDetails {
  phone: string;
  amount_kes: number;
  merchant_request_id?: string;
  customer_message?: string;
}

export class MpesaRail implements PaymentRail {
  readonly name = 'mpesa-daraja';
  readonly methods = ['mpesa'] as const;

  constructor(
    private readonly sink: PaymentOutcomeSink,
    private readonly opts: MpesaRailOptions,
  ) {}

  private now(): number {
    return this.opts.clocks.base.nowMs();
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const { intent, scope } = request;
    if (intent.currency !== 'KES') {
      throw new AppError('payment_method_unavailable', 'M-Pesa takes Kenyan shillings only.', { param: 'method' });
    }
    const phone = normalizeMpesaPhone(String(request.details['phone'] ?? ''));
    // Whole shillings: the amount rounded up; paying it is exact.
    const amountKes = new Decimal(intent.amount).toDecimalPlaces(0, Decimal.ROUND_CEIL).toNumber();
    const token = randomBytes(24).toString('base64url');
    const now = this.now();
    const details: MpesaDetails = { phone: maskPhone(phone), amount_kes: amountKes };
    const row: RailPaymentRow = {
      id: newId('rail_payment'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      payment_intent_id: intent.id,
      method: 'mpesa',
      state: 'pending',
      details: JSON.stringify(details),
      failure_code: null,
      resolve_at: now + this.opts.queryAfterMs,
      external_id: null,
      callback_token_hash: sha256(token),
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
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
      const intentAfter = await this.resolve(scope, row, { outcome: 'attempt_failed', failureCode: 'provider_error', failureText: text });
      return { state: 'completed', intent: intentAfter ?? intent };
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

  /** Daraja's callback to `/rails/mpesa/callback/<token>`. Duplicates and late callbacks change nothing. */
  async handleCallback(token: string, body: unknown): Promise<CallbackAnswer> {
    const row = /^[A-Za-z0-9_-]{20,64}$/.test(token) ? await repo.findByCallbackToken(this.opts.db, sha256(token)) : undefined;
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
    await this.finishWith(row, cb.resultCode, cb.resultDesc, cb.amount, cb.receipt);
    return ACCEPTED;
  }

  /**
   * A question (STK query) about a pending payment whose callback has not come, when it is due. Claimed in
   * the database, so that of any number of processes one asks; the next question comes later (doubling).
   */
  async poll(_scope: MerchantScope, reference: string): Promise<void> {
    const row = await repo.findRailPaymentById(this.opts.db, reference);
    if (!row || row.method !== 'mpesa' || row.state !== 'pending' || row.resolve_at === null || row.external_id === null) return;
    const now = this.now();
    if (row.resolve_at > now) return;
    const gap = Math.min(MAX_QUESTION_GAP_MS, this.opts.queryAfterMs * 2 ** Math.min(row.queries + 1, 16));
    if (!(await repo.claimQuestion(this.opts.db, row.id, row.resolve_at, now + gap, now))) return;
    let answer;
    try {
      answer = await this.opts.client.stkQuery(row.external_id);
    } catch (err) {
      this.opts.logger?.warn({ err, rail_payment: row.id }, 'M-Pesa STK query failed; asking again later');
      return;
    }
    if (answer.state === 'pending') {
      // Stop asking once the intent can no longer be paid.
      const status = await repo.intentStatusOf(this.opts.db, row.payment_intent_id);
      if (status !== 'awaiting_payment') await repo.stopQuestions(this.opts.db, row.id, now);
      return;
    }
    await this.finishWith(row, answer.resultCode, answer.resultDesc, undefined, undefined);
  }

  /** Refunds of live M-Pesa payments wait for the operator's review (a reversal made by hand). */
  async refund(): Promise<RefundResult> {
    return { state: 'requested' };
  }

  /** A final answer (callback or query): one caller moves the payment on, through the one sink. */
  private async finishWith(row: RailPaymentRow, resultCode: number, resultDesc: string, paidKes?: number, receipt?: string): Promise<void> {
    const details = JSON.parse(row.details) as MpesaDetails;
    const mapped = outcomeOfResultCode(resultCode, resultDesc);
    let report: Omit<PaymentReport, 'intentId' | 'method'>;
    if (mapped.outcome === 'success') {
      report = { outcome: 'success', ...(receipt ? { providerReference: receipt } : {}) };
      // A different amount than asked is underpaid or overpaid (in the settlement asset, pro rata).
      if (paidKes !== undefined && paidKes !== details.amount_kes) {
        const intent = await repo.intentAmountsOf(this.opts.db, row.payment_intent_id);
        if (intent) {
          const asset = new Decimal(intent.pay_amount).mul(paidKes).div(details.amount_kes).toDecimalPlaces(6, Decimal.ROUND_DOWN);
          report = { ...report, outcome: paidKes < details.amount_kes ? 'underpaid' : 'overpaid', amount: asset };
        }
      }
    } else {
      report = {
        outcome: 'attempt_failed',
        failureCode: mapped.failureCode,
        ...(mapped.providerText ? { failureText: mapped.providerText } : {}),
      };
    }
    if (!(await repo.moveRailPayment(this.opts.db, row.id, 'pending', 'resolving', this.now()))) return;
    if (receipt) await repo.setProviderReference(this.opts.db, row.id, receipt);
    await this.resolve({ merchantId: row.merchant_id, environment: row.environment }, { ...row, state: 'resolving' }, report);
  }

  /** Reports an outcome and records what became of the rail payment; a refusal (cap, link full) is kept. */
  private async resolve(scope: MerchantScope, row: RailPaymentRow, report: Omit<PaymentReport, 'intentId' | 'method'>) {
    const from = row.state;
    try {
      const intent = await this.sink.report(scope, { ...report, intentId: row.payment_intent_id, method: 'mpesa' });
      const state = report.outcome === 'attempt_failed' ? 'failed' : 'succeeded';
      await repo.moveRailPayment(this.opts.db, row.id, from, state, this.now(), report.failureCode ?? null);
      return intent;
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'internal_error';
      await repo.moveRailPayment(this.opts.db, row.id, from, 'declined', this.now(), code);
      if (err instanceof AppError) return null;
      throw err;
    }
  }
}
