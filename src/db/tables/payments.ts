// Row types of payments: quotes, payment intents and their attempts, payment links and their visits, and
// payments under way on a rail (src/db/schema.ts assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export interface QuotesTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  source_currency: string;
  target_asset: string;
  side: 'customer_pays' | 'merchant_receives';
  rate: string;
  source_amount: string;
  target_amount: string;
  expires_at: number;
  created_at: number;
}

/** Every status a payment intent can have (the state machine, payment-intents/state-machine.ts, moves it). */
export const INTENT_STATUSES = ['created', 'awaiting_payment', 'confirming', 'paid', 'expired', 'cancelled', 'failed', 'refunded'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

export interface PaymentIntentsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  status: IntentStatus;
  amount: string;
  currency: string;
  settlement_currency: string;
  pay_amount: string;
  /** Fiat price of one unit of the settlement asset, embedded at creation. */
  rate: string;
  description: string | null;
  merchant_reference: string | null;
  /** JSON array of allowed methods. */
  payment_methods: string;
  /** JSON object or null. */
  customer: string | null;
  metadata: string;
  return_url: string | null;
  payment_link: string | null;
  payment_method: string | null;
  /** Asset amount received so far (underpayments add up here). */
  amount_received: string;
  failure_code: string | null;
  /** JSON `{code, message, payment_method}` of the last failed attempt, or null (reset by a success). */
  last_payment_error: string | null;
  /** The provider's reference of the payment that paid it (M-Pesa receipt number, transaction hash). */
  provider_reference: Generated<string | null>;
  /** JSON `{status, reason, amount, currency, opened_at, closed_at, provider_id}` of its dispute, or null. */
  dispute: Generated<string | null>;
  expires_at: number;
  created_at: number;
  paid_at: number | null;
  cancelled_at: number | null;
  updated_at: number;
}

export interface PaymentAttemptsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  payment_method: string;
  outcome: string;
  /** Asset amount received by this attempt (0 when nothing arrived). */
  amount: string;
  asset: string;
  /** The attempt's value in USD, for receiving caps. */
  usd_value: string;
  /** True when the attempt counted towards receiving caps (money was accepted). */
  counts_to_caps: number;
  failure_code: string | null;
  created_at: number;
}

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  title: string;
  /** Null when the customer enters the amount. */
  amount: string | null;
  currency: string;
  settlement_currency: string;
  /** Null means no cap. */
  max_payments: number | null;
  expires_at: number | null;
  /** The merchant's metadata, as JSON text exactly as sent. */
  metadata: string;
  /** 1, or 0 once the merchant deactivated it (it mints nothing then). */
  active: Generated<number>;
  created_at: number;
}

/** The intent one visit of a payment link's page minted (one per visit, however often the form is sent). */
export interface PaymentLinkVisitsTable {
  link_id: string;
  visit: string;
  payment_intent_id: string;
  created_at: number;
}

export type RailPaymentState = 'pending' | 'succeeded' | 'failed' | 'declined' | 'cancelled' | 'abandoned';

/** A payment started on a rail that finishes later (an STK push awaiting the phone, a PayPal approval). */
export interface RailPaymentsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  method: string;
  state: RailPaymentState;
  /** JSON: what the rail needs to finish it (the planned sandbox outcome, a masked phone number, ...). */
  details: string;
  /** Why it failed or was declined (card_declined, MERCHANT_LIMIT_EXCEEDED, ...). */
  failure_code: string | null;
  /** When the simulated provider answers (sandbox), or when to ask the provider next (live), ms. */
  resolve_at: number | null;
  /** The provider's id of the request (Daraja's CheckoutRequestID). */
  external_id: Generated<string | null>;
  /** SHA-256 (hex) of the payment's unguessable callback token. */
  callback_token_hash: Generated<string | null>;
  /** The provider's reference of the money received (the M-Pesa receipt number). */
  provider_reference: Generated<string | null>;
  /** How many times the provider was asked about it. */
  queries: Generated<number>;
  created_at: number;
  updated_at: number;
}

/**
 * A Daraja reversal, the refund of a live M-Pesa payment: `sending` (written before the call), `unsent`
 * (Daraja answered without taking it: send again), `accepted` (acknowledged: waiting for its result),
 * `succeeded`, `failed`.
 */
export interface MpesaReversalsTable {
  refund_id: string;
  payment_intent_id: string;
  /** SHA-256 (hex) of the unguessable token of its ResultURL and QueueTimeOutURL. */
  callback_token_hash: string;
  /** The M-Pesa receipt of the payment reversed. */
  transaction_id: string;
  amount_kes: number;
  state: 'sending' | 'unsent' | 'accepted' | 'succeeded' | 'failed';
  conversation_id: string | null;
  originator_conversation_id: string | null;
  result_code: string | null;
  result_desc: string | null;
  /** The reversal's own M-Pesa transaction id. */
  reversal_receipt: string | null;
  created_at: number;
  updated_at: number;
}

export type MpesaReversalRow = Selectable<MpesaReversalsTable>;
export type PaymentIntentRow = Selectable<PaymentIntentsTable>;
export type QuoteRow = Selectable<QuotesTable>;
export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type RailPaymentRow = Selectable<RailPaymentsTable>;
