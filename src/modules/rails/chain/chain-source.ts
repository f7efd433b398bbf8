// What the chain watcher needs of a network, whatever its protocol: the chain's height, the transfers of
// the configured tokens to the configured address after a cursor, and a fresh look at transfers already
// seen (still there and how deep, or gone). EVM networks (evm-source.ts), TRON (tron-source.ts) and
// Solana (solana-source.ts) implement it.
import type { ChainNetwork, StableAsset } from '../../../shared/chains.js';

/** A transfer of a configured token to the configured address, as read from the chain. */
export interface ObservedTransfer {
  txHash: string;
  /** Where in the transaction (log index, position, token account): unique with the hash. */
  eventIndex: string;
  asset: StableAsset;
  /** Contract or mint. */
  token: string;
  sender: string;
  /** Decimal string with the token's decimals applied. */
  amount: string;
  /** Block (slot) it is in, when the source tells. */
  block: number | null;
}

/** One page of a scan: the transfers found and the cursor to keep once they are recorded. */
export interface ScanPage {
  transfers: ObservedTransfer[];
  cursor: string;
  /** More to read up to the head (catch-up): scan again at once. */
  more: boolean;
}

/** A transfer seen before, read again. */
export type Recheck =
  | { state: 'present'; block: number; confirmations: number; final: boolean }
  /** Not (yet) readable again, for reasons that do not prove it gone (a lagging node): ask later. */
  | { state: 'unknown' }
  /** Gone from the chain (a reorganisation), or failed: it never pays. */
  | { state: 'absent' };

export interface TransferRef {
  txHash: string;
  eventIndex: string;
  token: string;
  amount: string;
  block: number | null;
}

export interface ChainSource {
  readonly network: ChainNetwork;
  /** The address customers pay on this network. */
  readonly address: string;
  readonly confirmations: number;
  /** The chain's height (block number; slot on Solana). */
  head(): Promise<number>;
  /** The cursor of a watcher that never ran: start near the head. */
  initialCursor(head: number): string;
  /** How far behind the head a cursor is, in blocks (for the lag metric), or null when it cannot tell. */
  lag(cursor: string, head: number): number | null;
  /** The next page of transfers after `cursor`, up to `head`. Reading again what was read is harmless. */
  scan(cursor: string, head: number): Promise<ScanPage>;
  /** Reads the transfers again, in order. */
  recheck(transfers: readonly TransferRef[], head: number): Promise<Recheck[]>;
  /** EVM only: the chain id the node reports (for EIP-681 payment requests). */
  chainId?(): Promise<number>;
}

/** A chain RPC provider failed (an error answer, a timeout, a connection refused) on every configured URL. */
export class ChainRpcError extends Error {
  constructor(
    readonly network: ChainNetwork,
    message: string,
  ) {
    super(`${network}: ${message}`);
    this.name = 'ChainRpcError';
  }
}
