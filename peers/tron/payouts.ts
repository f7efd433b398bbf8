// The TRON peer's sending side, as a java-tron full node behind TronGrid answers it: wallet/triggersmartcontract
// builds an unsigned TRC-20 `transfer(address,uint256)` (raw_data_hex is the protobuf `Transaction.raw`,
// txID its sha256; expiration 60 s after the head block, as java-tron sets it), wallet/broadcasttransaction
// checks that transaction (its signature recovers to the owner, not expired, not a duplicate) and mines it in
// the next block, moving the peer's TRC-20 balances, or reverting when the balance is short or revertNext()
// said so; wallet/gettransactionfrompending, wallet/triggerconstantcontract `balanceOf(address)`. Written
// from TronGrid's public documentation (developers.tron.network, "HTTP API") and java-tron's Tron.proto.
import { createHash } from 'node:crypto';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import type { Answer } from '../shared/http-peer.js';

const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
const TRANSFER_SELECTOR = 'a9059cbb';
const BALANCE_OF_SELECTOR = 'balanceOf(address)';
const word = (hex: string) => hex.padStart(64, '0');
const hexText = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const sha256hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

export interface TronSendingChain {
  head(): number;
  blockTimestamp(n: number): number;
  blockId(n: number): string;
  /** Base58 from base58 or hex; null when not an address. */
  normalizeAddress(a: string): string | null;
  tronAddressToHex(a: string): string | null;
  tronAddressFromHex(hex21: string): string;
  /** Adds a new block; answers its number. */
  newBlock(): number;
  /** Records a successful TRC-20 transfer in block n (the watcher's history sees it). */
  addTransfer(t: { transaction_id: string; contract: string; from: string; to: string; value: string }, blockNumber: number): void;
}

interface Built {
  txID: string;
  rawHex: string;
  expiration: number;
  owner: string;
  contract: string;
  to: string;
  value: bigint;
  json: Record<string, unknown>;
}

/** What tests can do to the sending side. */
export interface TronSending {
  /** Gives an address tokens of a contract (base units). */
  fund(t: { contract: string; address: string; value: string | number | bigint }): { balance: string };
  balanceOf(contract: string, address: string): bigint;
  /** The next n broadcast transfers are mined but revert (receipt REVERT, no tokens move). */
  revertNext(n?: number): { ok: true };
  /** While on, broadcasts wait in the pending pool; mine() includes them once it is off. */
  hold(on: boolean): { pending: number };
  /** The next triggersmartcontract answers a transaction other than the one asked for. */
  tamperNext(kind: 'receiver' | 'amount' | 'owner' | 'txid'): { ok: true };
  /** Broadcasts accepted (duplicates and refusals excepted). */
  readonly accepted: readonly string[];
  credit(contract: string, from: string, to: string, value: bigint): void;
  mineInto(blockNumber: number): void;
  failedInfo(txId: string): Record<string, unknown> | undefined;
  trigger(body: unknown): Answer;
  constant(body: unknown): Answer;
  broadcast(body: unknown): Answer;
  fromPending(body: unknown): Answer;
}

function encodeRaw(chain: TronSendingChain, b: { owner: string; contract: string; data: string; feeLimit: number }) {
  const head = chain.head();
  const id = chain.blockId(head);
  const timestamp = chain.blockTimestamp(head);
  const expiration = timestamp + 60_000;
  const trigger = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .bytes(Buffer.from(chain.tronAddressToHex(b.owner)!, 'hex'))
    .tag(2, WireType.LengthDelimited)
    .bytes(Buffer.from(chain.tronAddressToHex(b.contract)!, 'hex'))
    .tag(4, WireType.LengthDelimited)
    .bytes(Buffer.from(b.data, 'hex'))
    .finish();
  const any = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string(TRIGGER_TYPE_URL)
    .tag(2, WireType.LengthDelimited)
    .bytes(trigger)
    .finish();
  const contract = new BinaryWriter().tag(1, WireType.Varint).int32(31).tag(2, WireType.LengthDelimited).bytes(any).finish();
  const refBytes = id.slice(12, 16);
  const refHash = id.slice(16, 32);
  const raw = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .bytes(Buffer.from(refBytes, 'hex'))
    .tag(4, WireType.LengthDelimited)
    .bytes(Buffer.from(refHash, 'hex'))
    .tag(8, WireType.Varint)
    .int64(expiration)
    .tag(11, WireType.LengthDelimited)
    .bytes(contract)
    .tag(14, WireType.Varint)
    .int64(timestamp)
    .tag(18, WireType.Varint)
    .int64(b.feeLimit)
    .finish();
  return { rawHex: Buffer.from(raw).toString('hex'), expiration, timestamp, refBytes, refHash };
}

