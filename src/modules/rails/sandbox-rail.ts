// The sandbox simulator: a rail for every payment method, applying outcomes through the payments module as
// a real rail's callback does. Two ways in:
// - the sandbox driver (`details.outcome`): settles at once with the outcome the tester asks for;
// - the hosted checkout (method details): behaves like each provider with the sandbox's test values —
//   a card is answered at once, an M-Pesa STK push is pending until the simulated phone answers, PayPal
//   waits for the customer's approval on its own page, an external wallet waits for a deposit.
import type { PaymentIntentRow, RailPaymentRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import {
  PAYMENT_METHODS,
  PAYMENT_OUTCOMES,
  type DepositResult,
  type PaymentOutcome,
  type PaymentRail,
  type RefundRequest,
  type RefundResult,
  type SimulatedDeposit,
  type StartPaymentRequest,
  type StartPaymentResult,
} from '../payment-intents/index.js';
import type { PaymentService } from '../payments/index.js';
import {
  checkCard,
  maskPhone,
  normalizeMpesaPhone,
  sandboxCardResult,
  sandboxMpesaResult,
  type SandboxMpesaResult,
} from './payment-details.js';
import * as railRepo from './rail-payments.repo.js';
import { recordResolved, resolveRailPayment, type RailOutcome, type Resolved } from './rail-outcomes.js';
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
    private readonly payments: PaymentService,
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
          const intent = await this.payments.apply(request.scope, { intentId: request.intent.id, method: 'card', outcome: 'dispute' });
          return { state: 'completed', intent };
        }
        return done;
      }
      case 'mpesa': {
        const phone = normalizeMpesaPhone(String(request.details['phone'] ?? ''));
        const planned = sandboxMpesaResult(phone);
        const now = await this.nowMs(request.scope);
        const row = this.railPayment(
          request,
          { phone: maskPhone(phone), planned },
          now,
          now + (this.options.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS),
        );
        await railRepo.insertRailPayment(this.options.db, row);
        this.answerLater(request.scope, row.id, this.options.mpesaAnswerMs ?? DEFAULT_MPESA_ANSWER_MS);
        return { state: 'pending', reference: row.id, intent: request.intent, nextAction: { type: 'stk_push', phone: maskPhone(phone) } };
      }
      case 'paypal': {
        const row = this.railPayment(request, {}, await this.nowMs(request.scope), null);
        await railRepo.insertRailPayment(this.options.db, row);
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
    const intent = await this.payments.apply(
      request.scope,
      {
        intentId: request.intent.id,
        method: request.method,
        outcome: outcome as PaymentOutcome,
        amount: request.details['amount'] as Decimal | undefined,
        failureCode: typeof request.details['failure_code'] === 'string' ? request.details['failure_code'] : undefined,
      },
      request.commitWith,
    );
    return { state: 'completed', intent };
  }

  /** A new rail payment of this request, pending (the caller writes it, alone or with its outcome). */
  private railPayment(
    request: StartPaymentRequest,
    details: Record<string, unknown>,
    now: number,
    resolveAt: number | null,
  ): RailPaymentRow {
    return {
      id: newId('rail_payment'),
      merchant_id: request.scope.merchantId,
      environment: request.scope.environment,
      payment_intent_id: request.intent.id,
      method: request.method,
      state: 'pending',
      details: JSON.stringify(details),
      failure_code: null,
      resolve_at: resolveAt,
      external_id: null,
      callback_token_hash: null,
      provider_reference: null,
      queries: 0,
      created_at: now,
      updated_at: now,
    };
  }

  /** A provider that answers in the same call (card, balance): the attempt and its outcome, in one transaction. */
  private async completeAtOnce(
    request: StartPaymentRequest,
    result: { outcome: 'success' } | { outcome: 'attempt_failed'; failureCode: string },
    details: Record<string, unknown>,
  ): Promise<StartPaymentResult> {
    const row = this.railPayment(request, details, await this.nowMs(request.scope), null);
    const outcome: RailOutcome =
      result.outcome === 'attempt_failed' ? { outcome: 'attempt_failed', failureCode: result.failureCode } : { outcome: 'success' };
    return { state: 'completed', intent: intentOrThrow(await recordResolved(this.options.db, this.payments, row, outcome)) };
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
    const row = await railRepo.findRailPayment(this.options.db, scope, reference);
    if (!row || row.state !== 'pending' || row.method !== 'mpesa' || row.resolve_at === null) return;
    const now = await this.nowMs(scope);
    if (row.resolve_at > now) return;
    const planned = (JSON.parse(row.details) as { planned: SandboxMpesaResult }).planned;
    const outcome: RailOutcome =
      planned.outcome === 'attempt_failed' ? { outcome: 'attempt_failed', failureCode: planned.failureCode } : { outcome: planned.outcome };
    // A refusal (cap, link full) is kept on the rail payment (declined); the checkout shows it.
    await resolveRailPayment(this.options.db, this.payments, row, 'pending', outcome, now);
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
    const resolved = await resolveRailPayment(db, this.payments, row, 'pending', { outcome: 'success' }, await this.nowMs(scope));
    if (!resolved) throw new AppError('intent_not_payable', 'This PayPal approval was already used.');
    intentOrThrow(resolved);
  }

  async simulateDeposit(scope: MerchantScope, deposit: SimulatedDeposit): Promise<DepositResult> {
    if (scope.environment !== 'test') throw new AppError('sandbox_only', 'Simulated deposits exist only in the sandbox.');
    return receiveDeposit(this.options.db, this.payments, scope, deposit, await this.nowMs(scope));
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

/** The intent after a resolved outcome; a refusal (cap, link full) is thrown to the caller (the checkout shows it). */
function intentOrThrow(resolved: Resolved): PaymentIntentRow {
  if ('refused' in resolved) throw resolved.refused;
  return resolved.intent;
}
