// Row types of the tables of the hosted checkout and payment links (migration 0005-checkout-links).
import type { Selectable } from 'kysely';
import type { EnvironmentColumn } from './schema.js';

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  environment: EnvironmentColumn;
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
  created_at: number;
}

export type RailPaymentState = 'pending' | 'resolving' | 'succeeded' | 'failed' | 'declined' | 'cancelled' | 'abandoned';

/** A payment started on a rail that finishes later (an STK push awaiting the phone, a PayPal approval). */
export interface RailPaymentsTable {
  id: string;
  merchant_id: string;
  environment: EnvironmentColumn;
  payment_intent_id: string;
  method: string;
  state: RailPaymentState;
  /** JSON: what the rail needs to finish it (the planned sandbox outcome, a masked phone number, ...). */
  details: string;
  /** Why it failed or was declined (card_declined, MERCHANT_LIMIT_EXCEEDED, ...). */
  failure_code: string | null;
  /** When the simulated provider answers (sandbox), ms. */
  resolve_at: number | null;
  created_at: number;
  updated_at: number;
}

export type WalletAllocationState = 'open' | 'credited' | 'released';

/**
 * The exact amount an intent expects on one network. A partial unique index over (environment, network,
 * asset, address, amount) WHERE state = 'open' means two open intents never share all four.
 */
export interface WalletAllocationsTable {
  id: string;
  merchant_id: string;
  environment: EnvironmentColumn;
  payment_intent_id: string;
  network: string;
  asset: string;
  address: string;
  amount: string;
  state: WalletAllocationState;
  /** The intent's expiry (merchant clock, ms): an open allocation past it is released for reuse. */
  expires_at: number;
  created_at: number;
}

export interface WalletDepositsTable {
  id: string;
  merchant_id: string;
  environment: EnvironmentColumn;
  network: string;
  asset: string;
  address: string;
  amount: string;
  tx_hash: string;
  status: 'credited' | 'unmatched';
  /** Why an unmatched deposit was not credited. */
  reason: string | null;
  payment_intent_id: string | null;
  created_at: number;
}

export interface CheckoutSecretsTable {
  id: string;
  /** Hex of 32 random bytes. */
  secret: string;
  created_at: number;
}

export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type RailPaymentRow = Selectable<RailPaymentsTable>;
export type WalletAllocationRow = Selectable<WalletAllocationsTable>;
export type WalletDepositRow = Selectable<WalletDepositsTable>;
