// Row types of the server's own tables: idempotency records, leases, flags, sandbox clocks, the checkout's
// key and reference prices (src/db/schema.ts assembles every area's tables into DB).
import type { Environment } from '../../shared/scope.js';

export interface IdempotencyKeysTable {
  merchant_id: string;
  idem_key: string;
  environment: Environment;
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

export interface SandboxClocksTable {
  merchant_id: string;
  offset_ms: number;
  updated_at: number;
}

export interface CheckoutSecretsTable {
  id: string;
  /** Hex of 32 random bytes. */
  secret: string;
  created_at: number;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

/** The last good reference price of an asset in a fiat currency (src/modules/rates/). */
export interface ReferencePricesTable {
  asset: string;
  currency: string;
  /** Fiat per one unit of the asset, a decimal string. */
  price: string;
  /** When the fetch that made it finished (ms). */
  updated_at: number;
}
