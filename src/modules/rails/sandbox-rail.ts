// The sandbox simulator: a rail for every payment method, reporting through the same sink a real rail's
// callback uses. Two ways in:
// - the sandbox driver (`details.outcome`): settles at once with the outcome the tester asks for;
// - the hosted checkout (method details): behaves like each provider with the test values of DECISIONS —
//   a card is answered at once, an M-Pesa STK push is pending until the simulated phone answers, PayPal
//   waits for the customer's approval on its own page, an external wallet waits for a deposit.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { RailPaymentRow } from '../../db/schema-checkout.js';
import { AppError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Decimal } from '../../shared/money.js';
import { PAYMENT_METHODS } from '../payment-intents/payment-methods.js';
import { PAYMENT_OUTCOMES, type PaymentOutcome } from '../payment-intents/payments.service.js';
import { merchantClock } from '../sandbox/sandbox-clock.js';
import { checkCard, maskPhone, normalizeMpesaPhone, sandboxCardResult, sandboxMpesaResult, type SandboxMpesaResult } from './payment-details.js';
import type {
  DepositResult,
  OutcomeReport,
  PaymentOutcomeSink,
  PaymentRail,
  RailScope,
  RefundRequest,
  RefundResult,
  SimulatedDeposit,
  StartPaymentRequest,
  StartPaymentResult,
} from './rail.js';
import * as railRepo from './rail-payments.repo.js';
import { allocateWalletAmount, receiveDeposit } from './sandbox-wallet.js';

export interface SandboxRailOptions {
  db: Kysely<DB>;
  /** The base clock; each merchant's sandbox clock is layered on it. */
  clock: Clock;
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
    private readonly opts?: SandboxRailOptions,
  ) {}

  private get options(): SandboxRailOptions {
    if (!this.opts) throw new Error('the sandbox rail was built without a database: only the sandbox driver is available');
    return this.opts;
  }

  private async nowMs(scope: RailScope): Promise<number> {
    return (await merchantClock(this.options.db, this.options.clock, scope.merchantId, scope.environment)).nowMs();
  }

  async startPayment(request: StartPaymentRequest): Promise<StartPaymentResult> {
    if (request.scope.environment !== 'test') throw new Error('the sandbox rail only carries sandbox payments');
    if (request.details['outcome'] !== undefined) return this.drive(request);
    switch (request.method) {
      case 'service_balance':
        return this.completeAtOnce(request, { outcome: 'success' }, { payer: 'sandbox payer balance' });
      case 'card': {
        const card = checkCard(
          { number: String(request.details['number'] ?? ''), expiry: String(request.details['expiry'] ?? ''), cvc: String(request.details['cvc'] ?? '') },
          await this.nowMs(request.scope),
        );
        const result = sandboxCardResult(card.number);
        const details = { last4: card.last4 };
        if (result.outcome === 'failed') return this.completeAtOnce(request, { outcome: 'failed', failureCode: result.failureCode }, details);
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
        const row = await this.recordRailPayment(request, 'pending', { phone: maskPhone(phone), planned }, null, now + (this.opts?.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS));
        this.answerLater(request.scope, row.id, this.opts?.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS);
        return { state: 'pending', reference: row.id, intent: request.intent, nextAction: { type: 'stk_push', phone: maskPhone(phone) } };
      }
      case 'paypal': {
        const row = await this.recordRailPayment(request, 'pending', {}, null, null);
        const approvalPath = this.options.approvalPath ?? ((id, ref) => `/checkout/${id}/paypal/${ref}`);
        return { state: 'pending', reference: row.id, intent: request.intent, nextAction: { type: 'redirect', url: approvalPath(request.intent.id, row.id) } };
      }
      case 'external_wallet': {
        const { db, clock } = this.options;
        const mclock = await merchantClock(db, clock, request.scope.merchantId, request.scope.environment);
        const wallet = await allocateWalletAmount(db, request.scope, request.intent, request.details['network'], () => mclock.nowMs());
        return { state: 'pending', reference: `${request.intent.id}/${wallet.network}`, intent: request.intent, nextAction: { type: 'wallet_deposit', ...wallet } };
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
      created_at: now,
      updated_at: now,
    };
    await railRepo.insertRailPayment(this.options.db, row);
    return row;
  }

  /** A provider that answers in the same call (card, balance): record the attempt, report, note the result. */
  private async completeAtOnce(
    request: StartPaymentRequest,
    result: { outcome: 'success' } | { outcome: 'failed'; failureCode: string },
    details: Record<string, unknown>,
  ): Promise<StartPaymentResult> {
    const row = await this.recordRailPayment(request, 'resolving', details, null, null);
    const report: Omit<OutcomeReport, 'intentId'> =
      result.outcome === 'failed' ? { method: request.method, outcome: 'failed', failureCode: result.failureCode } : { method: request.method, outcome: 'success' };
    const intent = await this.finish(request.scope, row, report);
    return { state: 'completed', intent };
  }

  /** Reports a rail payment's outcome and records what became of it; rethrows a refusal (caps, link full). */
  private async finish(scope: RailScope, row: RailPaymentRow, report: Omit<OutcomeReport, 'intentId'>) {
    const db = this.options.db;
    try {
      const intent = await this.sink.report(scope, { ...report, intentId: row.payment_intent_id });
      const state = report.outcome === 'failed' ? 'failed' : report.outcome === 'cancelled' ? 'cancelled' : 'succeeded';
      await railRepo.moveRailPayment(db, row.id, 'resolving', state, await this.nowMs(scope), report.failureCode ?? null);
      return intent;
    } catch (err) {
      const code = err instanceof AppError ? err.code : 'internal_error';
      await railRepo.moveRailPayment(db, row.id, 'resolving', 'declined', await this.nowMs(scope), code);
      throw err;
    }
  }

  private answerLater(scope: RailScope, reference: string, delayMs: number): void {
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
  async poll(scope: RailScope, reference: string): Promise<void> {
    if (this.closed) return;
    const db = this.options.db;
    const row = await railRepo.findRailPayment(db, scope, reference);
    if (!row || row.state !== 'pending' || row.method !== 'mpesa' || row.resolve_at === null) return;
    if (row.resolve_at > (await this.nowMs(scope))) return;
    if (!(await railRepo.moveRailPayment(db, row.id, 'pending', 'resolving', await this.nowMs(scope)))) return;
    const planned = (JSON.parse(row.details) as { planned: SandboxMpesaResult }).planned;
    const report: Omit<OutcomeReport, 'intentId'> =
      planned.outcome === 'failed' ? { method: 'mpesa', outcome: 'failed', failureCode: planned.failureCode } : { method: 'mpesa', outcome: planned.outcome };
    await this.finish(scope, row, report).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
    });
  }

  /** The customer approved (or turned back from) the simulated PayPal page. */
  async approve(scope: RailScope, reference: string, approved: boolean): Promise<void> {
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

  async simulateDeposit(scope: RailScope, deposit: SimulatedDeposit): Promise<DepositResult> {
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
