// The port every payment rail implements (the sandbox simulator of every method, M-Pesa through Daraja,
// on-chain stablecoins, …) and the registry of which rail carries which method in each environment. The
// rails themselves live in the rails module and apply what their provider says through the payments module;
// the intent service asks the registry which methods a new intent can offer.
import type { PaymentIntentRow } from '../../db/schema.js';
import type { CommitWith } from '../../db/transaction.js';
import type { ChainNetwork } from '../../shared/chains.js';
import type { Decimal, SettlementAsset } from '../../shared/money.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import type { PaymentMethod } from './payment-methods.js';

export interface StartPaymentRequest {
  scope: MerchantScope;
  intent: PaymentIntentRow;
  method: PaymentMethod;
  /** Method-specific input (phone number, card token, wallet network, simulated outcome, ...). */
  details: Record<string, unknown>;
  /** What commits with the outcome when the rail answers at once (the sandbox driver's idempotent response). */
  commitWith?: CommitWith<PaymentIntentRow>;
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

/** An approved refund, sent through the payment's own rail. */
export interface RefundToSend {
  scope: MerchantScope;
  intent: PaymentIntentRow;
  refundId: string;
  amount: Decimal;
  returnAddress?: string;
}

/** What a provider says of a refund sent to it: still under way, or final. */
export type ProviderRefund =
  | { state: 'pending'; reference: string }
  | { state: 'succeeded'; reference: string }
  | { state: 'failed'; reference?: string; reason: string };

export interface PaymentRail {
  readonly name: string;
  readonly methods: readonly PaymentMethod[];
  /** The settlement assets of the intents it can pay (every one when absent): the balance rail's USDT and USDC. */
  readonly assets?: readonly SettlementAsset[];
  /** External wallets: the networks offered (every one when absent). */
  readonly networks?: readonly ChainNetwork[];
  startPayment(request: StartPaymentRequest): Promise<StartPaymentResult>;
  refund(request: RefundRequest): Promise<RefundResult>;
  /**
   * Asks the provider about a payment that started `pending` (an STK push waiting for the phone): a rail
   * whose provider has answered applies the outcome (the payments module). Safe to call any number of times.
   */
  poll?(scope: MerchantScope, reference: string): Promise<void>;
  /**
   * Sends an approved refund to the provider (live provider rails). It must first look for a refund of
   * the payment that an earlier call (one that crashed before recording its answer) made at the provider,
   * and answer that one. Absent: the rail is not configured for refunds, which stay `requested`.
   */
  sendRefund?(refund: RefundToSend): Promise<ProviderRefund>;
  /** Asks the provider about a refund sent earlier, by the provider's reference. */
  refundStatus?(scope: MerchantScope, reference: string): Promise<ProviderRefund>;
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

  close(): void {
    for (const rail of new Set(this.byEnvMethod.values())) rail.close?.();
  }
}
