// Solana: JSON-RPC. Customers pay the address's token accounts (one per mint), found with
// `getTokenAccountsByOwner`; each account's new signatures come from `getSignaturesForAddress` (until the
// newest one read, at `confirmed` commitment), and each transaction from `getTransaction` (jsonParsed):
// what the account received is its post- minus pre-token balance, the sender the owner whose balance of
// that mint went down. A transfer is read again with `getSignatureStatuses`: `finalized`, or as many
// confirmations as configured, pays; no status (a dropped fork) or an error means it never pays.
// Written from Solana's public RPC documentation.
import { Decimal } from '../../../shared/money.js';
import type { StableAsset } from '../../../shared/chains.js';
import { ChainRpcError, type ChainSource, type ObservedTransfer, type Recheck, type ScanPage, type TransferRef } from './chain-source.js';
import { FailoverHttp } from './http-failover.js';

export interface SolanaSourceOptions {
  rpcUrls: readonly string[];
  address: string;
  tokens: Readonly<Record<StableAsset, string>>;
  confirmations: number;
  timeoutMs: number;
}

interface Cursor {
  /** The slot the watcher started at: an account first met is read from there. */
  started: number;
  /** Token account -> the newest signature read. */
  accounts: Record<string, string>;
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
}

const SIGNATURE_PAGE = 1000;

export class SolanaSource implements ChainSource {
  readonly network = 'solana' as const;
  readonly address: string;
  readonly confirmations: number;
  private readonly http: FailoverHttp;
  private nextId = 1;

  constructor(private readonly opts: SolanaSourceOptions) {
    this.address = opts.address;
    this.confirmations = opts.confirmations;
    this.http = new FailoverHttp('solana', opts.rpcUrls, opts.timeoutMs);
  }

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const res = await this.http.call('POST', '', { jsonrpc: '2.0', id: this.nextId++, method, params });
    const body = res.body as { result?: T; error?: { code: number; message: string } } | null;
    if (res.status !== 200 || body === null || typeof body !== 'object')
      throw new ChainRpcError('solana', `${method} answered ${res.status}`);
    if (body.error) throw new ChainRpcError('solana', `${method}: ${body.error.code} ${body.error.message}`);
    return body.result as T;
  }

  async head(): Promise<number> {
    return this.rpc<number>('getSlot', [{ commitment: 'confirmed' }]);
  }

  initialCursor(head: number): string {
    return JSON.stringify({ started: Math.max(0, head - this.confirmations), accounts: {} } satisfies Cursor);
  }

  lag(): null {
    return null;
  }

  private async tokenAccounts(mint: string): Promise<string[]> {
    const res = await this.rpc<{ value: { pubkey: string }[] }>('getTokenAccountsByOwner', [
      this.address,
      { mint },
      { encoding: 'jsonParsed', commitment: 'confirmed' },
    ]);
    return res.value.map((v) => v.pubkey);
  }

  async scan(cursorText: string): Promise<ScanPage> {
    const cursor = JSON.parse(cursorText) as Cursor;
    const next: Cursor = { started: cursor.started, accounts: { ...cursor.accounts } };
    const transfers: ObservedTransfer[] = [];
    for (const asset of ['USDT', 'USDC'] as const) {
      const mint = this.opts.tokens[asset];
      for (const account of await this.tokenAccounts(mint)) {
        const until = cursor.accounts[account];
        const signatures: SignatureInfo[] = [];
        let before: string | undefined;
        for (;;) {
          const page = await this.rpc<SignatureInfo[]>('getSignaturesForAddress', [
            account,
            { limit: SIGNATURE_PAGE, commitment: 'confirmed', ...(until ? { until } : {}), ...(before ? { before } : {}) },
          ]);
          signatures.push(...page);
          if (page.length < SIGNATURE_PAGE) break;
          before = page.at(-1)!.signature;
        }
        if (signatures.length > 0) next.accounts[account] = signatures[0]!.signature;
        // Oldest first; an account first met is read from the slot the watcher started at.
        for (const sig of signatures.reverse()) {
          if (sig.err !== null && sig.err !== undefined) continue;
          if (!until && sig.slot < cursor.started) continue;
          const t = await this.transferOf(sig.signature, account, mint, asset);
          if (t) transfers.push(t);
        }
      }
    }
    return { transfers, cursor: JSON.stringify(next), more: false };
  }

  private async transferOf(signature: string, account: string, mint: string, asset: StableAsset): Promise<ObservedTransfer | null> {
    const tx = await this.rpc<{
      slot: number;
      meta: { err: unknown; preTokenBalances?: TokenBalance[]; postTokenBalances?: TokenBalance[] } | null;
      transaction: { message: { accountKeys: ({ pubkey: string } | string)[] } };
    } | null>('getTransaction', [signature, { encoding: 'jsonParsed', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }]);
    if (!tx || !tx.meta || tx.meta.err !== null) return null;
    const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey));
    const index = keys.indexOf(account);
    if (index < 0) return null;
    const pre = tx.meta.preTokenBalances ?? [];
    const post = tx.meta.postTokenBalances ?? [];
    const amountAt = (list: TokenBalance[], i: number) =>
      new Decimal(list.find((b) => b.accountIndex === i && b.mint === mint)?.uiTokenAmount.amount ?? 0);
    const received = amountAt(post, index).minus(amountAt(pre, index));
    if (!received.gt(0)) return null;
    const decimals = post.find((b) => b.accountIndex === index)?.uiTokenAmount.decimals ?? 6;
    const payer = post.find(
      (b) => b.mint === mint && b.accountIndex !== index && amountAt(post, b.accountIndex).lt(amountAt(pre, b.accountIndex)),
    );
    return {
      txHash: signature,
      eventIndex: account,
      asset,
      token: mint,
      sender: payer?.owner ?? (payer ? keys[payer.accountIndex]! : 'unknown'),
      amount: received.div(new Decimal(10).pow(decimals)).toFixed(),
      block: tx.slot,
    };
  }

  async recheck(transfers: readonly TransferRef[]): Promise<Recheck[]> {
    const out: Recheck[] = [];
    for (let i = 0; i < transfers.length; i += 256) {
      const chunk = transfers.slice(i, i + 256);
      const res = await this.rpc<{
        value: ({ slot: number; confirmations: number | null; err: unknown; confirmationStatus?: string } | null)[];
      }>('getSignatureStatuses', [chunk.map((t) => t.txHash), { searchTransactionHistory: true }]);
      for (const status of res.value) {
        if (!status || (status.err !== null && status.err !== undefined)) {
          out.push({ state: 'absent' });
          continue;
        }
        const finalized = status.confirmationStatus === 'finalized';
        const confirmations = finalized ? Math.max(this.confirmations, status.confirmations ?? 0) : (status.confirmations ?? 0);
        out.push({ state: 'present', block: status.slot, confirmations, final: finalized || confirmations >= this.confirmations });
      }
    }
    return out;
  }
}
