// What the payout sender needs of one network to send stablecoins from the operator's hot wallet, whatever
// its protocol: check an address, sign a token transfer whose hash is known before it is broadcast,
// broadcast it, and look it up again. The sender records the signed transaction (hash and raw bytes)
// before it broadcasts, and after a restart looks that transaction up before it signs anything new, so
// one payout is never sent twice. EVM networks (viem), TRON (TronGrid) and Solana (JSON-RPC) implement it.
import type { ChainNetwork, StableAsset } from '../../../shared/chains.js';

/** One token transfer out of the hot wallet. */
export interface PayoutTransfer {
  readonly asset: StableAsset;
  /** Token contract (EVM, TRON) or mint (Solana). */
  readonly token: string;
  /** The receiving address, already checked with isValidAddress. */
  readonly to: string;
  /** In the token's smallest unit (6 decimals for USDT and USDC). */
  readonly units: bigint;
}

/** How to sign: EVM takes the nonce the sender keeps in the database, and a fee bump for a replacement. */
export interface SignOptions {
  /** EVM only: the nonce to use (kept in the database, never read from a pending pool). */
  readonly nonce?: number;
  /** EVM only: a replacement of a transaction not mined in time: the fees raised by this many percent over the first. */
  readonly feeBumpPercent?: number;
}

/** A signed transfer, recorded by the sender before it is broadcast. */
export interface SignedPayout {
  /** The transaction hash (EVM), txID (TRON) or first signature (Solana), known before broadcast. */
  readonly txHash: string;
  /** The signed transaction as the network's broadcast call takes it: EVM 0x raw hex, TRON the JSON transaction, Solana base64 wire bytes. */
  readonly raw: string;
  /** EVM: the nonce used. */
  readonly nonce?: number;
  /**
   * TRON: the transaction's expiration (ms since the epoch); Solana: the last valid block height of its
   * blockhash. Past it, a transaction the network never saw can never land, so another may be signed.
   * EVM: absent (a replacement at the same nonce is how a stuck transaction is dealt with).
   */
  readonly validUntil?: number;
}

/** What the network says of a signed transfer now. */
export type PayoutLookup =
  /** Not known to the network (not yet propagated, or dropped): broadcast it again while it is still valid. */
  | { readonly state: 'unknown' }
  /** Seen but not in a block yet. */
  | { readonly state: 'pending' }
  /** In a block: how deep, and whether it did what it said (false: reverted or failed; the tokens did not move). */
  | { readonly state: 'included'; readonly block: number; readonly confirmations: number; readonly success: boolean }
  /** Never landed and never can (TRON past its expiration, Solana past its last valid block height). */
  | { readonly state: 'expired' };

export interface PayoutNetworkClient {
  readonly network: ChainNetwork;
  /** The hot wallet's address (derived from the payout key). */
  readonly from: string;
  /** Whether an address is a valid receiving address on this network. */
  isValidAddress(address: string): boolean;
  /** EVM: the next nonce of the hot wallet as the chain has it (mined transactions), to start the database's count. */
  chainNonce?(): Promise<number>;
  /** Signs a transfer without sending it. */
  sign(transfer: PayoutTransfer, options: SignOptions): Promise<SignedPayout>;
  /** Sends a signed transfer; one the network already knows is not an error. */
  broadcast(signed: SignedPayout): Promise<void>;
  /** Looks a signed transfer up. */
  lookup(signed: SignedPayout): Promise<PayoutLookup>;
  /** The hot wallet's balance of a token, in its smallest unit (for the operator's check and the tests). */
  tokenBalance(token: string, owner?: string): Promise<bigint>;
}
