// A local Solana JSON-RPC node for tests: an in-memory chain of SPL token transfers behind the RPC methods a
// payment watcher uses, written from the public RPC documentation (solana.com/docs/rpc): getSlot,
// getTokenAccountsByOwner, getSignaturesForAddress, getTransaction, getSignatureStatuses, getHealth,
// getVersion, single or batched. A transaction at slot s is processed at once, confirmed once the slot is
// s+1 and finalized at s+32. Token accounts are the owners' real associated token accounts (derived as the
// ATA program does), created on an owner's first receipt of a mint, with the ATA program's createIdempotent
// instruction in that transaction as on the real chain; payers are funded implicitly so transfers never fail.
// Tests move the chain by hand: transfer() lands a transaction in the next slot, advance() moves the slot,
// drop() takes a transaction away as a fork would, failNext() makes the next requests fail. Each control
// method is also reachable over HTTP as POST /__peer/<name> with a JSON body, for other processes and for
// `npm run solana-peer` (main.ts), which runs the peer on its own.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { base58Decode, base58Encode } from '../shared/base58.js';
import { startPeerServer, type Answer, type PeerServer } from '../shared/http-peer.js';
import { createSolanaSending, type SolanaSending } from './payouts.js';

export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
export const SOLANA_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const SOLANA_USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
/** Slots past a transaction's before it is finalized. */
export const SOLANA_FINALITY_DEPTH = 32;
/** Slots the status cache remembers: getSignatureStatuses without searchTransactionHistory forgets older ones. */
export const SOLANA_STATUS_CACHE_SLOTS = 300;

const DECIMALS = 6;
const FEE = 5000;
const TOKEN_ACCOUNT_LAMPORTS = 2_039_280;
/** What an underfunded payer's token account receives before it pays (base units). */
const FUNDING = 10n ** 15n;

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface SolanaTransferRecord {
  signature: string;
  slot: number;
  blockTime: number;
  mint: string;
  fromOwner: string;
  toOwner: string;
  /** Base units, an integer string. */
  amount: string;
  /** The owners' token accounts. */
  source: string;
  destination: string;
}

/** The peer: its address, the requests it received, failNext and close (shared/http-peer.ts), and its chain. */
export interface SolanaPeer extends PeerServer {
  /** The current (processed) slot. */
  readonly slot: number;
  /** Transactions on the chain (dropped ones are gone), oldest first. */
  readonly transactions: readonly SolanaTransferRecord[];
  /** The owner's token account for this mint (its associated token account), created now if it does not exist. */
  createTokenAccount(owner: string, mint: string): string;
  /** Lands a transferChecked from fromOwner's token account to toOwner's in the next slot (the slot advances by 1). */
  transfer(t: { mint: string; fromOwner: string; toOwner: string; amount: string | number | bigint }): { signature: string; slot: number };
  /** Moves the slot on by n; answers the new slot. */
  advance(n?: number): number;
  /** Takes the transaction away as a fork would; answers whether it was there. */
  drop(signature: string): boolean;
  /** Sending: getLatestBlockhash, sendTransaction and the controls of payouts.ts (mintTo, failNextOnChain, dropNext). */
  readonly sending: SolanaSending;
}

// ---- base58, ed25519 curve check, program-derived addresses ----

const sha256 = (...parts: Array<Uint8Array | string>) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const isPubkey = (s: unknown): s is string => typeof s === 'string' && s.length >= 32 && s.length <= 44 && base58Decode(s)?.length === 32;

/** A valid Solana address made from a seed: base58 of sha256(seed). */
export function solanaAddressFromSeed(seed: string): string {
  return base58Encode(sha256(seed));
}

const P = 2n ** 255n - 19n;
const modPow = (b: bigint, e: bigint) => {
  let r = 1n;
  b %= P;
  for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
};
const D = (((-121665n * modPow(121666n, P - 2n)) % P) + P) % P;

/** Whether 32 bytes decompress to an ed25519 point (what a program-derived address must not do). */
function isOnCurve(bytes: Buffer): boolean {
  const le = Buffer.from(bytes);
  le[31]! &= 0x7f;
  const y = BigInt(`0x${Buffer.from(le).reverse().toString('hex')}`) % P;
  const y2 = (y * y) % P;
  const u = (y2 - 1n + P) % P;
  const v = (D * y2 + 1n) % P;
  if (v === 0n) return u === 0n;
  const w = (u * modPow(v, P - 2n)) % P;
  return w === 0n || modPow(w, (P - 1n) / 2n) === 1n;
}

