// Row types of payouts: what a merchant asked to take out (or an external-wallet refund's send), each
// signed transfer of it, and the EVM senders' nonces (src/db/schema.ts assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export type PayoutStatus = 'requested' | 'sent' | 'paid' | 'failed' | 'cancelled';

export interface PayoutsTable {
  id: string;
  /** The merchant paying out or refunding; null for a payer's withdrawal. */
  merchant_id: string | null;
  environment: Environment;
  /**
   * `payout` (the merchant's), `refund` (the send of an external-wallet refund, never listed as a payout) or
   * `payer_withdrawal` (a payer's, from the service balance; never listed as a merchant's payout).
   */
  purpose: 'payout' | 'refund' | 'payer_withdrawal';
  /** The payer withdrawing (purpose `payer_withdrawal`); null otherwise. */
  payer_id: string | null;
  /**
   * A withdrawal's one-time form key (unique per payer): the same form sent twice (a double click, a
   * resend) makes one withdrawal. Null for merchants' payouts, which have Idempotency-Key.
   */
  payer_request_key: string | null;
  refund_id: string | null;
  /** Decimal text with the asset's decimals: exactly what the address receives and the balance loses. */
  amount: string;
  asset: string;
  network: string;
  address: string;
  status: PayoutStatus;
  tx_hash: string | null;
  failure_reason: string | null;
  /** When it was approved (by the threshold, the operator, or the refund's approval); null while waiting. */
  approved_at: number | null;
  /** Sandbox: when (the merchant's sandbox time) a sent payout is paid. */
  resolve_at: number | null;
  created_at: number;
  sent_at: number | null;
  paid_at: number | null;
  updated_at: number;
}

export type PayoutTransactionState = 'signed' | 'broadcast' | 'landed' | 'dropped';

export interface PayoutTransactionsTable {
  seq: Generated<number>;
  payout_id: string;
  network: string;
  /** 1 for the first transfer; each replacement or re-signing adds one. */
  attempt: number;
  nonce: number | null;
  tx_hash: string;
  raw: string;
  valid_until: number | null;
  state: PayoutTransactionState;
  broadcast_block: number | null;
  created_at: number;
  updated_at: number;
}

export interface PayoutNoncesTable {
  network: string;
  /** The hot wallet's address the count belongs to (a new key starts a new count). */
  sender: string;
  next_nonce: number;
}

export type PayoutRow = Selectable<PayoutsTable>;
export type PayoutTransactionRow = Selectable<PayoutTransactionsTable>;
