// Row types of money held and returned: settlements, refunds and the ledger (src/db/schema.ts assembles
// every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export type SettlementStatus = 'pending' | 'available' | 'frozen';

export interface SettlementsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  asset: string;
  /** Asset amount, exactly the asset's decimals. */
  amount: string;
  status: SettlementStatus;
  available_at: number | null;
  settled_at: number;
  /** While frozen by a dispute: the status it had before, which a won dispute returns it to. */
  status_before_dispute: Generated<SettlementStatus | null>;
  created_at: number;
  updated_at: number;
}

export type RefundStatus = 'requested' | 'pending' | 'succeeded' | 'failed';

export interface RefundsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  payment_intent_id: string;
  /** The intent's fiat amount and currency (full refunds only). */
  amount: string;
  currency: string;
  /** What leaves the merchant's balance: the settled asset amount. */
  asset: string;
  asset_amount: string;
  payment_method: string;
  status: RefundStatus;
  reason: string | null;
  return_address: string | null;
  rail_reference: string | null;
  /** Why it failed (the operator's reason, the provider's words), or null. */
  failure_reason: Generated<string | null>;
  /** While `pending` at its provider: when to ask the provider about it next (ms), or null. */
  resolve_at: Generated<number | null>;
  /** How many times the provider was asked about it. */
  queries: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface LedgerEntriesTable {
  seq: Generated<number>;
  /** The legs of one movement share it; they sum to zero per asset. */
  movement_id: string;
  merchant_id: string;
  environment: Environment;
  asset: string;
  account: string;
  /** Signed decimal: numeric on PostgreSQL (read as a string), text on SQLite. */
  amount: string;
  kind: string;
  payment_intent_id: string | null;
  settlement_id: string | null;
  refund_id: string | null;
  payout_id: Generated<string | null>;
  created_at: number;
}

export type SettlementRow = Selectable<SettlementsTable>;
export type RefundRow = Selectable<RefundsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
