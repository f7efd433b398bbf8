// A local TronGrid for tests: an in-memory TRON chain of TRC-20 transfers behind TronGrid's own HTTP API,
// written from its public documentation (developers.tron.network): the v1 per-account TRC-20 history with
// its filters and fingerprint paging, and the java-tron node calls wallet/getnowblock and
// wallet(solidity)/gettransactioninfobyid. A transfer is confirmed (solidified) once the head is 19 blocks
// past it. Tests move the chain by hand: a transfer mines a block holding it, mine() adds empty blocks,
// drop() takes a transfer away as a reorganisation would, failNext() makes the next requests fail. Each
// control method is also reachable over HTTP as POST /__peer/<name> with a JSON body, for other processes
// and for `npm run tron-peer` (main.ts), which runs the peer on its own.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { base58Decode, base58Encode } from '../shared/base58.js';
import { startPeerServer, type Answer, type PeerRequest, type PeerServer } from '../shared/http-peer.js';
import { createTronSending, type TronSending } from './payouts.js';

export const TRON_USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const TRON_USDC = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
/** Blocks past a transfer before TronGrid calls it confirmed (solidified). */
export const TRON_SOLIDIFY_DEPTH = 19;
/** keccak256("Transfer(address,address,uint256)"), the first topic of a TRC-20 transfer log. */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface TronTransfer {
  transaction_id: string;
  /** Base58 address of the token contract. */
  contract: string;
  from: string;
  to: string;
  /** Base units (6 decimals for USDT/USDC), an integer string. */
  value: string;
  blockNumber: number;
  block_timestamp: number;
}

/** The peer: its address, the requests it received, failNext and close (shared/http-peer.ts), and its chain. */
export interface TronPeer extends PeerServer {
  /** The head block number. */
  readonly head: number;
  /** The transfers on the chain (dropped ones are gone), oldest first. */
  readonly transfers: readonly TronTransfer[];
  /** Mines a new block holding this transfer. */
  transfer(t: { contract?: string; from: string; to: string; value: string | number | bigint }): {
    transaction_id: string;
    blockNumber: number;
  };
  /** Adds n empty blocks; answers the new head. */
  mine(n?: number): number;
  /** Takes the transfer off the chain, as a reorganisation would; answers whether it was there. */
  drop(transaction_id: string): boolean;
  /** Timestamp (ms) of a block. */
  blockTimestamp(blockNumber: number): number;
  /** Sending: balances, the pending pool and the controls of wallet/broadcasttransaction. */
  readonly sending: TronSending;
}

// ---- base58check TRON addresses ----

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();
const checksum = (payload: Uint8Array) => sha256(sha256(payload)).subarray(0, 4);

/** Base58check of 0x41 + 20 bytes. */
export function tronAddressFromHex(hex21: string): string {
  const payload = Buffer.from(hex21, 'hex');
  return base58Encode(Buffer.concat([payload, checksum(payload)]));
}

/** The 21-byte payload (0x41 + 20 bytes) of a base58check TRON address, as hex; null when not one. */
export function tronAddressToHex(address: string): string | null {
  const raw = base58Decode(address);
  if (!raw || raw.length !== 25 || raw[0] !== 0x41) return null;
  const payload = raw.subarray(0, 21);
  if (!checksum(payload).equals(raw.subarray(21))) return null;
  return payload.toString('hex');
}

/** A valid TRON address made from a seed: 0x41 + the first 20 bytes of sha256(seed). */
export function tronAddressFromSeed(seed: string): string {
  return tronAddressFromHex(`41${sha256(seed).subarray(0, 20).toString('hex')}`);
}

/** Base58, 41-prefixed hex or 0x-prefixed hex (as TronGrid accepts) → base58; null when none of them. */
function normalizeAddress(a: string): string | null {
  if (/^41[0-9a-fA-F]{40}$/.test(a)) return tronAddressFromHex(a.toLowerCase());
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) return tronAddressFromHex(`41${a.slice(2).toLowerCase()}`);
  return tronAddressToHex(a) ? a : null;
}