/** Reads back owner, contract, data and expiration of a Transaction.raw; null when it is not one. */
function decodeRaw(rawHex: string): { owner: string; contract: string; data: string; expiration: number } | null {
  try {
    const out = { owner: '', contract: '', data: '', expiration: 0 };
    const r = new BinaryReader(Buffer.from(rawHex, 'hex'));
    while (r.pos < r.len) {
      const [f, w] = r.tag();
      if (f === 8 && w === WireType.Varint) out.expiration = Number(r.int64());
      else if (f === 11 && w === WireType.LengthDelimited) {
        const c = new BinaryReader(r.bytes());
        while (c.pos < c.len) {
          const [cf, cw] = c.tag();
          if (cf !== 2 || cw !== WireType.LengthDelimited) {
            c.skip(cw, cf);
            continue;
          }
          const any = new BinaryReader(c.bytes());
          while (any.pos < any.len) {
            const [af, aw] = any.tag();
            if (af !== 2 || aw !== WireType.LengthDelimited) {
              any.skip(aw, af);
              continue;
            }
            const t = new BinaryReader(any.bytes());
            while (t.pos < t.len) {
              const [tf, tw] = t.tag();
              if (tf === 1) out.owner = Buffer.from(t.bytes()).toString('hex');
              else if (tf === 2) out.contract = Buffer.from(t.bytes()).toString('hex');
              else if (tf === 4) out.data = Buffer.from(t.bytes()).toString('hex');
              else t.skip(tw, tf);
            }
          }
        }
      } else r.skip(w, f);
    }
    return out.owner && out.contract ? out : null;
  } catch {
    return null;
  }
}

/** The owner address (hex, 41-prefixed) a 65-byte signature of txID recovers to; null when it does not. */
function signer(txId: string, sigHex: string): string | null {
  try {
    if (!/^[0-9a-fA-F]{130}$/.test(sigHex)) return null;
    let v = parseInt(sigHex.slice(128), 16);
    if (v >= 27) v -= 27;
    if (v !== 0 && v !== 1) return null;
    const sig = secp256k1.Signature.fromCompact(sigHex.slice(0, 128)).addRecoveryBit(v);
    const pub = sig.recoverPublicKey(Buffer.from(txId, 'hex')).toRawBytes(false);
    return `41${Buffer.from(keccak_256(pub.subarray(1)))
      .subarray(12)
      .toString('hex')}`;
  } catch {
    return null;
  }
}

const fail = (code: string, message: string, txid?: string): Answer => ({
  status: 200,
  body: { code, ...(txid ? { txid } : {}), message: hexText(message) },
});

