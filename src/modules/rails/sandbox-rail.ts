// The sandbox simulator: a rail for every payment method, reporting through the same sink a real rail's
// callback uses. Two ways in:
// - the sandbox driver (`details.outcome`): settles at once with the outcome the tester asks for;
// - the hosted checkout (method details): behaves like each provider with the test values of DECISIONS —
//   a card is answered at once, an M-Pesa STK push is pending until the simulated phone answers, PayPal
//   waits for the customer's approval on its own page, an external wallet waits for a deposit.
import type { RailPaymentRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import { PAYMENT_METHODS, PAYMENT_OUTCOMES, type PaymentOutcome, type PaymentReport } from '../payment-intents/index.js';
import {
  checkCard,
  maskPhone,
  normalizeMpesaPhone,
  sandboxCardResult,
  sandboxMpesaResult,
  type SandboxMpesaResult,
} from './payment-details.js';
import type {
  DepositResult,
  PaymentOutcomeSink,
  PaymentRail,
  RefundRequest,
  RefundResult,
  SimulatedDeposit,
  StartPaymentRequest,
  StartPaymentResult,
} from './rail.js';
import * as railRepo from './rail-payments.repo.js';
import { allocateWalletAmount, receiveDeposit } from './sandbox-wallet.js';

export interface SandboxRailOptions {
  db: Db;
  clocks: MerchantClocks;
  /** Where the simulated PayPal approval page of a payment is (absolute path on the checkout's origin). */
  approvalPath?: (intentId: string, reference: string) => string;
  /** How long the simulated phone takes to answer an STK push. */
  mpesaAnswerMs?: number;
}

export const DEFAULT_MPESA_ANSWER_MS = 2000;

export class SandboxRail implements PaymentRail {
  readonly name = 'sandbox';
  readonly methods = PAYMENT_METHODS;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly sink: PaymentOutcomeSink,
    private readonly options: SandboxRailOptions,
  ) {}

  private nowMs(scope: MerchantScope): Promise<number> {
    return this.options.clocks.nowMs(scope);
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    if (request.scope.environment !== 'test') throw new Error('the sandbox rail only carries sandbox payments');
    if (request.details['outcome'] !== undefined) return this.drive(request);
    switch (request.method) {
      case 'service_balance':
        return this.completeAtOnce(request, { outcome: 'success' }, { payer: 'sandbox payer balance' });
      case 'card': {
        const card = checkCard(
          {
            number: String(request.details['number'] ?? ''),
            expiry: String(request.details['expiry'] ?? ''),
            cvc: String(request.details['cvc'] ?? ''),
          },
          await this.nowMs(request.scope),
        );
        const result = sandboxCardResult(card.number);
        const details = { last4: card.last4 };
        if (result.outcome === 'attempt_failed')
          return this.completeAtOnce(request, { outcome: 'attempt_failed', failureCode: result.failureCode }, details);
        const done = await this.completeAtOnce(request, { outcome: 'success' }, details);
        if (result.thenDispute) {
          const intent = await this.sink.report(request.scope, { intentId: request.intent.id, method: 'card', outcome: 'dispute' });
          return { state: 'completed', intent };
        }
        return done;
      }
      case 'mpesa': {
        const phone = normalizeMpesaPhone(String(request.details['phone'] ?? ''));
        const planned = sandboxMpesaResult(phone);
        const now = await this.nowMs(request.scope);
        const row = await this.recordRailPayment(
          request,
          'pending',
          { phone: maskPhone(phone), planned },
          null,
          now + (this.options.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS),
        );
        this.answerLater(request.scope, row.id, this.options.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS);
        return { state: 'pending', reference: row.id, intent: request.intent, nextAction: { type: 'stk_push', phone: maskPhone(phone) } };
      }
      case 'paypal': {
        const row = await this.recordRailPayment(request, 'pending', {}, null, null);
        const approvalPath = this.options.approvalPath ?? ((id, ref) => `/checkout/${id}/paypal/${ref}`);
        return {
          state: 'pending',
          reference: row.id,
          intent: request.intent,
          nextAction: { type: 'redirect', url: approvalPath(request.intent.id, row.id) },
        };
      }
      case 'external_wallet': {
        const mclock = await this.options.clocks.of(request.scope);
        const wallet = await allocateWalletAmount(this.options.db, request.scope, request.intent, request.details['network'], () =>
          mclock.nowMs(),
        );
        return {
          state: 'pending',
          reference: `${request.intent.id}/${wallet.network}`,
          intent: request.intent,
          nextAction: { type: 'wallet_deposit', ...wallet },
        };
      }
    }
  }

  /** The sandbox driver: the outcome the tester asked for, at once. */
  private async drive(request: StartPaymentRequest): Promise<StartPaymentResult> {
    const outcome = request.details['outcome'];
    if (typeof outcome !== 'string' || !(PAYMENT_OUTCOMES as readonly string[]).includes(outcome)) {
      throw new Error(`sandbox rail: unknown outcome ${String(outcome)}`);
    }
    const intent = await this.sink.report(request.scope, {
      intentId: request.intent.id,
      method: request.method,
      outcome: outcome as PaymentOutcome,
      amount: request.details['amount'] as Decimal | undefined,
      failureCode: typeof request.details['failure_code'] === 'string' ? request.details['failure_code'] : undefined,
    });
    return { state: 'completed', intent };
  }

  private async recordRailPayment(
    request: StartPaymentRequest,
    state: RailPaymentRow['state'],
    details: Record<string, unknown>,
    failureCode: string | null,
    resolveAt: number | null,
  ): Promise<RailPaymentRow> {
    const now = await this.nowMs(request.scope);
    const row: RailPaymentRow = {
      id: newId('rail_payment'),
      merchant_id: request.scope.merchantId,
      environment: request.scope.environment,
      payment_intent_id: request.intent.id,
      method: request.method,
      state,
      details: JSON.stringify(details),
      failure_code: failureCode,
      resolve_at: resolveAt,
      external_id: null,
      callback_token_hash: null,
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
    await railRepo.insertRailPayment(this.options.db, row);
    return row;
  }

  /** A provider that answers in the same call (card, balance): record the attempt, report, note the result. */
  private async completeAtOnce(
    request: StartPaymentRequest,
    result: { outcome: 'success' } | { outcome: 'attempt_failed'; failureCode: string },
    details: Record<string, unknown>,
  ): Promise<StartPaymentResult> {
    const row = await this.recordRailPayment(request, 'resolving', details, null, null);
    const report: Omit<PaymentReport, 'intentId'> =
      result.outcome === 'attempt_failed'
        ? { method: request.method, outcome: 'attempt_failed', failureCode: result.failureCode }
        : { method: request.method, outcome: 'success' };
    const intent = await this.finish(request.scope, row, report);
    return { state: 'completed', intent };
  }

  /** Reports a rail payment's outcome and records what became of it; rethrows a refusal (caps, link full). */
  private async finish(scope: MerchantScope, row: RailPaymentRow, report: Omit<PaymentReport, 'intentId'>) {
    const db = this.options.db;
    try {
      const intent = await this.sink.report(scope, { ...report, intentId: row.payment_intent_id });
      const state =
        report.outcome === 'failed' || report.outcome === 'attempt_failed'
          ? 'failed'
          : report.outcome === 'cancelled'
            ? 'cancelled'
            : 'succeeded';
      await railRepo.moveRailPayment(db, row.id, 'resolving', state, await this.nowMs(scope), report.failureCode ?? null);
      return intent;
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'internal_error';
      await railRepo.moveRailPayment(db, row.id, 'resolving', 'declined', await this.nowMs(scope), code);
      throw err;
    }
  }

  private answerLater(scope: MerchantScope, reference: string, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // A refusal (cap, link full) is recorded on the rail payment; the checkout shows it.
      this.poll(scope, reference).catch(() => {});
    }, delayMs + 20);
    timer.unref();
    this.timers.add(timer);
  }

  /** The simulated phone answers an STK push once its time has come; only one caller resolves it. */
  async poll(scope: MerchantScope, reference: string): Promise<void> {
    if (this.closed) return;
    const db = this.options.db;
    const row = await railRepo.findRailPayment(db, scope, reference);
    if (!row || row.state !== 'pending' || row.method !== 'mpesa' || row.resolve_at === null) return;
    if (row.resolve_at > (await this.nowMs(scope))) return;
    if (!(await railRepo.moveRailPayment(db, row.id, 'pending', 'resolving', await this.nowMs(scope)))) return;
    const planned = (JSON.parse(row.details) as { planned: SandboxMpesaResult }).planned;
    const report: Omit<PaymentReport, 'intentId'> =
      planned.outcome === 'attempt_failed'
        ? { method: 'mpesa', outcome: 'attempt_failed', failureCode: planned.failureCode }
        : { method: 'mpesa', outcome: planned.outcome };
    await this.finish(scope, row, report).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
    });
  }

  /** The customer approved (or turned back from) the simulated PayPal page. */
  async approve(scope: MerchantScope, reference: string, approved: boolean): Promise<void> {
    const db = this.options.db;
    const row = await railRepo.findRailPayment(db, scope, reference);
    if (!row || row.method !== 'paypal') throw new AppError('resource_missing', 'No such PayPal approval.', { param: 'id' });
    if (!approved) {
      await railRepo.moveRailPayment(db, row.id, 'pending', 'abandoned', await this.nowMs(scope));
      return;
    }
    if (!(await railRepo.moveRailPayment(db, row.id, 'pending', 'resolving', await this.nowMs(scope)))) {
      throw new AppError('intent_not_payable', 'This PayPal approval was already used.');
    }
    await this.finish(scope, row, { method: 'paypal', outcome: 'success' });
  }

  async simulateDeposit(scope: MerchantScope, deposit: SimulatedDeposit): Promise<DepositResult> {
    if (scope.environment !== 'test') throw new AppError('sandbox_only', 'Simulated deposits exist only in the sandbox.');
    return receiveDeposit(this.options.db, this.sink, scope, deposit, await this.nowMs(scope));
  }

  async refund(_request: RefundRequest): Promise<RefundResult> {
    return { state: 'succeeded' };
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
