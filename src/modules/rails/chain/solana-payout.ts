// The payout sender's Solana client: an SPL token `transferChecked` from the hot wallet's associated token
// account to the receiving owner's, that account created in the same transaction when `getAccountInfo`
// finds none (the ATA program's createIdempotent, so a race with another creator is harmless). Built and
// signed with @solana/kit and @solana-program/token on the blockhash of `getLatestBlockhash` (finalized):
// the signature is the transaction's id, known before it is sent, and the blockhash's lastValidBlockHeight
// is how long it can land. `sendTransaction` (base64, with preflight; "already processed" is fine), looked
// up with `getSignatureStatuses` (searchTransactionHistory), its depth in slots against `getSlot`, and
// `getBlockHeight` past lastValidBlockHeight with no status: expired. Written from Solana's public RPC
// documentation.
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isAddress,
  isOffCurveAddress,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type KeyPairSigner,
} from '@solana/kit';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { ChainConfig } from '../../../config-chains.js';
import { STABLE_DECIMALS } from '../../../shared/chains.js';
import { ChainRpcError } from './chain-source.js';
import { FailoverHttp } from './http-failover.js';
import type { PayoutLookup, PayoutNetworkClient, PayoutTransfer, SignedPayout } from './payout-client.js';

interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

interface SignatureStatus {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus?: 'processed' | 'confirmed' | 'finalized' | null;
}

/** A transaction the network has already processed: sending it again is not an error. */
const ALREADY_PROCESSED = /already been processed|AlreadyProcessed/;

export class SolanaPayoutClient implements PayoutNetworkClient {
  readonly network = 'solana' as const;
  readonly from: string;
  private readonly secret: Uint8Array;
  private signer?: Promise<KeyPairSigner>;
  private readonly http: FailoverHttp;
  private readonly confirmations: number;
  private nextId = 1;

  constructor(config: ChainConfig, secretKeyBase58: string, options: { timeoutMs?: number } = {}) {
    let secret: Uint8Array;
    try {
      secret = base58.decode(secretKeyBase58.trim());
    } catch {
      throw new Error('the Solana payout key is not base58');
    }
    // A Solana secret key is 64 bytes: the ed25519 seed, then its public key.
    if (secret.length !== 64) throw new Error('the Solana payout key is not a 64-byte secret key');
    const pub = ed25519.getPublicKey(secret.subarray(0, 32));
    if (!pub.every((b, i) => b === secret[32 + i])) throw new Error('the Solana payout key does not hold its own public key');
    this.secret = secret;
    this.from = base58.encode(pub);
    this.confirmations = config.confirmations;
    this.http = new FailoverHttp('solana', config.rpcUrls, options.timeoutMs ?? 10_000);
  }

  /** An owner's address, as wallets check one: a 32-byte base58 public key on the ed25519 curve (not a program address). */
  isValidAddress(candidate: string): boolean {
    return isAddress(candidate) && !isOffCurveAddress(candidate);
  }

  private keyPair(): Promise<KeyPairSigner> {
    this.signer ??= createKeyPairSignerFromBytes(this.secret);
    return this.signer;
  }

  private async rpc<T>(method: string, params: unknown[]): Promise<T> {
    const answer = await this.call<T>(method, params);
    if (answer.error) throw new ChainRpcError('solana', `${method}: ${answer.error.code} ${answer.error.message}`);
    return answer.result as T;
  }

  private async call<T>(method: string, params: unknown[]): Promise<RpcAnswer<T>> {
    const res = await this.http.call('POST', '', { jsonrpc: '2.0', id: this.nextId++, method, params });
    const body = res.body as RpcAnswer<T> | null;
    if (res.status !== 200 || body === null || typeof body !== 'object')
      throw new ChainRpcError('solana', `${method} answered ${res.status}`);
    return body;
  }

  private async ata(owner: string, mint: string): Promise<Address> {
    const [pda] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    return pda;
  }

  async sign(transfer: PayoutTransfer): Promise<SignedPayout> {
    if (!this.isValidAddress(transfer.to)) throw new Error(`${transfer.to} is not a Solana wallet address`);
    if (!isAddress(transfer.token)) throw new Error(`the ${transfer.asset} mint ${transfer.token} is not a Solana address`);
    if (transfer.units <= 0n) throw new Error('a payout moves a positive amount');
    const signer = await this.keyPair();
    const mint = address(transfer.token);
    const [source, destination] = await Promise.all([this.ata(this.from, mint), this.ata(transfer.to, mint)]);
    const existing = await this.rpc<{ value: unknown }>('getAccountInfo', [destination, { encoding: 'base64', commitment: 'confirmed' }]);
    const { value: latest } = await this.rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [
      { commitment: 'finalized' },
    ]);
    const instructions = [
      ...(existing.value === null
        ? [getCreateAssociatedTokenIdempotentInstruction({ payer: signer, ata: destination, owner: address(transfer.to), mint })]
        : []),
      getTransferCheckedInstruction({ source, mint, destination, authority: signer, amount: transfer.units, decimals: STABLE_DECIMALS }),
    ];
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(signer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: latest.blockhash as Blockhash, lastValidBlockHeight: BigInt(latest.lastValidBlockHeight) },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    return {
      txHash: getSignatureFromTransaction(signed),
      raw: getBase64EncodedWireTransaction(signed),
      validUntil: latest.lastValidBlockHeight,
    };
  }

  async broadcast(signed: SignedPayout): Promise<void> {
    const answer = await this.call<string>('sendTransaction', [
      signed.raw,
      { encoding: 'base64', skipPreflight: false, preflightCommitment: 'confirmed', maxRetries: 0 },
    ]);
    if (!answer.error) return;
    const detail = `${answer.error.message} ${JSON.stringify(answer.error.data ?? '')}`;
    if (ALREADY_PROCESSED.test(detail)) return;
    throw new ChainRpcError('solana', `sendTransaction refused ${signed.txHash}: ${answer.error.code} ${answer.error.message}`);
  }

  async lookup(signed: SignedPayout): Promise<PayoutLookup> {
    // The height first: a transaction with no status after a height past its last valid one can never land.
    const height = await this.rpc<number>('getBlockHeight', [{ commitment: 'confirmed' }]);
    const { value } = await this.rpc<{ value: (SignatureStatus | null)[] }>('getSignatureStatuses', [
      [signed.txHash],
      { searchTransactionHistory: true },
    ]);
    const status = value[0];
    if (status) {
      const slot = await this.rpc<number>('getSlot', [{ commitment: 'processed' }]);
      let confirmations = Math.max(1, slot - status.slot + 1);
      // Finalized is final, whatever the slots say.
      if (status.confirmationStatus === 'finalized') confirmations = Math.max(confirmations, this.confirmations);
      return { state: 'included', block: status.slot, confirmations, success: status.err === null || status.err === undefined };
    }
    if (signed.validUntil !== undefined && height > signed.validUntil) return { state: 'expired' };
    return { state: 'unknown' };
  }

  async tokenBalance(token: string, owner: string = this.from): Promise<bigint> {
    const account = await this.ata(owner, token);
    const answer = await this.call<{ value: { amount: string } }>('getTokenAccountBalance', [account, { commitment: 'confirmed' }]);
    // No token account yet: nothing was ever received.
    if (answer.error && /could not find account/.test(answer.error.message)) return 0n;
    if (answer.error || !answer.result)
      throw new ChainRpcError('solana', `getTokenAccountBalance: ${answer.error?.message ?? 'no result'}`);
    return BigInt(answer.result.value.amount);
  }
}
