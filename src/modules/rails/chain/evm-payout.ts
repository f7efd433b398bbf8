// The payout sender's client for Base and Polygon: ERC-20 `transfer` from the operator's hot wallet through
// viem, signed locally (the private key never leaves this object, and never appears in a message or a log),
// EIP-1559 fees and the chain id asked of the node, the nonce given by the sender (kept in the database).
// The RPC URLs are viem's fallback transport, as for the watcher: tried in order, the next on an error.
import {
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  fallback,
  http,
  isAddress,
  keccak256,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { ChainConfig } from '../../../config-chains.js';
import type { ChainNetwork } from '../../../shared/chains.js';
import { ChainRpcError } from './chain-source.js';
import type { PayoutLookup, PayoutNetworkClient, PayoutTransfer, SignOptions, SignedPayout } from './payout-client.js';

/** Gas for a transfer whose estimate the node refused (it would revert): it is sent anyway, mined, and fails on-chain. */
const FALLBACK_GAS = 100_000n;

export class EvmPayoutClient implements PayoutNetworkClient {
  readonly network: ChainNetwork;
  readonly from: string;
  readonly #account: PrivateKeyAccount;
  private readonly client: PublicClient;
  private chainId: number | null = null;

  constructor(config: ChainConfig, privateKeyHex: string, options: { timeoutMs?: number } = {}) {
    this.network = config.network;
    const key = (privateKeyHex.startsWith('0x') ? privateKeyHex : `0x${privateKeyHex}`) as Hex;
    this.#account = privateKeyToAccount(key);
    this.from = this.#account.address;
    const timeout = options.timeoutMs ?? 10_000;
    this.client = createPublicClient({
      transport: fallback(
        config.rpcUrls.map((url) => http(url, { timeout, retryCount: 0 })),
        { retryCount: 0 },
      ),
    });
  }

  /** No key material in a dump of the client. */
  toJSON(): object {
    return { network: this.network, from: this.from };
  }

  private async rpc<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError || err instanceof TransactionNotFoundError) throw err;
      throw new ChainRpcError(this.network, `${what} failed on every RPC URL: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  isValidAddress(address: string): boolean {
    return isAddress(address);
  }

  async chainNonce(): Promise<number> {
    return this.rpc('eth_getTransactionCount', () =>
      this.client.getTransactionCount({ address: this.#account.address, blockTag: 'latest' }),
    );
  }

  /** The chain's head (the sender replaces a transaction not mined within REPLACE_AFTER_BLOCKS of it). */
  async blockNumber(): Promise<number> {
    return Number(await this.rpc('eth_blockNumber', () => this.client.getBlockNumber({ cacheTime: 0 })));
  }

  async sign(transfer: PayoutTransfer, options: SignOptions): Promise<SignedPayout> {
    if (options.nonce === undefined) throw new Error('an EVM payout needs the nonce the sender keeps');
    this.chainId ??= await this.rpc('eth_chainId', () => this.client.getChainId());
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [transfer.to as Hex, transfer.units] });
    const fees = await this.rpc('eth_feeHistory', () => this.client.estimateFeesPerGas({ chain: null, type: 'eip1559' }));
    const bump = BigInt(100 + (options.feeBumpPercent ?? 0));
    const gas = await this.client.estimateGas({ account: this.#account.address, to: transfer.token as Hex, data }).then(
      (g) => (g * 12n) / 10n,
      () => FALLBACK_GAS,
    );
    const raw = await this.#account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      nonce: options.nonce,
      to: transfer.token as Hex,
      data,
      value: 0n,
      gas,
      maxFeePerGas: (fees.maxFeePerGas * bump) / 100n,
      maxPriorityFeePerGas: (fees.maxPriorityFeePerGas * bump) / 100n,
    });
    return { txHash: keccak256(raw), raw, nonce: options.nonce };
  }

  async broadcast(signed: SignedPayout): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: signed.raw as Hex });
    } catch (err) {
      // Already in the pool, or its nonce already used (by this transaction mined, or by another of the same
      // payout): the sender's look-ups say which.
      const details = String((err as { details?: unknown }).details ?? '');
      const text = `${String((err as Error).message)} ${details}`.toLowerCase();
      if (/already known|known transaction|nonce too low|already imported/.test(text)) return;
      throw new ChainRpcError(this.network, `eth_sendRawTransaction failed: ${(err as Error).message.split('\n')[0]} ${details}`.trim());
    }
  }

  async lookup(signed: SignedPayout): Promise<PayoutLookup> {
    const hash = signed.txHash as Hex;
    try {
      const receipt = await this.rpc('eth_getTransactionReceipt', () => this.client.getTransactionReceipt({ hash }));
      const head = await this.blockNumber();
      const block = Number(receipt.blockNumber);
      return { state: 'included', block, confirmations: head - block + 1, success: receipt.status === 'success' };
    } catch (err) {
      if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    }
    try {
      await this.rpc('eth_getTransactionByHash', () => this.client.getTransaction({ hash }));
      return { state: 'pending' };
    } catch (err) {
      if (err instanceof TransactionNotFoundError) return { state: 'unknown' };
      throw err;
    }
  }

  async tokenBalance(token: string, owner?: string): Promise<bigint> {
    return this.rpc('eth_call balanceOf', () =>
      this.client.readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [(owner ?? this.from) as Hex] }),
    );
  }
}
