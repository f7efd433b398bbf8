// The Solana peer's sending side, as a Solana RPC node answers it: getLatestBlockhash (a blockhash per slot,
// valid for 150 blocks), getBlockHeight, getAccountInfo and getTokenAccountBalance of token accounts, and
// sendTransaction, which deserialises the wire transaction (legacy or v0), verifies every ed25519 signature
// against the message, refuses an unknown or expired blockhash and a transaction already processed, runs
// its preflight (an SPL transfer over the balance fails) and lands it in the next slot: the ATA program's
// create/createIdempotent and the token program's transferChecked, nothing else. Tests fund the hot wallet
// with mintTo(), make the next transaction land failed on chain with failNextOnChain(), or be accepted and
// never land with dropNext(). Written from Solana's public RPC documentation (solana.com/docs/rpc).
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { base58Decode, base58Encode } from '../shared/base58.js';

/** Blocks a blockhash stays usable for (Solana's MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_BLOCKS = 150;
/** Block height is the slot less the slots skipped since genesis; the peer skips none after start. */
const SKIPPED_SLOTS = 12_345_678;
const TOKEN_ACCOUNT_SIZE = 165;

type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface SentTransfer {
  signature: string;
  mint: string;
  fromOwner: string;
  toOwner: string;
  source: string;
  destination: string;
  amount: bigint;
  createsDestination: boolean;
  recentBlockhash: string;
}

export interface SolanaSendingChain {
  slot(): number;
  slotAt(c: Commitment): number;
  programs: { token: string; ata: string; system: string };
  associatedTokenAddress(owner: string, mint: string): string;
  /** The token account's owner and mint, when it exists. */
  account(pubkey: string): { owner: string; mint: string } | undefined;
  /** The owner's associated token account for the mint, created now when missing. */
  ensureAccount(owner: string, mint: string): string;
  balance(pubkey: string, c: Commitment): bigint;
  /** Whether a signature is already on the chain (landed or failed). */
  known(signature: string): boolean;
  /** Lands a transfer in the next slot (creating the destination account when it says so). */
  land(t: SentTransfer): number;
  /** Lands a failed transaction in the next slot: fee paid, nothing else moves. */
  landFailed(signature: string, err: unknown): number;
  rpcError(code: number, message: string, data?: unknown): Error;
  commitmentOf(cfg: Record<string, unknown>): Commitment;
  configOf(v: unknown): Record<string, unknown>;
}

export interface SolanaSending {
  methods: Record<string, (params: unknown[]) => unknown>;
  /** Tokens minted into accounts (base units), by token account. */
  minted(pubkey: string): bigint;
  mintTo(owner: string, mint: string, amount: string | number | bigint): { account: string };
  failNextOnChain(n?: number): { ok: true };
  dropNext(n?: number): { ok: true };
  blockHeight(c?: Commitment): number;
  /** Signatures sendTransaction accepted, dropped ones included. */
  readonly accepted: readonly string[];
}

const u64le = (b: Uint8Array, at: number) => Buffer.from(b).readBigUInt64LE(at);

