// Row type of payers' M-Pesa top-ups (src/modules/payers/mpesa-topups.service.ts; src/db/schema.ts assembles
// every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

/** quoted (shown, waiting for the PIN), pending (STK push sent), credited, failed, expired (never confirmed). */
export type PayerMpesaTopupStatus = 'quoted' | 'pending' | 'credited' | 'failed' | 'expired';

export interface PayerMpesaTopupsTable {
  /** `ptm_…`. */
  id: string;
  payer_id: string;
  environment: Environment;
  /** Whole shillings asked for by the STK push. */
  kes_amount: number;
  asset: string;
  /** What the payer is credited, at the locked rate (the asset's 6 decimals). */
  asset_amount: string;
  /** KES per one unit of the asset, locked when the quote was shown. */
  rate: string;
  quote_expires_at: number;
  /** +2547XXXXXXXX: the phone the STK push goes to. */
  phone: string;
  status: PayerMpesaTopupStatus;
  /** SHA-256 (hex) of the callback URL's token, set when the payer confirms. */
  callback_token_hash: string | null;
  /** Daraja's CheckoutRequestID of the STK push. */
  checkout_request_id: string | null;
  /** Shillings a success callback reported (kept until the STK query confirms it). */
  paid_kes: number | null;
  mpesa_receipt: string | null;
  /** What the balance was credited (the asset amount, or pro rata when another amount was paid). */
  credited_amount: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  /** When the next STK query is due (null: none). */
  resolve_at: number | null;
  queries: Generated<number>;
  confirmed_at: number | null;
  created_at: number;
  updated_at: number;
}

export type PayerMpesaTopupRow = Selectable<PayerMpesaTopupsTable>;
