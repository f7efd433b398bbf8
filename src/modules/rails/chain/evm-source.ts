// Base and Polygon: Ethereum JSON-RPC through viem. Transfers are the tokens' ERC-20 `Transfer` events to
// the address, read with `eth_getLogs` in bounded block ranges (COWRIE_CHAIN_BLOCK_RANGE new blocks a
// call); the page that reaches the head also reads again the last `confirmations` blocks, so a transfer
// that a reorganisation moved into a block already read is still found. A transfer is read again through
// its transaction's receipt: gone (or reverted) after a reorganisation means it never pays. The RPC URLs
// are viem's fallback transport: tried in order, the next on an error or a timeout.
import { createPublicClient, fallback, http, parseAbiItem, TransactionReceiptNotFoundError, type PublicClient } from 'viem';
import { decodeEventLog, getAddress } from 'viem';
import { formatUnits, parseUnits } from 'viem';
import { STABLE_DECIMALS, type ChainNetwork, type StableAsset } from '../../../shared/chains.js';
import { ChainRpcError, type ChainSource, type ObservedTransfer, type Recheck, type ScanPage, type TransferRef } from './chain-source.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface EvmSourceOptions {
  network: ChainNetwork;
  rpcUrls: readonly string[];
  address: string;
  tokens: Readonly<Record<StableAsset, string>>;
  confirmations: number;
  blockRange: number;
  timeoutMs: number;
}

export class EvmSource implements ChainSource {
  readonly network: ChainNetwork;
  readonly address: string;
  readonly confirmations: number;
  private readonly client: PublicClient;
  private readonly assetOf = new Map<string, StableAsset>();
  private cachedChainId: number | null = null;

  constructor(private readonly opts: EvmSourceOptions) {
    this.network = opts.network;
    this.address = getAddress(opts.address);
    this.confirmations = opts.confirmations;
    for (const asset of ['USDT', 'USDC'] as const) this.assetOf.set(opts.tokens[asset].toLowerCase(), asset);
    this.client = createPublicClient({
      transport: fallback(
        opts.rpcUrls.map((url) => http(url, { timeout: opts.timeoutMs, retryCount: 0, batch: { batchSize: 100, wait: 0 } })),
        { retryCount: 0 },
      ),
    });
  }

  private async rpc<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) throw err;
      throw new ChainRpcError(this.network, `${what} failed on every RPC URL: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  async head(): Promise<number> {
    return Number(await this.rpc('eth_blockNumber', () => this.client.getBlockNumber({ cacheTime: 0 })));
  }

  async chainId(): Promise<number> {
    this.cachedChainId ??= await this.rpc('eth_chainId', () => this.client.getChainId());
    return this.cachedChainId;
  }

  initialCursor(head: number): string {
    return String(Math.max(0, head - this.confirmations));
  }

  lag(cursor: string, head: number): number {
    return Math.max(0, head - Number(cursor));
  }

  async scan(cursor: string, head: number): Promise<ScanPage> {
    const last = Number(cursor);
    const start = last + 1;
    let from: number;
    let to: number;
    if (start > head) {
      // No new block (or a shorter chain after a reorganisation): read the unconfirmed window again.
      from = Math.max(0, head - this.confirmations + 1);
      to = head;
    } else {
      to = Math.min(start + this.opts.blockRange - 1, head);
      from = to === head ? Math.max(0, start - this.confirmations) : start;
    }
    const logs = await this.rpc('eth_getLogs', () =>
      this.client.getLogs({
        address: [...this.assetOf.keys()].map((a) => getAddress(a)),
        event: TRANSFER,
        args: { to: this.address as `0x${string}` },
        fromBlock: BigInt(from),
        toBlock: BigInt(to),
        strict: true,
      }),
    );
    const transfers: ObservedTransfer[] = [];
    for (const log of logs) {
      const asset = this.assetOf.get(log.address.toLowerCase());
      if (!asset || log.removed || log.transactionHash === null || log.logIndex === null || log.blockNumber === null) continue;
      transfers.push({
        txHash: log.transactionHash,
        eventIndex: String(log.logIndex),
        asset,
        token: getAddress(log.address),
        sender: getAddress(log.args.from),
        amount: formatUnits(log.args.value, STABLE_DECIMALS),
        block: Number(log.blockNumber),
      });
    }
    return { transfers, cursor: String(Math.min(to, head)), more: to < head };
  }

  async recheck(transfers: readonly TransferRef[], head: number): Promise<Recheck[]> {
    return Promise.all(transfers.map((t) => this.recheckOne(t, head)));
  }

  private async recheckOne(t: TransferRef, head: number): Promise<Recheck> {
    let receipt;
    try {
      receipt = await this.rpc('eth_getTransactionReceipt', () => this.client.getTransactionReceipt({ hash: t.txHash as `0x${string}` }));
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return { state: 'absent' };
      throw err;
    }
    if (receipt.status !== 'success') return { state: 'absent' };
    const units = parseUnits(t.amount, STABLE_DECIMALS);
    const still = receipt.logs.some((log) => {
      if (log.address.toLowerCase() !== t.token.toLowerCase() || log.removed) return false;
      try {
        const decoded = decodeEventLog({ abi: [TRANSFER], data: log.data, topics: log.topics, strict: true });
        return decoded.args.to.toLowerCase() === this.address.toLowerCase() && decoded.args.value === units;
      } catch {
        return false;
      }
    });
    if (!still) return { state: 'absent' };
    const block = Number(receipt.blockNumber);
    const confirmations = head - block + 1;
    return { state: 'present', block, confirmations, final: confirmations >= this.confirmations };
  }
}