const TOKENS: Record<string, { symbol: string; name: string }> = {
  [TRON_USDT]: { symbol: 'USDT', name: 'Tether USD' },
  [TRON_USDC]: { symbol: 'USDC', name: 'USD Coin' },
};
const tokenInfo = (contract: string) => {
  const t = TOKENS[contract] ?? { symbol: 'TOKEN', name: 'Token' };
  return { symbol: t.symbol, address: contract, decimals: 6, name: t.name };
};

const word = (hex: string) => hex.padStart(64, '0');

// ---- the peer ----

class BadRequest extends Error {}

export async function startTronPeer(opts: { port?: number; host?: string; blockIntervalMs?: number } = {}): Promise<TronPeer> {
  const host = opts.host ?? '127.0.0.1';
  const interval = opts.blockIntervalMs ?? 3000;
  const genesisHeight = 1000;
  const genesisMs = Date.now();
  let head = genesisHeight;
  const transfers: TronTransfer[] = [];
  const blockSalt = randomBytes(8).toString('hex');

  const blockTimestamp = (n: number) => genesisMs + (n - genesisHeight) * interval;
  // java-tron's blockID: the block number in the first 8 bytes, then 24 bytes of the block's hash.
  const blockId = (n: number) => n.toString(16).padStart(16, '0') + sha256(`${blockSalt}:${n}`).toString('hex').slice(16);
  const confirmed = (t: TronTransfer) => head - t.blockNumber >= TRON_SOLIDIFY_DEPTH;
  const sending = createTronSending({
    head: () => head,
    blockTimestamp,
    blockId,
    normalizeAddress,
    tronAddressToHex,
    tronAddressFromHex,
    newBlock: () => ++head,
    addTransfer: (t, blockNumber) => {
      transfers.push({ ...t, blockNumber, block_timestamp: blockTimestamp(blockNumber) });
    },
  });

  const control = {
    transfer(t: { contract?: string; from: string; to: string; value: string | number | bigint }) {
      const contract = normalizeAddress(t.contract ?? TRON_USDT);
      const from = normalizeAddress(String(t.from));
      const to = normalizeAddress(String(t.to));
      if (!contract || !from || !to) throw new BadRequest('transfer: contract, from and to must be TRON addresses');
      const value = String(t.value);
      if (!/^\d+$/.test(value)) throw new BadRequest('transfer: value must be a non-negative integer (base units)');
      head++;
      sending.credit(contract, from, to, BigInt(value));
      const record: TronTransfer = {
        transaction_id: randomBytes(32).toString('hex'),
        contract,
        from,
        to,
        value: BigInt(value).toString(),
        blockNumber: head,
        block_timestamp: blockTimestamp(head),
      };
      transfers.push(record);
      return { transaction_id: record.transaction_id, blockNumber: record.blockNumber };
    },
    mine(n = 1) {
      if (!Number.isInteger(n) || n < 0) throw new BadRequest('mine: n must be a non-negative integer');
      for (let i = 0; i < n; i++) {
        head++;
        sending.mineInto(head);
      }
      return head;
    },
    drop(transaction_id: string) {
      const i = transfers.findIndex((t) => t.transaction_id === transaction_id.toLowerCase());
      if (i < 0) return false;
      transfers.splice(i, 1);
      return true;
    },
  };

  const tronError = (status: number, error: string): Answer => ({ status, body: { success: false, error, statusCode: status } });

  function trc20History(req: PeerRequest, address: string, query: URLSearchParams): Answer {
    // TronGrid takes query parameters in snake_case or camelCase.
    const q = (name: string) => query.get(name) ?? query.get(name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())) ?? undefined;
    const flag = (name: string) => q(name) === 'true';
    const account = normalizeAddress(address);
    if (!account) return tronError(400, `Invalid address provided: ${address}`);
    const contractParam = q('contract_address');
    const contract = contractParam === undefined ? undefined : normalizeAddress(contractParam);
    if (contract === null) return tronError(400, `Invalid contract_address provided: ${contractParam}`);
    if (flag('only_confirmed') && flag('only_unconfirmed'))
      return tronError(400, 'only_confirmed and only_unconfirmed cannot be used together');
    const limitParam = q('limit');
    const limit = limitParam === undefined ? 20 : Number(limitParam);
    if (!Number.isInteger(limit) || limit < 1) return tronError(400, `Invalid limit provided: ${limitParam}`);
    const pageSize = Math.min(limit, 200);
    const orderBy = q('order_by') ?? 'block_timestamp,desc';
    if (orderBy !== 'block_timestamp,desc' && orderBy !== 'block_timestamp,asc')
      return tronError(400, `Invalid order_by provided: ${orderBy}`);
    const asc = orderBy.endsWith(',asc');
    const time = (name: string): number | undefined | null => {
      const v = q(name);
      if (v === undefined) return undefined;
      const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
      return Number.isNaN(n) ? null : n;
    };
    const minTs = time('min_timestamp');
    const maxTs = time('max_timestamp');
    if (minTs === null || maxTs === null) return tronError(400, 'Invalid min_timestamp or max_timestamp provided');

    let cursor: { t: number; b: number; id: string } | undefined;
    const fp = q('fingerprint');
    if (fp !== undefined) {
      try {
        cursor = JSON.parse(Buffer.from(fp, 'base64url').toString('utf8')) as { t: number; b: number; id: string };
        if (typeof cursor.t !== 'number' || typeof cursor.b !== 'number' || typeof cursor.id !== 'string') throw new Error();
      } catch {
        return tronError(400, `Invalid fingerprint provided: ${fp}`);
      }
    }
    // Ascending order key; the page goes on strictly after the cursor in the asked order.
    const cmp = (a: { t: number; b: number; id: string }, b: { t: number; b: number; id: string }) =>
      a.t - b.t || a.b - b.b || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const key = (t: TronTransfer) => ({ t: t.block_timestamp, b: t.blockNumber, id: t.transaction_id });

    const matching = transfers
      .filter((t) => t.to === account || t.from === account)
      .filter((t) => (!flag('only_to') || t.to === account) && (!flag('only_from') || t.from === account))
      .filter((t) => contract === undefined || t.contract === contract)
      .filter((t) => (flag('only_confirmed') ? confirmed(t) : flag('only_unconfirmed') ? !confirmed(t) : true))
      .filter((t) => (minTs === undefined || t.block_timestamp >= minTs) && (maxTs === undefined || t.block_timestamp <= maxTs))
      .sort((a, b) => (asc ? cmp(key(a), key(b)) : cmp(key(b), key(a))))
      .filter((t) => !cursor || (asc ? cmp(key(t), cursor) > 0 : cmp(key(t), cursor) < 0));
    const page = matching.slice(0, pageSize);
    const more = matching.length > pageSize;
    const meta: Record<string, unknown> = { at: Date.now(), page_size: page.length };
    if (more) {
      const fingerprint = Buffer.from(JSON.stringify(key(page[page.length - 1]!))).toString('base64url');
      const next = new URLSearchParams(query);
      next.delete('fingerprint');
      next.set('fingerprint', fingerprint);
      meta['fingerprint'] = fingerprint;
      meta['links'] = {
        next: `http://${req.headers.host ?? `${host}:${server.port}`}/v1/accounts/${address}/transactions/trc20?${next.toString()}`,
      };
    }
    return {
      status: 200,
      body: {
        data: page.map((t) => ({
          transaction_id: t.transaction_id,
          token_info: tokenInfo(t.contract),
          block_timestamp: t.block_timestamp,
          from: t.from,
          to: t.to,
          type: 'Transfer',
          value: t.value,
        })),
        success: true,
        meta,
      },
    };
  }

  function transactionInfo(body: unknown, query: URLSearchParams, solidified: boolean): Answer {
    const value = body && typeof body === 'object' && 'value' in body ? (body as { value: unknown }).value : query.get('value');
    if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value))
      return { status: 200, body: { Error: 'class java.lang.IllegalArgumentException : Invalid transaction id' } };
    const t = transfers.find((x) => x.transaction_id === value.toLowerCase());
    if (!t) {
      const failed = sending.failedInfo(value.toLowerCase());
      if (!failed || (solidified && head - (failed['blockNumber'] as number) < TRON_SOLIDIFY_DEPTH)) return { status: 200, body: {} };
      return { status: 200, body: failed };
    }
    if (solidified && !confirmed(t)) return { status: 200, body: {} };
    const contractHex = tronAddressToHex(t.contract)!;
    return {
      status: 200,
      body: {
        id: t.transaction_id,
        fee: 0,
        blockNumber: t.blockNumber,
        blockTimeStamp: t.block_timestamp,
        contractResult: [''],
        contract_address: contractHex,
        receipt: { energy_usage_total: 0, result: 'SUCCESS' },
        log: [
          {
            address: contractHex.slice(2),
            topics: [TRANSFER_TOPIC, word(tronAddressToHex(t.from)!.slice(2)), word(tronAddressToHex(t.to)!.slice(2))],
            data: word(BigInt(t.value).toString(16)),
          },
        ],
      },
    };
  }

  function nowBlock(n: number): Answer {
    return {
      status: 200,
      body: {
        blockID: blockId(n),
        block_header: {
          raw_data: {
            number: n,
            txTrieRoot: '0'.repeat(64),
            witness_address: '41' + sha256('witness').subarray(0, 20).toString('hex'),
            parentHash: blockId(n - 1),
            version: 30,
            timestamp: blockTimestamp(n),
          },
          witness_signature: sha256(`sig:${n}`).toString('hex').repeat(2) + '00',
        },
      },
    };
  }

  function route(req: PeerRequest, query: URLSearchParams): Answer {
    const { method, path, body } = req;
    const history = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20\/?$/.exec(path);
    if (history) {
      if (method !== 'GET') return tronError(405, 'Method Not Allowed');
      return trc20History(req, decodeURIComponent(history[1]!), query);
    }
    if (method !== 'GET' && method !== 'POST') return tronError(405, 'Method Not Allowed');
    switch (path) {
      case '/wallet/getnowblock':
        return nowBlock(head);
      case '/walletsolidity/getnowblock':
        return nowBlock(Math.max(genesisHeight, head - TRON_SOLIDIFY_DEPTH));
      case '/wallet/gettransactioninfobyid':
        return transactionInfo(body, query, false);
      case '/walletsolidity/gettransactioninfobyid':
        return transactionInfo(body, query, true);
      case '/wallet/triggersmartcontract':
        return sending.trigger(body);
      case '/wallet/triggerconstantcontract':
        return sending.constant(body);
      case '/wallet/broadcasttransaction':
        return sending.broadcast(body);
      case '/wallet/gettransactionfrompending':
        return sending.fromPending(body);
      default:
        return tronError(404, `Not Found: ${path}`);
    }
  }

  const server = await startPeerServer({
    host,
    port: opts.port,
    jsonType: 'application/json; charset=utf-8',
    control: {
      transfer: (args, fields) => control.transfer((args[0] ?? fields) as Parameters<typeof control.transfer>[0]),
      mine: (args, fields) => ({ head: control.mine(Number(args[0] ?? fields['n'] ?? 1)) }),
      drop: (args, fields) => ({ dropped: control.drop(String(args[0] ?? fields['transaction_id'] ?? '')) }),
      head: () => ({ head, timestamp: blockTimestamp(head) }),
      fund: (args, fields) => sending.fund((args[0] ?? fields) as Parameters<typeof sending.fund>[0]),
      revertNext: (args, fields) => sending.revertNext(Number(args[0] ?? fields['n'] ?? 1)),
      hold: (args, fields) => sending.hold(Boolean(args[0] ?? fields['on'] ?? true)),
      tamperNext: (args, fields) => sending.tamperNext(String(args[0] ?? fields['kind']) as Parameters<typeof sending.tamperNext>[0]),
      balance: (args, fields) => ({
        balance: sending.balanceOf(String(args[0] ?? fields['contract']), String(args[1] ?? fields['address'])).toString(),
      }),
    },
    failure: (status) => tronError(status, http.STATUS_CODES[status] ?? 'Error'),
    answer: (req, query, badJson) =>
      badJson ? { status: 200, body: { Error: 'class org.json.JSONException : invalid JSON' } } : route(req, query),
  });

  return {
    ...server,
    get head() {
      return head;
    },
    get transfers() {
      return transfers;
    },
    transfer: control.transfer,
    mine: control.mine,
    drop: control.drop,
    blockTimestamp,
    sending,
  };
}
