// TRON: the TronGrid HTTP API (COWRIE_CHAIN_TRON_RPC_URLS are TronGrid-compatible bases). Transfers are
// read from `GET /v1/accounts/{address}/transactions/trc20` (only to the address, one token contract at a
// time, from a block timestamp, oldest first, paged by TronGrid's fingerprint); the cursor is the newest
// block timestamp read, and each scan reads the last five minutes again so a transfer included again after
// a reorganisation is found. A transfer is read again with `POST /wallet/gettransactioninfobyid`: its
// block and receipt (SUCCESS), its depth against `POST /wallet/getnowblock`; an empty answer means it is
// gone. Written from TronGrid's public documentation.
import { Decimal } from '../../../shared/money.js';
import { STABLE_DECIMALS, type StableAsset } from '../../../shared/chains.js';
import { ChainRpcError, type ChainSource, type ObservedTransfer, type Recheck, type ScanPage, type TransferRef } from './chain-source.js';
import { FailoverHttp } from './http-failover.js';

export interface TronSourceOptions {
  rpcUrls: readonly string[];
  address: string;
  tokens: Readonly<Record<StableAsset, string>>;
  confirmations: number;
  timeoutMs: number;
  /** TronGrid's `TRON-PRO-API-KEY`, when the operator has one. */
  apiKey?: string;
  now?: () => number;
}

/** Read again at every scan, so a transfer included again after a reorganisation is not missed. */
const OVERLAP_MS = 5 * 60_000;
const PAGE_SIZE = 200;
/** Pages per token per scan; the rest waits for the next scan (`more`). */
const MAX_PAGES = 50;

interface Trc20Transfer {
  transaction_id: string;
  token_info?: { address?: string; decimals?: number };
  block_timestamp: number;
  from: string;
  to: string;
  type?: string;
  value: string;
}

interface Cursor {
  ts: number;
}

export class TronSource implements ChainSource {
  readonly network = 'tron' as const;
  readonly address: string;
  readonly confirmations: number;
  private readonly http: FailoverHttp;

  constructor(private readonly opts: TronSourceOptions) {
    this.address = opts.address;
    this.confirmations = opts.confirmations;
    this.http = new FailoverHttp('tron', opts.rpcUrls, opts.timeoutMs, opts.apiKey ? { 'TRON-PRO-API-KEY': opts.apiKey } : {});
  }

  private async json(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await this.http.call(method, path, body);
    if (res.status !== 200 || typeof res.body !== 'object' || res.body === null) {
      throw new ChainRpcError('tron', `${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    return res.body as Record<string, unknown>;
  }

  async head(): Promise<number> {
    const block = await this.json('POST', '/wallet/getnowblock', {});
    const n = (block['block_header'] as { raw_data?: { number?: unknown } } | undefined)?.raw_data?.number;
    if (typeof n !== 'number') throw new ChainRpcError('tron', 'getnowblock answered no block number');
    return n;
  }

  initialCursor(): string {
    return JSON.stringify({ ts: (this.opts.now ?? Date.now)() - OVERLAP_MS } satisfies Cursor);
  }

  lag(): null {
    return null;
  }

  async scan(cursorText: string, _head: number): Promise<ScanPage> {
    const cursor = JSON.parse(cursorText) as Cursor;
    let newest = cursor.ts;
    let more = false;
    const transfers: ObservedTransfer[] = [];
    for (const asset of ['USDT', 'USDC'] as const) {
      const contract = this.opts.tokens[asset];
      const seenInTx = new Map<string, number>();
      let fingerprint: string | undefined;
      for (let page = 0; ; page++) {
        const query = new URLSearchParams({
          only_to: 'true',
          contract_address: contract,
          min_timestamp: String(Math.max(0, cursor.ts - OVERLAP_MS)),
          order_by: 'block_timestamp,asc',
          limit: String(PAGE_SIZE),
        });
        if (fingerprint) query.set('fingerprint', fingerprint);
        const body = await this.json('GET', `/v1/accounts/${encodeURIComponent(this.address)}/transactions/trc20?${query}`);
        if (body['success'] === false) throw new ChainRpcError('tron', `TronGrid refused the query: ${String(body['error'])}`);
        const data = (body['data'] ?? []) as Trc20Transfer[];
        for (const t of data) {
          if (t.to !== this.address || (t.type !== undefined && t.type !== 'Transfer')) continue;
          if (t.token_info?.address !== undefined && t.token_info.address !== contract) continue;
          const n = seenInTx.get(t.transaction_id) ?? 0;
          seenInTx.set(t.transaction_id, n + 1);
          const decimals = t.token_info?.decimals ?? STABLE_DECIMALS;
          transfers.push({
            txHash: t.transaction_id,
            eventIndex: String(n),
            asset,
            token: contract,
            sender: t.from,
            amount: new Decimal(t.value).div(new Decimal(10).pow(decimals)).toFixed(),
            block: null,
          });
          newest = Math.max(newest, t.block_timestamp);
        }
        const meta = body['meta'] as { fingerprint?: string } | undefined;
        fingerprint = meta?.fingerprint;
        if (!fingerprint || data.length === 0) break;
        if (page + 1 >= MAX_PAGES) {
          more = true;
          break;
        }
      }
    }
    return { transfers, cursor: JSON.stringify({ ts: newest } satisfies Cursor), more };
  }

  async recheck(transfers: readonly TransferRef[], head: number): Promise<Recheck[]> {
    const out: Recheck[] = [];
    for (const t of transfers) {
      const info = await this.json('POST', '/wallet/gettransactioninfobyid', { value: t.txHash });
      const block = info['blockNumber'];
      if (typeof block !== 'number') {
        out.push({ state: 'absent' });
        continue;
      }
      const result = (info['receipt'] as { result?: string } | undefined)?.result;
      if (result !== undefined && result !== 'SUCCESS') {
        out.push({ state: 'absent' });
        continue;
      }
      const confirmations = head - block + 1;
      out.push({ state: 'present', block, confirmations, final: confirmations >= this.confirmations });
    }
    return out;
  }
}