function findProgramAddress(seeds: Buffer[], programId: string): string {
  const program = base58Decode(programId)!;
  for (let bump = 255; bump >= 0; bump--) {
    const h = sha256(...seeds, Buffer.from([bump]), program, 'ProgramDerivedAddress');
    if (!isOnCurve(h)) return base58Encode(h);
  }
  throw new Error('no program address found');
}

/** The associated token account of owner for mint (SPL Token program), as getAssociatedTokenAddressSync computes it. */
export function associatedTokenAddress(owner: string, mint: string): string {
  return findProgramAddress([base58Decode(owner)!, base58Decode(TOKEN_PROGRAM_ID)!, base58Decode(mint)!], ASSOCIATED_TOKEN_PROGRAM_ID);
}

function uiAmount(amount: bigint) {
  const s = amount.toString().padStart(DECIMALS + 1, '0');
  const frac = s.slice(-DECIMALS).replace(/0+$/, '');
  const uiAmountString = frac ? `${s.slice(0, -DECIMALS)}.${frac}` : s.slice(0, -DECIMALS);
  return { amount: amount.toString(), decimals: DECIMALS, uiAmount: Number(uiAmountString), uiAmountString };
}

// ---- the chain ----

interface TokenAccount {
  pubkey: string;
  owner: string;
  mint: string;
  createdSlot: number;
}

