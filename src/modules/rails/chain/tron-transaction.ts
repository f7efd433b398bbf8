// TRON addresses and transactions as the payout sender needs them: base58check addresses (0x41 + 20 bytes),
// the address of a secp256k1 key (keccak-256 of the public key, as Ethereum, with TRON's prefix), ABI words
// for TRC-20 calls, and a reader of a transaction's raw_data_hex (protobuf `Transaction.raw` of java-tron's
// Tron.proto) so the sender signs only what it asked for, never what a node made up.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { base58 } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';

/** `Transaction.Contract.ContractType.TriggerSmartContract`. */
export const TRIGGER_SMART_CONTRACT = 31;
export const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';
/** The first four bytes of keccak-256("transfer(address,uint256)"). */
export const TRANSFER_SELECTOR = 'a9059cbb';

const checksum = (payload: Uint8Array) => sha256(sha256(payload)).subarray(0, 4);

/** The 21-byte payload (0x41 + 20 bytes) of a base58check TRON address, as hex; null when it is not one. */
export function tronAddressHex(address: string): string | null {
  let raw: Uint8Array;
  try {
    raw = base58.decode(address);
  } catch {
    return null;
  }
  if (raw.length !== 25 || raw[0] !== 0x41) return null;
  const payload = raw.subarray(0, 21);
  const sum = checksum(payload);
  for (let i = 0; i < 4; i++) if (sum[i] !== raw[21 + i]) return null;
  return bytesToHex(payload);
}

/** Base58check of a 21-byte payload given as hex (0x41 + 20 bytes). */
export function tronAddressFromHex(hex21: string): string {
  const payload = hexToBytes(hex21);
  const out = new Uint8Array(25);
  out.set(payload);
  out.set(checksum(payload), 21);
  return base58.encode(out);
}

/** The TRON address of an uncompressed secp256k1 public key (65 bytes, 0x04 first). */
export function tronAddressOfPublicKey(uncompressed: Uint8Array): string {
  const hash = keccak_256(uncompressed.subarray(1));
  return tronAddressFromHex(`41${bytesToHex(hash.subarray(12))}`);
}

/** A 32-byte ABI word. */
export const abiWord = (hex: string) => hex.padStart(64, '0');

/** The ABI-encoded arguments of `transfer(address,uint256)` (TronGrid's `parameter`: no selector). */
export function transferParameter(toBase58: string, units: bigint): string {
  const to = tronAddressHex(toBase58);
  if (to === null) throw new Error('not a TRON address');
  return abiWord(to.slice(2)) + abiWord(units.toString(16));
}

/** What a TRC-20 call transaction's raw bytes say. */
export interface DecodedTrigger {
  expiration: number;
  timestamp: number;
  feeLimit: number;
  contracts: number;
  type: number;
  typeUrl: string;
  /** Hex, 21 bytes each. */
  owner: string;
  contract: string;
  callValue: number;
  /** Hex of the call data (selector and arguments). */
  data: string;
}

type Reader = BinaryReader;

function readFields(bytes: Uint8Array, onField: (field: number, wire: WireType, r: Reader) => boolean): void {
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wire] = r.tag();
    if (!onField(field, wire, r)) r.skip(wire, field);
  }
}

function readTrigger(bytes: Uint8Array, out: DecodedTrigger): void {
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WireType.LengthDelimited) out.owner = bytesToHex(r.bytes());
    else if (field === 2 && wire === WireType.LengthDelimited) out.contract = bytesToHex(r.bytes());
    else if (field === 3 && wire === WireType.Varint) out.callValue = Number(r.int64());
    else if (field === 4 && wire === WireType.LengthDelimited) out.data = bytesToHex(r.bytes());
    // call_token_value (5) and token_id (6) would send TRC-10 tokens too: count them as a call value.
    else if ((field === 5 || field === 6) && wire === WireType.Varint) out.callValue += Number(r.int64()) === 0 ? 0 : 1;
    else return false;
    return true;
  });
}

function readContract(bytes: Uint8Array, out: DecodedTrigger): void {
  readFields(bytes, (field, wire, r) => {
    if (field === 1 && wire === WireType.Varint) out.type = r.int32();
    else if (field === 2 && wire === WireType.LengthDelimited) {
      readFields(r.bytes(), (f, w, any) => {
        if (f === 1 && w === WireType.LengthDelimited) out.typeUrl = any.string();
        else if (f === 2 && w === WireType.LengthDelimited) readTrigger(any.bytes(), out);
        else return false;
        return true;
      });
    } else return false;
    return true;
  });
}

/** Reads `Transaction.raw`; throws when the bytes are not a protobuf message. */
export function decodeRawData(rawDataHex: string): DecodedTrigger {
  const out: DecodedTrigger = {
    expiration: 0,
    timestamp: 0,
    feeLimit: 0,
    contracts: 0,
    type: -1,
    typeUrl: '',
    owner: '',
    contract: '',
    callValue: 0,
    data: '',
  };
  readFields(hexToBytes(rawDataHex), (field, wire, r) => {
    if (field === 8 && wire === WireType.Varint) out.expiration = Number(r.int64());
    else if (field === 14 && wire === WireType.Varint) out.timestamp = Number(r.int64());
    else if (field === 18 && wire === WireType.Varint) out.feeLimit = Number(r.int64());
    else if (field === 11 && wire === WireType.LengthDelimited) {
      out.contracts++;
      readContract(r.bytes(), out);
    } else return false;
    return true;
  });
  return out;
}

/** The txID of a transaction: sha256 of its raw bytes. */
export const txIdOf = (rawDataHex: string) => bytesToHex(sha256(hexToBytes(rawDataHex)));

/** A 65-byte signature of the txID, r ‖ s ‖ v with v = 27 + recovery id (as TronWeb signs; java-tron takes 0/1 too). */
export function signTxId(txId: string, privateKey: Uint8Array): string {
  const sig = secp256k1.sign(hexToBytes(txId), privateKey, { lowS: true });
  return sig.toCompactHex() + (27 + sig.recovery).toString(16).padStart(2, '0');
}
