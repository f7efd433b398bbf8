// The payout sender's TRON client: a TRC-20 `transfer(address,uint256)` from the hot wallet, built by
// TronGrid's `POST /wallet/triggersmartcontract`, read back from its raw bytes (contract, owner, receiver,
// amount, no TRX sent, our fee limit, one contract) and its txID checked to be their sha256 before the key
// signs it: a node that made up another transaction gets nothing signed. Broadcast with
// `/wallet/broadcasttransaction` (DUP_TRANSACTION_ERROR: already known, fine), looked up with
// `/wallet/gettransactioninfobyid` (in a block: its receipt says SUCCESS or why not), then
// `/wallet/gettransactionfrompending` (seen, not mined), and the head block of `/wallet/getnowblock` for the
// depth and, past the transaction's expiration, `expired`. Written from TronGrid's public documentation.
import { secp256k1 } from '@noble/curves/secp256k1';
import { hexToBytes } from '@noble/hashes/utils';
import type { ChainConfig } from '../../../config-chains.js';
import { ChainRpcError } from './chain-source.js';
import { FailoverHttp } from './http-failover.js';
import type { PayoutLookup, PayoutNetworkClient, PayoutTransfer, SignedPayout } from './payout-client.js';
import {
  TRANSFER_SELECTOR,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_TYPE_URL,
  abiWord,
  decodeRawData,
  signTxId,
  transferParameter,
  tronAddressHex,
  tronAddressOfPublicKey,
  txIdOf,
} from './tron-transaction.js';

/** The most TRX (in sun) a transfer may burn for energy: 100 TRX, above what a USDT transfer costs today. */
export const TRON_FEE_LIMIT_SUN = 100_000_000;
/** java-tron refuses an expiration more than 24 hours after the head block; a node that offers one is lying. */
const MAX_EXPIRATION_MS = 24 * 60 * 60_000;

interface TronTransactionJson {
  txID: string;
  raw_data: { expiration?: number } & Record<string, unknown>;
  raw_data_hex: string;
  signature?: string[];
  visible?: boolean;
}

export class TronPayoutClient implements PayoutNetworkClient {
  readonly network = 'tron' as const;
  readonly from: string;
  private readonly fromHex: string;
  private readonly key: Uint8Array;
  private readonly http: FailoverHttp;

  constructor(config: ChainConfig, privateKeyHex: string, options: { timeoutMs?: number } = {}) {
    const hex = privateKeyHex.trim().replace(/^0x/, '');
    if (!/^[0-9a-fA-F]{64}$/.test(hex) || !secp256k1.utils.isValidPrivateKey(hexToBytes(hex))) {
      throw new Error('the TRON payout key is not a 32-byte secp256k1 private key in hex');
    }
    this.key = hexToBytes(hex);
    this.from = tronAddressOfPublicKey(secp256k1.getPublicKey(this.key, false));
    this.fromHex = tronAddressHex(this.from)!;
    this.http = new FailoverHttp('tron', config.rpcUrls, options.timeoutMs ?? 10_000);
  }

  isValidAddress(address: string): boolean {
    return tronAddressHex(address) !== null;
  }