interface Tx extends Omit<SolanaTransferRecord, 'amount'> {
  amount: bigint;
  seq: number;
  /** Minted into the source account just before, when it was short. */
  topUp: bigint;
  /** The destination token account was created by this transaction (createIdempotent). */
  createsDestination: boolean;
  recentBlockhash: string;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
const invalidParams = (message: string) => new RpcError(-32602, message);

const RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

export async function startSolanaPeer(
  opts: {
    port?: number;
    host?: string;
    /**
     * Commitment of calls that name none: `processed` unless given, what the tests expect. Real Solana RPC
     * defaults to finalized; pass 'finalized' to behave so.
     */
    defaultCommitment?: Commitment;
  } = {},
): Promise<SolanaPeer> {
  const host = opts.host ?? '127.0.0.1';
  const defaultCommitment = opts.defaultCommitment ?? 'processed';
  let slot = 300_000_000;
  let seq = 0;
  const accounts = new Map<string, TokenAccount>(); // by pubkey
  const txs: Tx[] = [];

  const statusOf = (s: number): Commitment => (slot >= s + SOLANA_FINALITY_DEPTH ? 'finalized' : slot >= s + 1 ? 'confirmed' : 'processed');
  const visible = (t: Tx, c: Commitment) => RANK[statusOf(t.slot)] >= RANK[c];
  const slotAt = (c: Commitment) => (c === 'finalized' ? slot - SOLANA_FINALITY_DEPTH : c === 'confirmed' ? slot - 1 : slot);

  /** Balance of a token account counting the transactions before seq (all when undefined) seen at this commitment. */
  const balance = (pubkey: string, c: Commitment, beforeSeq = Infinity) => {
    let b = 0n;
    for (const t of txs) {
      if (t.seq >= beforeSeq || !visible(t, c)) continue;
      if (t.source === pubkey) b += t.topUp - t.amount;
      if (t.destination === pubkey) b += t.amount;
    }
    return b + sending.minted(pubkey);
  };

  const ensureAccount = (owner: string, mint: string, atSlot: number) => {
    const pubkey = associatedTokenAddress(owner, mint);
    const existing = accounts.get(pubkey);
    if (existing) return { account: existing, created: false };
    const account = { pubkey, owner, mint, createdSlot: atSlot };
    accounts.set(pubkey, account);
    return { account, created: true };
  };

  const control = {
    createTokenAccount(owner: string, mint: string) {
      if (!isPubkey(owner) || !isPubkey(mint)) throw new Error('createTokenAccount: owner and mint must be base58 public keys');
      return ensureAccount(owner, mint, slot).account.pubkey;
    },
    transfer(t: { mint: string; fromOwner: string; toOwner: string; amount: string | number | bigint }) {
      if (!isPubkey(t.mint) || !isPubkey(t.fromOwner) || !isPubkey(t.toOwner))
        throw new Error('transfer: mint, fromOwner and toOwner must be base58 public keys');
      const amountStr = String(t.amount);
      if (!/^\d+$/.test(amountStr)) throw new Error('transfer: amount must be a non-negative integer (base units)');
      const amount = BigInt(amountStr);
      slot++;
      const source = ensureAccount(t.fromOwner, t.mint, slot).account.pubkey;
      const dest = ensureAccount(t.toOwner, t.mint, slot);
      const before = balance(source, 'processed');
      const tx: Tx = {
        signature: base58Encode(randomBytes(64)),
        slot,
        blockTime: Math.floor(Date.now() / 1000),
        mint: t.mint,
        fromOwner: t.fromOwner,
        toOwner: t.toOwner,
        amount,
        source,
        destination: dest.account.pubkey,
        seq: ++seq,
        topUp: before < amount ? FUNDING + amount : 0n,
        createsDestination: dest.created,
        recentBlockhash: base58Encode(randomBytes(32)),
      };
      txs.push(tx);
      return { signature: tx.signature, slot: tx.slot };
    },
    advance(n = 1) {
      if (!Number.isInteger(n) || n < 0) throw new Error('advance: n must be a non-negative integer');
      slot += n;
      return slot;
    },
    drop(signature: string) {
      const i = txs.findIndex((t) => t.signature === signature);
      if (i < 0) return false;
      txs.splice(i, 1);
      return true;
    },
  };

  /** Transactions that landed and failed (fee paid, nothing moved): signature → slot and error. */
  const failedTxs = new Map<string, { slot: number; err: unknown }>();
  const sending = createSolanaSending({
    slot: () => slot,
    slotAt,
    programs: { token: TOKEN_PROGRAM_ID, ata: ASSOCIATED_TOKEN_PROGRAM_ID, system: SYSTEM_PROGRAM_ID },
    associatedTokenAddress,
    account: (pubkey) => accounts.get(pubkey),
    ensureAccount: (owner, mint) => ensureAccount(owner, mint, slot).account.pubkey,
    balance: (pubkey, c) => balance(pubkey, c),
    known: (signature) => failedTxs.has(signature) || txs.some((t) => t.signature === signature),
    land(t) {
      slot++;
      if (t.createsDestination) ensureAccount(t.toOwner, t.mint, slot);
      txs.push({ ...t, slot, blockTime: Math.floor(Date.now() / 1000), seq: ++seq, topUp: 0n });
      return slot;
    },
    landFailed(signature, err) {
      slot++;
      failedTxs.set(signature, { slot, err });
      return slot;
    },
    rpcError: (code, message, data) => new RpcError(code, message, data),
    commitmentOf: (cfg) => commitmentOf(cfg),
    configOf: (v) => configOf(v),
  });

  // ---- transaction shapes ----

  interface Key {
    pubkey: string;
    signer: boolean;
    writable: boolean;
    lamports: [number, number];
  }
  const keysOf = (t: Tx): Key[] => {
    const feeAndRent = FEE + (t.createsDestination ? TOKEN_ACCOUNT_LAMPORTS : 0);
    const keys: Key[] = [
      { pubkey: t.fromOwner, signer: true, writable: true, lamports: [1_000_000_000, 1_000_000_000 - feeAndRent] },
      { pubkey: t.source, signer: false, writable: true, lamports: [TOKEN_ACCOUNT_LAMPORTS, TOKEN_ACCOUNT_LAMPORTS] },
    ];
    if (t.destination !== t.source)
      keys.push({
        pubkey: t.destination,
        signer: false,
        writable: true,
        lamports: [t.createsDestination ? 0 : TOKEN_ACCOUNT_LAMPORTS, TOKEN_ACCOUNT_LAMPORTS],
      });
    keys.push({ pubkey: t.mint, signer: false, writable: false, lamports: [1_461_600, 1_461_600] });
    keys.push({ pubkey: TOKEN_PROGRAM_ID, signer: false, writable: false, lamports: [934_087_680, 934_087_680] });
    if (t.createsDestination) {
      if (t.toOwner !== t.fromOwner) keys.push({ pubkey: t.toOwner, signer: false, writable: false, lamports: [0, 0] });
      keys.push({ pubkey: SYSTEM_PROGRAM_ID, signer: false, writable: false, lamports: [1, 1] });
      keys.push({ pubkey: ASSOCIATED_TOKEN_PROGRAM_ID, signer: false, writable: false, lamports: [731_913_600, 731_913_600] });
    }
    return keys;
  };

  const tokenBalances = (t: Tx, keys: Key[], when: 'pre' | 'post') => {
    const pre = balance(t.source, 'processed', t.seq) + t.topUp;
    const out: unknown[] = [];
    for (const [i, k] of keys.entries()) {
      if (k.pubkey !== t.source && k.pubkey !== t.destination) continue;
      // An account this transaction creates has no balance before it: Solana leaves it out of preTokenBalances.
      if (when === 'pre' && k.pubkey === t.destination && t.createsDestination && t.destination !== t.source) continue;
      let amount: bigint;
      if (k.pubkey === t.source) amount = when === 'pre' ? pre : pre - (t.destination === t.source ? 0n : t.amount);
      else {
        const destPre = balance(t.destination, 'processed', t.seq);
        amount = when === 'pre' ? destPre : destPre + t.amount;
      }
      const owner = k.pubkey === t.source ? t.fromOwner : t.toOwner;
      out.push({ accountIndex: i, mint: t.mint, owner, programId: TOKEN_PROGRAM_ID, uiTokenAmount: uiAmount(amount) });
    }
    return out;
  };

  const u64le = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(n);
    return b;
  };

