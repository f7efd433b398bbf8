// Row types of every table. Times are integer milliseconds since the epoch (bigint on PostgreSQL,
// INTEGER on SQLite); JSON is stored as text on both engines so one set of queries serves both.
import type { Generated, Insertable, Selectable } from 'kysely';

export type EnvironmentColumn = 'live' | 'test';

export interface MerchantsTable {
  id: string;
  name: string;
  kyb_status: 'pending' | 'verified';
  status: 'active' | 'suspended';
  /** Receiving caps as decimal strings in USD-equivalent fiat value; null means no cap. */
  limit_per_payment: string | null;
  limit_daily: string | null;
  limit_monthly: string | null;
  created_at: number;
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
  environment: EnvironmentColumn;
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
  environment: EnvironmentColumn;
  email: string | null;
  phone: string | null;
  name: string | null;
  reference: string | null;
  metadata: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  merchant_id: string;
  idem_key: string;
  environment: EnvironmentColumn;
  method: string;
  path: string;
  request_hash: string;
  state: 'in_progress' | 'done';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  created_at: number;
  /** While in progress, when the lock lapses (a crashed request); once done, when the record is forgotten. */
  expires_at: number;
}

export interface SystemFlagsTable {
  name: string;
  created_at: number;
}

export interface DB {
  merchants: MerchantsTable;
  apps: AppsTable;
  api_keys: ApiKeysTable;
  customers: CustomersTable;
  idempotency_keys: IdempotencyKeysTable;
  system_flags: SystemFlagsTable;
}

export type Merchant = Selectable<MerchantsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type CustomerRow = Selectable<CustomersTable>;
// Kept for later tables with database-generated columns.
export type { Generated };