export function createTronSending(chain: TronSendingChain): TronSending {
  const balances = new Map<string, bigint>(); // `${contract}:${address}`
  const built = new Map<string, Built>();
  const pending: Built[] = [];
  const failed = new Map<string, Record<string, unknown>>();
  const known = new Set<string>();
  const accepted: string[] = [];
  let reverts = 0;
  let held = false;
  let tamper: 'receiver' | 'amount' | 'owner' | 'txid' | undefined;

  const key = (contract: string, address: string) => `${contract}:${address}`;
  const balanceOf = (contract: string, address: string) => balances.get(key(contract, address)) ?? 0n;
  const add = (contract: string, address: string, delta: bigint) =>
    balances.set(key(contract, address), balanceOf(contract, address) + delta);

  /** Mines one built transaction in block n: moves the tokens, or reverts. */
  function execute(b: Built, n: number) {
    if (reverts > 0 || balanceOf(b.contract, b.owner) < b.value) {
      if (reverts > 0) reverts--;
      failed.set(b.txID, {
        id: b.txID,
        fee: 345_000,
        blockNumber: n,
        blockTimeStamp: chain.blockTimestamp(n),
        contractResult: [''],
        contract_address: chain.tronAddressToHex(b.contract),
        receipt: { energy_fee: 345_000, energy_usage_total: 14_650, net_usage: 345, result: 'REVERT' },
        result: 'FAILED',
        resMessage: hexText('REVERT opcode executed'),
      });
      return;
    }
    add(b.contract, b.owner, -b.value);
    add(b.contract, b.to, b.value);
    chain.addTransfer({ transaction_id: b.txID, contract: b.contract, from: b.owner, to: b.to, value: b.value.toString() }, n);
  }

  function parseTrigger(body: unknown): { owner: string; contract: string; data: string; feeLimit: number; visible: boolean } | string {
    if (!body || typeof body !== 'object') return 'invalid request body';
    const o = body as Record<string, unknown>;
    const owner = chain.normalizeAddress(String(o['owner_address'] ?? ''));
    const contract = chain.normalizeAddress(String(o['contract_address'] ?? ''));
    if (!owner || !contract) return 'Invalid address';
    const parameter = String(o['parameter'] ?? '');
    if (o['function_selector'] !== 'transfer(address,uint256)') return `this peer builds only transfer(address,uint256)`;
    if (!/^[0-9a-fA-F]{128}$/.test(parameter)) return 'Invalid parameter';
    const feeLimit = Number(o['fee_limit'] ?? 0);
    if (!Number.isInteger(feeLimit) || feeLimit < 0 || feeLimit > 15_000_000_000) return 'fee_limit must be >= 0 and <= 15000000000';
    return { owner, contract, data: TRANSFER_SELECTOR + parameter.toLowerCase(), feeLimit, visible: o['visible'] === true };
  }

  function trigger(body: unknown): Answer {
    const p = parseTrigger(body);
    if (typeof p === 'string') return { status: 200, body: { result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexText(p) } } };
    const kind = tamper;
    tamper = undefined;
    let { owner, data } = p;
    if (kind === 'receiver') data = data.slice(0, 8) + word(`41${'ab'.repeat(20)}`.slice(2)) + data.slice(72);
    if (kind === 'amount') data = data.slice(0, 72) + word((BigInt(`0x${data.slice(72)}`) + 1n).toString(16));
    if (kind === 'owner') owner = chain.tronAddressFromHex(`41${'cd'.repeat(20)}`);
    const raw = encodeRaw(chain, { owner, contract: p.contract, data, feeLimit: p.feeLimit });
    let txID = sha256hex(raw.rawHex);
    if (kind === 'txid') txID = sha256hex(txID);
    const addr = (base58: string) => (p.visible ? base58 : chain.tronAddressToHex(base58)!);
    const json = {
      visible: p.visible,
      txID,
      raw_data: {
        contract: [
          {
            parameter: { value: { data, owner_address: addr(owner), contract_address: addr(p.contract) }, type_url: TRIGGER_TYPE_URL },
            type: 'TriggerSmartContract',
          },
        ],
        ref_block_bytes: raw.refBytes,
        ref_block_hash: raw.refHash,
        expiration: raw.expiration,
        fee_limit: p.feeLimit,
        timestamp: raw.timestamp,
      },
      raw_data_hex: raw.rawHex,
    };
    const to = chain.tronAddressFromHex(`41${data.slice(32, 72)}`);
    built.set(sha256hex(raw.rawHex), {
      txID: sha256hex(raw.rawHex),
      rawHex: raw.rawHex,
      expiration: raw.expiration,
      owner,
      contract: p.contract,
      to,
      value: BigInt(`0x${data.slice(72)}`),
      json,
    });
    return { status: 200, body: { result: { result: true }, transaction: json } };
  }

  function broadcast(body: unknown): Answer {
    if (!body || typeof body !== 'object') return fail('OTHER_ERROR', 'invalid transaction');
    const tx = body as Record<string, unknown>;
    const rawHex = typeof tx['raw_data_hex'] === 'string' ? tx['raw_data_hex'] : '';
    const raw = /^([0-9a-fA-F]{2})+$/.test(rawHex) ? decodeRaw(rawHex) : null;
    if (!raw) return fail('OTHER_ERROR', 'invalid raw_data_hex');
    const txid = sha256hex(rawHex);
    if (known.has(txid)) return fail('DUP_TRANSACTION_ERROR', 'Dup transaction.', txid);
    const headTs = chain.blockTimestamp(chain.head());
    if (raw.expiration <= headTs) return fail('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired', txid);
    const sigs = Array.isArray(tx['signature']) ? (tx['signature'] as unknown[]) : [];
    const by = typeof sigs[0] === 'string' ? signer(txid, sigs[0]) : null;
    if (sigs.length !== 1 || by !== raw.owner)
      return fail('SIGERROR', `Validate signature error: ${by ?? 'no valid signature'} is not the owner ${raw.owner}`, txid);
    if (raw.data.slice(0, 8) !== TRANSFER_SELECTOR || raw.data.length !== 136)
      return fail('CONTRACT_VALIDATE_ERROR', 'this peer runs only TRC-20 transfer(address,uint256)', txid);
    const b: Built = built.get(txid) ?? {
      txID: txid,
      rawHex,
      expiration: raw.expiration,
      owner: chain.tronAddressFromHex(raw.owner),
      contract: chain.tronAddressFromHex(raw.contract),
      to: chain.tronAddressFromHex(`41${raw.data.slice(32, 72)}`),
      value: BigInt(`0x${raw.data.slice(72)}`),
      json: tx,
    };
    known.add(txid);
    accepted.push(txid);
    if (held) pending.push(b);
    else execute(b, chain.newBlock());
    return { status: 200, body: { result: true, txid } };
  }

  return {
    get accepted() {
      return accepted;
    },
    fund(t) {
      const contract = chain.normalizeAddress(String(t.contract));
      const address = chain.normalizeAddress(String(t.address));
      if (!contract || !address || !/^\d+$/.test(String(t.value))) throw new Error('fund: contract, address and an integer value');
      add(contract, address, BigInt(String(t.value)));
      return { balance: balanceOf(contract, address).toString() };
    },
    balanceOf: (contract, address) => balanceOf(chain.normalizeAddress(contract) ?? contract, chain.normalizeAddress(address) ?? address),
    revertNext(n = 1) {
      reverts = n;
      return { ok: true };
    },
    hold(on) {
      held = on;
      return { pending: pending.length };
    },
    tamperNext(kind) {
      tamper = kind;
      return { ok: true };
    },
    credit(contract, from, to, value) {
      // Payers of the watcher's transfers are funded implicitly, so their balance never goes negative.
      const have = balanceOf(contract, from);
      add(contract, from, have < value ? -have : -value);
      add(contract, to, value);
    },
    mineInto(n) {
      // An expired transaction leaves the pending pool, held or not; it can never be included.
      const ts = chain.blockTimestamp(n);
      for (const b of pending.splice(0)) {
        if (b.expiration <= ts) known.delete(b.txID);
        else if (held) pending.push(b);
        else execute(b, n);
      }
    },
    failedInfo: (txId) => failed.get(txId),
    trigger,
    constant(body) {
      const o = (body ?? {}) as Record<string, unknown>;
      const contract = chain.normalizeAddress(String(o['contract_address'] ?? ''));
      const parameter = String(o['parameter'] ?? '');
      if (!contract || o['function_selector'] !== BALANCE_OF_SELECTOR || !/^[0-9a-fA-F]{64}$/.test(parameter))
        return {
          status: 200,
          body: { result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexText('this peer answers balanceOf(address) only') } },
        };
      const owner = chain.tronAddressFromHex(`41${parameter.slice(24)}`);
      return {
        status: 200,
        body: {
          result: { result: true },
          energy_used: 935,
          constant_result: [word(balanceOf(contract, owner).toString(16))],
          transaction: { ret: [{}], visible: o['visible'] === true, txID: sha256hex(parameter) },
        },
      };
    },
    broadcast,
    fromPending(body) {
      const value = (body as { value?: unknown } | undefined)?.value;
      const b = pending.find((p) => p.txID === String(value ?? '').toLowerCase());
      return { status: 200, body: b ? b.json : {} };
    },
  };
}
