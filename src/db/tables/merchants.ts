// Row types of merchants, their apps and API keys, and their customers (src/db/schema.ts assembles every
// area's tables into DB).
import type { Generated, Insertable, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export interface MerchantsTable {
  id: string;
  name: string;
  /** pending (nothing submitted), in_review (submitted in the console), verified, rejected (with a reason). */
  kyb_status: 'pending' | 'in_review' | 'verified' | 'rejected';
  status: 'active' | 'suspended';
  /** Receiving caps as decimal strings in USD-equivalent fiat value; null means no cap. */
  limit_per_payment: string | null;
  limit_daily: string | null;
  limit_monthly: string | null;
  created_at: number;
  /** The business verification the owner submitted (JSON), why it was refused, when it was submitted. */
  kyb_details: Generated<string | null>;
  kyb_reason: Generated<string | null>;
  kyb_submitted_at: Generated<number | null>;
  /** The transaction PIN for balance refunds in the console (scrypt), wrong ones in a row, and the lock. */
  pin_hash: Generated<string | null>;
  pin_failures: Generated<number>;
  pin_locked_until: Generated<number | null>;
  /** The IANA time zone the console shows times and days in (default Africa/Nairobi). */
  time_zone: Generated<string>;
}

export interface AppsTable {
  id: string;
  merchant_id: string;
  name: string;
  is_default: number;
  created_at: number;
}

export type KeyType = 'secret' | 'restricted' | 'publishable';

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  app_id: string;
  environment: Environment;
  type: KeyType;
  /** Hex SHA-256 of the whole key; the plaintext is never stored. */
  key_hash: string;
  /** First characters and last four, to recognise a key in listings. */
  key_hint: string;
  /** JSON array of scope names (empty for secret keys, which hold every scope). */
  scopes: string;
  /** JSON array of addresses and CIDR ranges; empty means any address. */
  allowed_ips: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  /** The key that replaced this one by rotation. */
  replaced_by: string | null;
}

export interface CustomersTable {
  id: string;
  merchant_id: string;
  environment: Environment;
  email: string | null;
  phone: string | null;
  name: string | null;
  reference: string | null;
  metadata: string;
  created_at: number;
}

/** A merchant as every request sees it (the business verification's details are read apart, by the console). */
export type Merchant = Omit<
  Selectable<MerchantsTable>,
  'kyb_details' | 'kyb_reason' | 'kyb_submitted_at' | 'pin_hash' | 'pin_failures' | 'pin_locked_until' | 'time_zone'
>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type CustomerRow = Selectable<CustomersTable>;
