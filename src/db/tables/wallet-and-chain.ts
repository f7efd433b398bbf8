// Row types of the wallet rail: the exact amounts intents expect, the deposits received, and what the chain
// watchers read and saw (src/db/schema.ts assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';
import type { Environment } from '../../shared/scope.js';

export type WalletAllocationState = 'open' | 'credited' | 'released';

/**
 * The exact amount an intent expects on one network. A partial unique index over (environment, network,
 * asset, address, amount) WHERE state = 'open' means two open intents never share all four.
 */
export interface WalletAllocationsTable {
  id: string;
  /** The intent's merchant and the intent, or (both null) a payer's top-up (payer_topup_id). */
  merchant_id: string | null;
  environment: Environment;
  payment_intent_id: string | null;
  /** The payer's on-chain top-up (payer_chain_topups) whose amount this is; exactly one owner is set. */
  payer_topup_id: string | null;
  network: string;
  asset: string;
  address: string;
  amount: string;
  state: WalletAllocationState;
  /** The intent's (or top-up's) expiry, ms: an open allocation a day past it (its intent ended) is released for reuse. */
  expires_at: number;
  created_at: number;
}

export interface WalletDepositsTable {
  id: string;
  merchant_id: string;
  environment: Environment;
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
  /** Who sent it on chain (live deposits; null for simulated ones). */
  sender: Generated<string | null>;
}

/** How far a network's watcher has read its chain (a block number, a timestamp, signatures: the source's own). */
export interface ChainCursorsTable {
  network: string;
  cursor: string;
  /** The chain's height when last read. */
  head: number | null;
  updated_at: number;
}

/** pending: seen, waiting for its depth; confirmed: at depth, re-read; removed: gone in a reorganisation. */
export type ChainTransferState = 'pending' | 'confirmed' | 'removed';
/** What a confirmed transfer came to. */
export type ChainTransferOutcome = 'credited' | 'duplicate' | 'unmatched' | 'claimed';

/** A transfer of a configured token to a configured address, as the watcher saw it on chain. */
export interface ChainTransfersTable {
  id: string;
  network: string;
  tx_hash: string;
  /** Where in the transaction: the log index (EVM), the transfer's position (TRON, Solana). */
  event_index: string;
  asset: string;
  /** The token contract (EVM, TRON) or mint (Solana). */
  token: string;
  sender: string;
  address: string;
  /** Decimal string in the asset's units. */
  amount: string;
  block_number: number | null;
  state: ChainTransferState;
  outcome: ChainTransferOutcome | null;
  /** Why an unmatched transfer was not credited. */
  reason: string | null;
  /** The merchant and intent whose exact amount it matched (or the operator credited it to). */
  merchant_id: string | null;
  payment_intent_id: string | null;
  /** The payer's top-up whose exact amount it matched (then merchant and intent are null). */
  payer_topup_id: string | null;
  /** The intent this transfer's sighting moved to confirming (moved back if it is removed). */
  confirming_intent_id: string | null;
  /** The merchant's deposit record (wallet_deposits), once confirmed and attributed. */
  deposit_id: string | null;
  first_seen_at: number;
  confirmed_at: number | null;
  updated_at: number;
}

export type WalletAllocationRow = Selectable<WalletAllocationsTable>;
export type WalletDepositRow = Selectable<WalletDepositsTable>;
export type ChainTransferRow = Selectable<ChainTransfersTable>;