  const transactionJson = (t: Tx, encoding: 'json' | 'jsonParsed') => {
    const keys = keysOf(t);
    const idx = (pubkey: string) => keys.findIndex((k) => k.pubkey === pubkey);
    const instructions: unknown[] = [];
    if (t.createsDestination) {
      instructions.push(
        encoding === 'jsonParsed'
          ? {
              parsed: {
                info: {
                  account: t.destination,
                  mint: t.mint,
                  source: t.fromOwner,
                  systemProgram: SYSTEM_PROGRAM_ID,
                  tokenProgram: TOKEN_PROGRAM_ID,
                  wallet: t.toOwner,
                },
                type: 'createIdempotent',
              },
              program: 'spl-associated-token-account',
              programId: ASSOCIATED_TOKEN_PROGRAM_ID,
              stackHeight: null,
            }
          : {
              accounts: [t.fromOwner, t.destination, t.toOwner, t.mint, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID].map(idx),
              data: base58Encode(Buffer.from([1])),
              programIdIndex: idx(ASSOCIATED_TOKEN_PROGRAM_ID),
              stackHeight: null,
            },
      );
    }
    const tokenAmount = uiAmount(t.amount);
    instructions.push(
      encoding === 'jsonParsed'
        ? {
            parsed: {
              info: { authority: t.fromOwner, destination: t.destination, mint: t.mint, source: t.source, tokenAmount },
              type: 'transferChecked',
            },
            program: 'spl-token',
            programId: TOKEN_PROGRAM_ID,
            stackHeight: null,
          }
        : {
            accounts: [t.source, t.mint, t.destination, t.fromOwner].map(idx),
            data: base58Encode(Buffer.concat([Buffer.from([12]), u64le(t.amount), Buffer.from([DECIMALS])])),
            programIdIndex: idx(TOKEN_PROGRAM_ID),
            stackHeight: null,
          },
    );
    const logs = [
      ...(t.createsDestination
        ? [`Program ${ASSOCIATED_TOKEN_PROGRAM_ID} invoke [1]`, 'Program log: Create', `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} success`]
        : []),
      `Program ${TOKEN_PROGRAM_ID} invoke [1]`,
      'Program log: Instruction: TransferChecked',
      `Program ${TOKEN_PROGRAM_ID} consumed 6200 of 200000 compute units`,
      `Program ${TOKEN_PROGRAM_ID} success`,
    ];
    const readonlyUnsigned = keys.filter((k) => !k.signer && !k.writable).length;
    return {
      blockTime: t.blockTime,
      meta: {
        computeUnitsConsumed: t.createsDestination ? 27_000 : 6200,
        err: null,
        fee: FEE,
        innerInstructions: [],
        loadedAddresses: { readonly: [], writable: [] },
        logMessages: logs,
        postBalances: keys.map((k) => k.lamports[1]),
        postTokenBalances: tokenBalances(t, keys, 'post'),
        preBalances: keys.map((k) => k.lamports[0]),
        preTokenBalances: tokenBalances(t, keys, 'pre'),
        rewards: [],
        status: { Ok: null },
      },
      slot: t.slot,
      transaction: {
        message: {
          accountKeys:
            encoding === 'jsonParsed'
              ? keys.map((k) => ({ pubkey: k.pubkey, signer: k.signer, source: 'transaction', writable: k.writable }))
              : keys.map((k) => k.pubkey),
          addressTableLookups: [],
          ...(encoding === 'json'
            ? { header: { numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: readonlyUnsigned, numRequiredSignatures: 1 } }
            : {}),
          instructions,
          recentBlockhash: t.recentBlockhash,
        },
        signatures: [t.signature],
      },
      version: 0,
    };
  };