export function createSolanaSending(chain: SolanaSendingChain): SolanaSending {
  const minted = new Map<string, bigint>();
  const accepted: string[] = [];
  let failOnChain = 0;
  let drops = 0;
  const heightAt = (c: Commitment) => chain.slotAt(c) - SKIPPED_SLOTS;
  const blockhashOf = (slot: number) => base58Encode(createHash('sha256').update(`blockhash:${slot}`).digest());
  /** Blockhash → the slot it was made at. */
  const blockhashes = new Map<string, number>();

  const simulationFailed = (message: string, err: unknown) =>
    chain.rpcError(-32002, `Transaction simulation failed: ${message}`, { accounts: null, err, logs: [], unitsConsumed: 0 });

  const account = (pubkey: string) => chain.account(pubkey);

  /** The transfer a transaction asks for; throws the RPC error a node gives for anything else. */
  function interpret(
    staticAccounts: string[],
    numSigners: number,
    instructions: readonly { programAddressIndex: number; accountIndices?: readonly number[]; data?: ArrayLike<number> }[],
  ) {
    const at = (i: number | undefined) => {
      const a = i === undefined ? undefined : staticAccounts[i];
      if (!a) throw chain.rpcError(-32602, 'invalid transaction: account index out of bounds');
      return a;
    };
    let creates: { ata: string; owner: string; mint: string } | undefined;
    let transfer: Omit<SentTransfer, 'signature' | 'createsDestination' | 'recentBlockhash'> | undefined;
    for (const [n, ix] of instructions.entries()) {
      const program = at(ix.programAddressIndex);
      const accts = ix.accountIndices ?? [];
      const data = Uint8Array.from(ix.data ?? []);
      if (program === chain.programs.ata && (data.length === 0 || (data.length === 1 && (data[0] === 0 || data[0] === 1)))) {
        const [, ata, owner, mint] = [at(accts[0]), at(accts[1]), at(accts[2]), at(accts[3])];
        if (ata !== chain.associatedTokenAddress(owner, mint))
          throw simulationFailed(`Error processing Instruction ${n}: Provided seeds do not result in a valid address`, {
            InstructionError: [n, 'InvalidSeeds'],
          });
        if (account(ata) && data[0] !== 1)
          throw simulationFailed(`Error processing Instruction ${n}: Provided owner is not allowed`, {
            InstructionError: [n, 'IllegalOwner'],
          });
        if (!account(ata)) creates = { ata, owner, mint };
      } else if (program === chain.programs.token && data[0] === 12 && data.length === 10) {
        const [source, mint, destination, authority] = [at(accts[0]), at(accts[1]), at(accts[2]), at(accts[3])];
        const authorityIndex = accts[3]!;
        const src = account(source);
        const dst = account(destination) ?? (creates?.ata === destination ? creates : undefined);
        if (authorityIndex >= numSigners) throw chain.rpcError(-32602, 'invalid transaction: the authority did not sign');
        if (!src || !dst)
          throw simulationFailed(`Error processing Instruction ${n}: invalid account data for instruction`, {
            InstructionError: [n, 'InvalidAccountData'],
          });
        if (src.owner !== authority || src.mint !== mint || dst.mint !== mint)
          throw simulationFailed(`Error processing Instruction ${n}: custom program error: 0x4`, { InstructionError: [n, { Custom: 4 }] });
        if (data[9] !== 6)
          throw simulationFailed(`Error processing Instruction ${n}: custom program error: 0x12`, {
            InstructionError: [n, { Custom: 18 }],
          });
        transfer = { mint, fromOwner: authority, toOwner: dst.owner, source, destination, amount: u64le(data, 1) };
      } else {
        throw simulationFailed(`Error processing Instruction ${n}: this peer runs only SPL transfers`, {
          InstructionError: [n, 'InvalidInstructionData'],
        });
      }
    }
    if (!transfer) throw simulationFailed('this peer runs only SPL transfers', 'InvalidAccountData');
    return { transfer, creates: creates?.ata === transfer.destination };
  }

  function sendTransaction(params: unknown[]): string {
    const cfg = chain.configOf(params[1]);
    if (cfg['encoding'] !== 'base64') throw chain.rpcError(-32602, 'this peer takes base64 transactions only');
    const bytes = typeof params[0] === 'string' ? Buffer.from(params[0], 'base64') : Buffer.alloc(0);
    let tx, message;
    try {
      tx = getTransactionDecoder().decode(bytes);
      message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    } catch {
      throw chain.rpcError(
        -32602,
        'failed to deserialize solana_transaction::versioned::VersionedTransaction: io error: failed to fill whole buffer',
      );
    }
    if (message.version !== 'legacy' && message.version !== 0)
      throw chain.rpcError(-32602, 'this peer takes legacy and v0 transactions only');
    const signers = Object.entries(tx.signatures);
    if ('addressTableLookups' in message && (message.addressTableLookups?.length ?? 0) > 0)
      throw chain.rpcError(-32602, 'this peer takes no address lookup tables');
    for (const [pubkey, sig] of signers) {
      if (!sig || !ed25519.verify(sig, new Uint8Array(tx.messageBytes), base58Decode(pubkey)!))
        throw chain.rpcError(-32003, 'Transaction signature verification failure');
    }
    const signature = base58Encode(signers[0]![1]!);
    if (chain.known(signature)) throw simulationFailed('This transaction has already been processed', 'AlreadyProcessed');
    const made = blockhashes.get(message.lifetimeToken);
    if (made === undefined || heightAt('processed') > made - SKIPPED_SLOTS + BLOCKHASH_VALID_BLOCKS)
      throw simulationFailed('Blockhash not found', 'BlockhashNotFound');
    const { transfer, creates } = interpret([...message.staticAccounts], message.header.numSignerAccounts, message.instructions);
    if (cfg['skipPreflight'] !== true && chain.balance(transfer.source, 'processed') < transfer.amount)
      throw simulationFailed('Error processing Instruction 1: custom program error: 0x1', { InstructionError: [1, { Custom: 1 }] });
    accepted.push(signature);
    if (drops > 0) {
      drops--;
      return signature;
    }
    if (failOnChain > 0 || chain.balance(transfer.source, 'processed') < transfer.amount) {
      if (failOnChain > 0) failOnChain--;
      chain.landFailed(signature, { InstructionError: [creates ? 1 : 0, { Custom: 1 }] });
      return signature;
    }
    chain.land({ ...transfer, signature, createsDestination: creates, recentBlockhash: message.lifetimeToken });
    return signature;
  }

  function tokenAccountData(pubkey: string, a: { owner: string; mint: string }, c: Commitment) {
    const data = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
    base58Decode(a.mint)!.copy(data, 0);
    base58Decode(a.owner)!.copy(data, 32);
    data.writeBigUInt64LE(chain.balance(pubkey, c), 64);
    data[108] = 1; // initialized
    return data.toString('base64');
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash(params) {
      const c = chain.commitmentOf(chain.configOf(params[0]));
      const slot = chain.slotAt(c);
      const blockhash = blockhashOf(slot);
      blockhashes.set(blockhash, slot);
      return {
        context: { apiVersion: '2.0.0', slot: chain.slot() },
        value: { blockhash, lastValidBlockHeight: slot - SKIPPED_SLOTS + BLOCKHASH_VALID_BLOCKS },
      };
    },
    getBlockHeight: (params) => heightAt(chain.commitmentOf(chain.configOf(params[0]))),
    getAccountInfo(params) {
      const pubkey = String(params[0]);
      const cfg = chain.configOf(params[1]);
      if (cfg['encoding'] !== undefined && cfg['encoding'] !== 'base64') throw chain.rpcError(-32602, 'this peer answers base64 only');
      const a = account(pubkey);
      const value = a
        ? {
            data: [tokenAccountData(pubkey, a, chain.commitmentOf(cfg)), 'base64'],
            executable: false,
            lamports: 2_039_280,
            owner: chain.programs.token,
            rentEpoch: 0,
            space: TOKEN_ACCOUNT_SIZE,
          }
        : null;
      return { context: { apiVersion: '2.0.0', slot: chain.slot() }, value };
    },
    getTokenAccountBalance(params) {
      const pubkey = String(params[0]);
      const a = account(pubkey);
      if (!a) throw chain.rpcError(-32602, 'Invalid param: could not find account');
      const amount = chain.balance(pubkey, chain.commitmentOf(chain.configOf(params[1])));
      const s = amount.toString().padStart(7, '0');
      const ui = `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, '');
      return {
        context: { apiVersion: '2.0.0', slot: chain.slot() },
        value: { amount: amount.toString(), decimals: 6, uiAmount: Number(ui), uiAmountString: ui },
      };
    },
    sendTransaction,
  };

  return {
    methods,
    minted: (pubkey) => minted.get(pubkey) ?? 0n,
    mintTo(owner, mint, amount) {
      const pubkey = chain.ensureAccount(owner, mint);
      minted.set(pubkey, (minted.get(pubkey) ?? 0n) + BigInt(String(amount)));
      return { account: pubkey };
    },
    failNextOnChain(n = 1) {
      failOnChain = n;
      return { ok: true };
    },
    dropNext(n = 1) {
      drops = n;
      return { ok: true };
    },
    blockHeight: (c = 'processed') => heightAt(c),
    get accepted() {
      return accepted;
    },
  };
}