  private async post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await this.http.call('POST', path, body);
    if (res.status !== 200 || typeof res.body !== 'object' || res.body === null || Array.isArray(res.body)) {
      throw new ChainRpcError('tron', `${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    const answer = res.body as Record<string, unknown>;
    if (typeof answer['Error'] === 'string') throw new ChainRpcError('tron', `${path}: ${answer['Error']}`);
    return answer;
  }

  async sign(transfer: PayoutTransfer): Promise<SignedPayout> {
    const tokenHex = tronAddressHex(transfer.token);
    if (tokenHex === null) throw new Error(`the ${transfer.asset} contract ${transfer.token} is not a TRON address`);
    if (transfer.units <= 0n) throw new Error('a payout moves a positive amount');
    const parameter = transferParameter(transfer.to, transfer.units);
    const answer = await this.post('/wallet/triggersmartcontract', {
      owner_address: this.from,
      contract_address: transfer.token,
      function_selector: 'transfer(address,uint256)',
      parameter,
      fee_limit: TRON_FEE_LIMIT_SUN,
      call_value: 0,
      visible: true,
    });
    const result = answer['result'] as { result?: boolean; message?: string } | undefined;
    const tx = answer['transaction'] as TronTransactionJson | undefined;
    if (result?.result !== true || !tx || typeof tx.raw_data_hex !== 'string' || typeof tx.txID !== 'string') {
      throw new ChainRpcError('tron', `triggersmartcontract built no transaction: ${describeMessage(result?.message)}`);
    }
    this.checkBuilt(tx, tokenHex, TRANSFER_SELECTOR + parameter);
    const signed: TronTransactionJson = {
      txID: tx.txID,
      raw_data: tx.raw_data,
      raw_data_hex: tx.raw_data_hex,
      signature: [signTxId(tx.txID, this.key)],
      visible: tx.visible ?? true,
    };
    return { txHash: tx.txID, raw: JSON.stringify(signed), validUntil: decodeRawData(tx.raw_data_hex).expiration };
  }

  /** Throws unless the node's transaction is exactly the transfer asked for, and its txID is its hash. */
  private checkBuilt(tx: TronTransactionJson, tokenHex: string, data: string): void {
    if (!/^[0-9a-fA-F]+$/.test(tx.raw_data_hex) || txIdOf(tx.raw_data_hex) !== tx.txID.toLowerCase()) {
      throw new ChainRpcError('tron', 'the node answered a transaction whose txID is not the hash of its raw data');
    }
    let raw;
    try {
      raw = decodeRawData(tx.raw_data_hex);
    } catch {
      throw new ChainRpcError('tron', 'the node answered raw data that is not a TRON transaction');
    }
    const wrong: string[] = [];
    if (raw.contracts !== 1 || raw.type !== TRIGGER_SMART_CONTRACT || raw.typeUrl !== TRIGGER_TYPE_URL) wrong.push('contract type');
    if (raw.owner !== this.fromHex) wrong.push('owner');
    if (raw.contract !== tokenHex) wrong.push('token contract');
    if (raw.data !== data.toLowerCase()) wrong.push('receiver or amount');
    if (raw.callValue !== 0) wrong.push('call value');
    if (raw.feeLimit !== TRON_FEE_LIMIT_SUN) wrong.push('fee limit');
    // The node's timestamp when it gives one (java-tron does), else ours.
    const builtAt = raw.timestamp > 0 ? raw.timestamp : Date.now();
    if (!(raw.expiration > builtAt) || raw.expiration - builtAt > MAX_EXPIRATION_MS) wrong.push('expiration');
    if (tx.raw_data && typeof tx.raw_data === 'object' && tx.raw_data.expiration !== raw.expiration) wrong.push('expiration');
    if (wrong.length > 0) {
      throw new ChainRpcError(
        'tron',
        `the node built another transaction than the one asked for (${[...new Set(wrong)].join(', ')}); not signed`,
      );
    }
  }

  async broadcast(signed: SignedPayout): Promise<void> {
    const answer = await this.post('/wallet/broadcasttransaction', JSON.parse(signed.raw) as unknown);
    if (answer['result'] === true) return;
    const code = String(answer['code'] ?? 'UNKNOWN');
    if (code === 'DUP_TRANSACTION_ERROR') return;
    throw new ChainRpcError('tron', `broadcasttransaction refused ${signed.txHash}: ${code} ${describeMessage(answer['message'])}`);
  }

  private async headBlock(): Promise<{ number: number; timestamp: number }> {
    const block = await this.post('/wallet/getnowblock', {});
    const raw = (block['block_header'] as { raw_data?: { number?: unknown; timestamp?: unknown } } | undefined)?.raw_data;
    if (typeof raw?.number !== 'number' || typeof raw.timestamp !== 'number') {
      throw new ChainRpcError('tron', 'getnowblock answered no block number');
    }
    return { number: raw.number, timestamp: raw.timestamp };
  }

  async lookup(signed: SignedPayout): Promise<PayoutLookup> {
    const info = await this.post('/wallet/gettransactioninfobyid', { value: signed.txHash });
    const head = await this.headBlock();
    if (typeof info['blockNumber'] === 'number') {
      const block = info['blockNumber'];
      const receipt = (info['receipt'] as { result?: string } | undefined)?.result;
      // A TRC-20 call's receipt always names its outcome: SUCCESS, or REVERT, OUT_OF_ENERGY and the like.
      const success = receipt === 'SUCCESS' && info['result'] !== 'FAILED';
      return { state: 'included', block, confirmations: Math.max(0, head.number - block + 1), success };
    }
    if (await this.inPendingPool(signed.txHash)) return { state: 'pending' };
    // Once the head block is past the expiration no node takes the transaction, and none can include it.
    if (signed.validUntil !== undefined && head.timestamp > signed.validUntil) return { state: 'expired' };
    return { state: 'unknown' };
  }

  /** Whether the node holds the transaction in its pending pool; a node without that call (an older java-tron) says no. */
  private async inPendingPool(txId: string): Promise<boolean> {
    const res = await this.http.call('POST', '/wallet/gettransactionfrompending', { value: txId });
    const body = res.body as Record<string, unknown> | null;
    return res.status === 200 && body !== null && typeof body === 'object' && body['txID'] === txId;
  }

  async tokenBalance(token: string, owner: string = this.from): Promise<bigint> {
    const ownerHex = tronAddressHex(owner);
    if (ownerHex === null) throw new Error(`${owner} is not a TRON address`);
    const answer = await this.post('/wallet/triggerconstantcontract', {
      owner_address: this.from,
      contract_address: token,
      function_selector: 'balanceOf(address)',
      parameter: abiWord(ownerHex.slice(2)),
      visible: true,
    });
    const result = answer['result'] as { result?: boolean; message?: string } | undefined;
    const out = (answer['constant_result'] as unknown[] | undefined)?.[0];
    if (result?.result !== true || typeof out !== 'string' || !/^[0-9a-fA-F]{1,64}$/.test(out)) {
      throw new ChainRpcError('tron', `balanceOf failed: ${describeMessage(result?.message)}`);
    }
    return BigInt(`0x${out}`);
  }
}

/** TronGrid sends its messages hex-encoded; readable text is shown as it is. */
function describeMessage(message: unknown): string {
  if (typeof message !== 'string') return 'no message';
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    const text = Buffer.from(message, 'hex').toString('utf8');
    if (/^[\x20-\x7e]*$/.test(text)) return text;
  }
  return message.slice(0, 200);
}