  // ---- RPC methods ----

  const configOf = (v: unknown): Record<string, unknown> => {
    if (v === undefined || v === null) return {};
    if (typeof v !== 'object' || Array.isArray(v)) throw invalidParams('Invalid params: invalid type: expected a configuration object');
    return v as Record<string, unknown>;
  };
  const commitmentOf = (cfg: Record<string, unknown>, minimum?: Commitment): Commitment => {
    const c = cfg['commitment'];
    if (c === undefined) return defaultCommitment;
    if (c !== 'processed' && c !== 'confirmed' && c !== 'finalized')
      throw invalidParams(`Invalid params: unknown variant \`${String(c)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
    if (minimum && RANK[c] < RANK[minimum]) throw invalidParams('Method does not support commitment below `confirmed`');
    return c;
  };
  const checkMinContextSlot = (cfg: Record<string, unknown>, contextSlot: number) => {
    const m = cfg['minContextSlot'];
    if (typeof m === 'number' && contextSlot < m) throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot });
  };
  const pubkeyParam = (v: unknown) => {
    if (!isPubkey(v)) throw invalidParams('Invalid param: Invalid');
    return v;
  };

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'feature-set': 0, 'solana-core': '2.0.0' }),
    getSlot(params) {
      const cfg = configOf(params[0]);
      const s = slotAt(commitmentOf(cfg));
      checkMinContextSlot(cfg, s);
      return s;
    },
    getTokenAccountsByOwner(params) {
      const owner = pubkeyParam(params[0]);
      const filter = params[1];
      if (!filter || typeof filter !== 'object' || Array.isArray(filter))
        throw invalidParams('Invalid params: expected a filter, {"mint": ...} or {"programId": ...}');
      const f = filter as Record<string, unknown>;
      const cfg = configOf(params[2]);
      const commitment = commitmentOf(cfg);
      const contextSlot = slotAt(commitment);
      checkMinContextSlot(cfg, contextSlot);
      let mint: string | undefined;
      if ('mint' in f) mint = pubkeyParam(f['mint']);
      else if ('programId' in f) {
        const programId = pubkeyParam(f['programId']);
        if (programId !== TOKEN_PROGRAM_ID && programId !== TOKEN_2022_PROGRAM_ID)
          throw invalidParams('Invalid param: unrecognized Token program id');
        if (programId === TOKEN_2022_PROGRAM_ID) return { context: { apiVersion: '2.0.0', slot: contextSlot }, value: [] };
      } else throw invalidParams('Invalid params: expected a filter, {"mint": ...} or {"programId": ...}');
      const encoding = cfg['encoding'] ?? 'binary';
      const value = [...accounts.values()]
        .filter((a) => a.owner === owner && (mint === undefined || a.mint === mint) && a.createdSlot <= contextSlot)
        .map((a) => {
          const amount = balance(a.pubkey, commitment);
          let data: unknown;
          if (encoding === 'jsonParsed') {
            data = {
              parsed: {
                info: { isNative: false, mint: a.mint, owner: a.owner, state: 'initialized', tokenAmount: uiAmount(amount) },
                type: 'account',
              },
              program: 'spl-token',
              space: 165,
            };
          } else if (encoding === 'base64' || encoding === 'base58' || encoding === 'binary') {
            // The SPL token account layout: mint, owner, amount, delegate (none), state (initialized), is_native (none),
            // delegated_amount, close_authority (none).
            const raw = Buffer.concat([
              base58Decode(a.mint)!,
              base58Decode(a.owner)!,
              u64le(amount),
              Buffer.alloc(36),
              Buffer.from([1]),
              Buffer.alloc(12),
              Buffer.alloc(8),
              Buffer.alloc(36),
            ]);
            // Without an encoding Solana answers the legacy binary form: a bare base58 string.
            data =
              encoding === 'binary'
                ? base58Encode(raw)
                : encoding === 'base58'
                  ? [base58Encode(raw), 'base58']
                  : [raw.toString('base64'), 'base64'];
          } else throw invalidParams(`Invalid params: encoding ${String(encoding)} is not supported by this peer`);
          return {
            account: { data, executable: false, lamports: TOKEN_ACCOUNT_LAMPORTS, owner: TOKEN_PROGRAM_ID, rentEpoch: 0, space: 165 },
            pubkey: a.pubkey,
          };
        });
      return { context: { apiVersion: '2.0.0', slot: contextSlot }, value };
    },
    getSignaturesForAddress(params) {
      const address = pubkeyParam(params[0]);
      const cfg = configOf(params[1]);
      const commitment = commitmentOf(cfg, cfg['commitment'] === undefined ? undefined : 'confirmed');
      checkMinContextSlot(cfg, slotAt(commitment));
      const limit = cfg['limit'] ?? 1000;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw invalidParams('Invalid limit; max 1000');
      for (const k of ['before', 'until'] as const)
        if (cfg[k] !== undefined && (typeof cfg[k] !== 'string' || base58Decode(cfg[k])?.length !== 64))
          throw invalidParams('Invalid param: WrongSize');
      const newestFirst = txs
        .filter((t) => visible(t, commitment) && keysOf(t).some((k) => k.pubkey === address))
        .sort((a, b) => b.slot - a.slot || b.seq - a.seq);
      let list = newestFirst;
      if (cfg['before'] !== undefined) {
        const i = list.findIndex((t) => t.signature === cfg['before']);
        list = i < 0 ? [] : list.slice(i + 1);
      }
      if (cfg['until'] !== undefined) {
        const i = list.findIndex((t) => t.signature === cfg['until']);
        if (i >= 0) list = list.slice(0, i);
      }
      return list.slice(0, limit).map((t) => ({
        blockTime: t.blockTime,
        confirmationStatus: statusOf(t.slot),
        err: null,
        memo: null,
        signature: t.signature,
        slot: t.slot,
      }));
    },
    getTransaction(params) {
      const signature = params[0];
      if (typeof signature !== 'string' || base58Decode(signature)?.length !== 64) throw invalidParams('Invalid param: WrongSize');
      // The second parameter may be the encoding alone (the older form) or a configuration object.
      const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : configOf(params[1]);
      const commitment = commitmentOf(cfg, cfg['commitment'] === undefined ? undefined : 'confirmed');
      const encoding = cfg['encoding'] ?? 'json';
      if (encoding !== 'json' && encoding !== 'jsonParsed')
        throw invalidParams(`Invalid params: encoding ${String(encoding)} is not supported by this peer`);
      const t = txs.find((x) => x.signature === signature);
      if (!t || !visible(t, commitment)) return null;
      const max = cfg['maxSupportedTransactionVersion'];
      if (max === undefined || max === null)
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      if (max !== 0) throw invalidParams(`Invalid params: unsupported maxSupportedTransactionVersion ${String(max)}`);
      return transactionJson(t, encoding);
    },
    getSignatureStatuses(params) {
      const sigs = params[0];
      if (!Array.isArray(sigs)) throw invalidParams('Invalid params: invalid type: expected a sequence of signatures');
      if (sigs.length > 256) throw invalidParams('Too many inputs provided; max 256');
      const cfg = configOf(params[1]);
      const searchHistory = cfg['searchTransactionHistory'] === true;
      return {
        context: { apiVersion: '2.0.0', slot },
        value: sigs.map((sig: unknown) => {
          if (typeof sig !== 'string' || base58Decode(sig)?.length !== 64) throw invalidParams('Invalid param: WrongSize');
          const t = txs.find((x) => x.signature === sig) ?? failedTxs.get(sig);
          if (!t || (!searchHistory && slot - t.slot > SOLANA_STATUS_CACHE_SLOTS)) return null;
          const status = statusOf(t.slot);
          const err = 'err' in t ? t.err : null;
          return {
            confirmationStatus: status,
            confirmations: status === 'finalized' ? null : slot - t.slot,
            err,
            slot: t.slot,
            status: err === null ? { Ok: null } : { Err: err },
          };
        }),
      };
    },
  };

  const rpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
    error: { code, message, ...(data === undefined ? {} : { data }) },
    id: id ?? null,
    jsonrpc: '2.0',
  });

  const handleOne = (call: unknown) => {
    if (!call || typeof call !== 'object' || Array.isArray(call)) return rpcError(null, -32600, 'Invalid request');
    const { jsonrpc, id, method, params } = call as Record<string, unknown>;
    if (jsonrpc !== '2.0' || typeof method !== 'string') return rpcError(id, -32600, 'Invalid request');
    const fn = Object.hasOwn(methods, method)
      ? methods[method]
      : Object.hasOwn(sending.methods, method)
        ? sending.methods[method]
        : undefined;
    if (!fn) return rpcError(id, -32601, 'Method not found');
    if (params !== undefined && !Array.isArray(params)) return rpcError(id, -32602, 'Invalid params: expected an array');
    try {
      return { id, jsonrpc: '2.0', result: fn(params ?? []) };
    } catch (e) {
      if (e instanceof RpcError) return rpcError(id, e.code, e.message, e.data);
      return rpcError(id, -32603, `Internal error: ${(e as Error).message}`);
    }
  };

  const server = await startPeerServer({
    host,
    port: opts.port,
    control: {
      createTokenAccount: (args, fields) => ({
        pubkey: control.createTokenAccount(String(args[0] ?? fields['owner']), String(args[1] ?? fields['mint'])),
      }),
      transfer: (args, fields) => control.transfer((args[0] ?? fields) as Parameters<typeof control.transfer>[0]),
      advance: (args, fields) => ({ slot: control.advance(Number(args[0] ?? fields['n'] ?? 1)) }),
      drop: (args, fields) => ({ dropped: control.drop(String(args[0] ?? fields['signature'] ?? '')) }),
      slot: () => ({ slot }),
      mintTo: (args, fields) =>
        sending.mintTo(String(args[0] ?? fields['owner']), String(args[1] ?? fields['mint']), String(args[2] ?? fields['amount'])),
      failNextOnChain: (args, fields) => sending.failNextOnChain(Number(args[0] ?? fields['n'] ?? 1)),
      dropNext: (args, fields) => sending.dropNext(Number(args[0] ?? fields['n'] ?? 1)),
    },
    failure: (status) => ({ status, body: rpcError(null, status, http.STATUS_CODES[status] ?? 'Error') }),
    answer: ({ method, path, body }, _query, badJson): Answer => {
      if (method === 'GET' && path === '/health') return { status: 200, body: 'ok' };
      if (path !== '/') return { status: 404, body: 'Not Found' };
      if (method !== 'POST') return { status: 405, body: 'Method Not Allowed' };
      if (badJson || body === undefined) return { status: 200, body: rpcError(null, -32700, 'Parse error') };
      if (Array.isArray(body)) {
        if (body.length === 0) return { status: 200, body: rpcError(null, -32600, 'Invalid request') };
        return { status: 200, body: body.map(handleOne) };
      }
      return { status: 200, body: handleOne(body) };
    },
  });

  return {
    ...server,
    get slot() {
      return slot;
    },
    get transactions() {
      return txs.map((t) => ({
        signature: t.signature,
        slot: t.slot,
        blockTime: t.blockTime,
        mint: t.mint,
        fromOwner: t.fromOwner,
        toOwner: t.toOwner,
        amount: t.amount.toString(),
        source: t.source,
        destination: t.destination,
      }));
    },
    createTokenAccount: control.createTokenAccount,
    transfer: control.transfer,
    advance: control.advance,
    drop: control.drop,
    sending,
  };
}
