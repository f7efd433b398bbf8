// Row types of payer accounts (the live service balance): payers, their sessions, the legs of their
// balances in the ledger, and what was done to them (src/db/schema.ts assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export type PayerStatus = 'active' | 'suspended';

export interface PayersTable {
  /** `pyr_…`. */
  id: string;
  environment: Environment;
  /** Lower-cased; unique within the environment. */
  email: string;
  /** scrypt$N$r$p$salt$hash, as the console's (src/modules/console/passwords.ts). */
  password_hash: string;
  totp_secret: string | null;
  totp_pending: string | null;
  /** JSON array of the SHA-256 of the unused recovery codes (src/shared/sign-in.ts), while TOTP is on. */
  recovery_codes: string | null;
  /** Consecutive wrong passwords; five lock sign-in until locked_until. */
  failed_logins: Generated<number>;
  locked_until: number | null;
  /** The 6-digit transaction PIN, hashed like a password. */
  pin_hash: string;
  /** Consecutive wrong PINs; five lock paying and withdrawing until pin_locked_until. */
  pin_failures: Generated<number>;
  pin_locked_until: number | null;
  status: PayerStatus;
  created_at: number;
  updated_at: number;
}

export interface PayerSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  payer_id: string;
  csrf: string;
  created_at: number;
  expires_at: number;
}

export interface PayerLedgerEntriesTable {
  seq: Generated<number>;
  /** The legs of one movement share it; they sum to zero per asset. */
  movement_id: string;
  payer_id: string;
  environment: Environment;
  asset: string;
  /** `payer_balance` (what the payer holds) or `world` (where money comes from and goes to). */
  account: string;
  /** Signed decimal: numeric on PostgreSQL (read as a string), text on SQLite. */
  amount: string;
  kind: string;
  payment_intent_id: string | null;
  refund_id: string | null;
  /** The merchant paid or refunding, when the movement is a payment or a refund. */
  merchant_id: string | null;
  /** The operator's reason of an adjustment. */
  reason: string | null;
  /** The withdrawal (a payout row) the movement holds, sends or releases. */
  payout_id: string | null;
  created_at: number;
}

export interface PayerAuditTable {
  id: string;
  payer_id: string;
  /** The payer's email, or `operator` for the command line. */
  actor: string;
  action: string;
  /** JSON. */
  detail: string | null;
  ip: string | null;
  created_at: number;
}

export type PayerRow = Selectable<PayersTable>;
export type PayerLedgerEntryRow = Selectable<PayerLedgerEntriesTable>;
