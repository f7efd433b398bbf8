// Row types of payer accounts' on-chain top-ups (src/db/schema.ts assembles every area's tables into DB).
import type { Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

/** requested: waiting for the transfer; credited: paid into the balance; expired: asked more than a day ago. */
export type PayerChainTopupStatus = 'requested' | 'credited' | 'expired';

export interface PayerChainTopupsTable {
  /** `ptu_…`. */
  id: string;
  payer_id: string;
  environment: Environment;
  method: 'chain';
  /** base, polygon, tron or solana. */
  network: string;
  /** USDT or USDC. */
  asset: string;
  /** What the payer asked to add. */
  requested_amount: string;
  /** The exact tagged amount to send (and credited), unique among the address's open allocations. */
  amount: string;
  /** The network's receiving address. */
  address: string;
  status: PayerChainTopupStatus;
  /** The transfer that credited it. */
  tx_hash: string | null;
  /** The ledger movement that credited it. */
  movement_id: string | null;
  /** When it stops matching (24 hours after it was asked). */
  expires_at: number;
  credited_at: number | null;
  created_at: number;
  updated_at: number;
}

export type PayerChainTopupRow = Selectable<PayerChainTopupsTable>;
