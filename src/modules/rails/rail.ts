// The rail interface every payment method implements: start a payment, report its outcome, refund it
// later. Real rails (M-Pesa, card, PayPal, on-chain) plug in here without touching the state machine:
// whatever a provider says comes back through `PaymentOutcomeSink.report`, the one code path into the
// payment intent's state machine (payments.service.ts applyPaymentOutcome).
import type { PaymentIntentRow } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import { duePendingRailPayments } from './rail-payments.repo.js';
import type { Decimal } from '../../shared/money.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import type { PaymentMethod, PaymentReport, WithinOutcome } from '../payment-intents/index.js';
import type { WalletNetwork } from './payment-details.js';

export interface StartPaymentRequest {
  scope: MerchantScope;
  intent: PaymentIntentRow;
  method: PaymentMethod;
  /** Method-specific input (phone number, card token, wallet network, simulated outcome, ...). */
  details: Record<string, unknown>;
}

/** What starting a payment led to: finished already, or waiting for the provider's callback. */
export type StartPaymentResult =
  | { state: 'completed'; intent: PaymentIntentRow }
  | { state: 'pending'; reference: string; intent: PaymentIntentRow; nextAction?: Record<string, unknown> };

export interface RefundRequest {
  scope: MerchantScope;
  intent: PaymentIntentRow;
  amount: Decimal;
  returnAddress?: string;
}

export interface RefundResult {
  state: 'succeeded' | 'requested' | 'failed';
  reference?: string;
}

export interface PaymentRail {
  readonly name: string;
  readonly methods: readonly PaymentMethod[];
  /** External wallets: the networks offered (every one when absent). */
  readonly networks?: readonly WalletNetwork[];
  startPayment(request: StartPaymentRequest): Promise<StartPaymentResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * Asks the provider about a payment that started `pending` (an STK push waiting for the phone): a rail
   * whose provider has answered reports the outcome through its sink. Safe to call any number of times.
   */
  poll?(scope: MerchantScope, reference: string): Promise<void>;
  /** The customer's answer at the provider's own approval step (PayPal's redirect). */
  approve?(scope: MerchantScope, reference: string, approved: boolean): Promise<void>;
  /** Sandbox only: an on-chain deposit arrives at one of the merchant's addresses. */
  simulateDeposit?(scope: MerchantScope, deposit: SimulatedDeposit): Promise<DepositResult>;
  /** Stops timers; called when the server shuts down. */
  close?(): void;
}

export interface SimulatedDeposit {
  network: string;
  asset: string;
  /** Decimal string, exactly as sent on chain. */
  amount: string;
}

export interface DepositResult {
  id: string;
  status: 'credited' | 'unmatched';
  reason: string | null;
  payment_intent: string | null;
}

/** Where rails report outcomes; implemented by the payment service. */
export interface PaymentOutcomeSink {
  /** `within` runs in the outcome's own transaction (see WithinOutcome). */
  report(scope: MerchantScope, report: PaymentReport, within?: WithinOutcome): Promise<PaymentIntentRow>;
}

export class RailRegistry {
  private readonly byEnvMethod = new Map<string, PaymentRail>();

  register(environment: Environment, rail: PaymentRail): this {
    for (const m of rail.methods) this.byEnvMethod.set(`${environment}/${m}`, rail);
    return this;
  }

  /** The rail that carries a method in an environment, or null when none is configured. */
  railFor(environment: Environment, method: PaymentMethod): PaymentRail | null {
    return this.byEnvMethod.get(`${environment}/${method}`) ?? null;
  }

  /**
   * Rail questions (a worker's job): asks each rail about its pending payments whose answer is due, so a
   * payment whose callback was lost, or whose process died waiting, is still resolved. Each rail's poll
   * resolves a payment once, whoever asks.
   */
  async pollDue(db: Q, now: number): Promise<number> {
    const due = await duePendingRailPayments(db, now, 500);
    for (const row of due) {
      const rail = this.railFor(row.environment, row.method as PaymentMethod);
      await rail?.poll?.({ merchantId: row.merchant_id, environment: row.environment }, row.id);
    }
    return due.length;
  }

  close(): void {
    for (const rail of new Set(this.byEnvMethod.values())) rail.close?.();
  }
}
