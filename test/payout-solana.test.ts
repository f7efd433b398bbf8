// The payout sender's Solana client (SolanaPayoutClient) against the local Solana RPC node (peers/solana),
// behind a dead first URL: the wallet address from the secret key, owner address checks (on the curve), an
// SPL transferChecked signed and sent (again too), the receiver's token account created in the same
// transaction the first time only, looked up to finality with the tokens moved once; a transaction that
// lands failed; a blockhash past its last valid height; a transaction the network dropped; the peer refuses
// a bad signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import type { ChainConfig } from '../src/config-chains.js';
import { SolanaPayoutClient } from '../src/modules/rails/chain/solana-payout.js';
import { freePorts } from './helpers/server-process.js';
import {
  associatedTokenAddress,
  startSolanaPeer,
  SOLANA_FINALITY_DEPTH,
  SOLANA_USDC_MINT,
  SOLANA_USDT_MINT,
  solanaAddressFromSeed,
  type SolanaPeer,
} from '../peers/solana/peer.js';
import { BLOCKHASH_VALID_BLOCKS } from '../peers/solana/payouts.js';

const keyPair = (seedByte: number) => {
  const seed = new Uint8Array(32).fill(seedByte);
  const pub = ed25519.getPublicKey(seed);
  return { secret: base58.encode(new Uint8Array([...seed, ...pub])), address: base58.encode(pub) };
};
const instructionsOf = (raw: string) => {
  const tx = getTransactionDecoder().decode(Buffer.from(raw, 'base64'));
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as unknown as { instructions: unknown[] };
  return message.instructions.length;
};

describe('SolanaPayoutClient against the Solana RPC peer', () => {
  let solana: SolanaPeer;
  let client: SolanaPayoutClient;
  let config: ChainConfig;
  const hot = keyPair(7);
  const payee = keyPair(9).address;
  const otherPayee = keyPair(11).address;

  beforeAll(async () => {
    solana = await startSolanaPeer();
    const [dead] = await freePorts(1);
    config = {
      network: 'solana',
      rpcUrls: [`http://127.0.0.1:${dead}`, solana.url],
      address: solanaAddressFromSeed('cowrie solana payee'),
      tokens: { USDT: SOLANA_USDT_MINT, USDC: SOLANA_USDC_MINT },
      confirmations: SOLANA_FINALITY_DEPTH,
    };
    client = new SolanaPayoutClient(config, hot.secret, { timeoutMs: 2000 });
    solana.sending.mintTo(hot.address, SOLANA_USDC_MINT, 50_000_000n);
  });
  afterAll(() => solana?.close());

  const transfer = (units: bigint, to = payee) => ({ asset: 'USDC' as const, token: SOLANA_USDC_MINT, to, units });

  it('takes the address from the secret key and checks owner addresses as wallets do', () => {
    expect(client.from).toBe(hot.address);
    expect(client.isValidAddress(payee)).toBe(true);
    // A program-derived address (a token account) is off the curve: no one can sign for it as an owner.
    expect(client.isValidAddress(associatedTokenAddress(payee, SOLANA_USDC_MINT))).toBe(false);
    expect(client.isValidAddress(payee.slice(0, 20))).toBe(false);
    expect(client.isValidAddress('0OIl' + payee.slice(4))).toBe(false);
    expect(client.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(false);
    expect(() => new SolanaPayoutClient(config, hot.secret.slice(0, 40))).toThrow(/64-byte|base58/);
    const wrongHalf = base58.decode(hot.secret);
    wrongHalf[40]! ^= 1;
    expect(() => new SolanaPayoutClient(config, base58.encode(wrongHalf))).toThrow(/public key/);
  });

  it('signs, sends, looks up to finality, and the tokens arrive exactly once (the account created on the first payout only)', async () => {
    expect(await client.tokenBalance(SOLANA_USDC_MINT, payee)).toBe(0n);
    const signed = await client.sign(transfer(7_500_000n));
    expect(instructionsOf(signed.raw)).toBe(2); // createIdempotent + transferChecked
    expect(signed.validUntil).toBeGreaterThan(solana.sending.blockHeight('finalized'));
    expect(await client.lookup(signed)).toEqual({ state: 'unknown' });
    await client.broadcast(signed);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', confirmations: 1, success: true });
    await client.broadcast(signed); // already processed: fine
    solana.advance(SOLANA_FINALITY_DEPTH);
    const final = await client.lookup(signed);
    expect(final).toMatchObject({ state: 'included', success: true });
    expect((final as { confirmations: number }).confirmations).toBeGreaterThanOrEqual(SOLANA_FINALITY_DEPTH);
    expect(await client.tokenBalance(SOLANA_USDC_MINT, payee)).toBe(7_500_000n);
    expect(await client.tokenBalance(SOLANA_USDC_MINT)).toBe(42_500_000n);
    expect(solana.transactions.filter((t) => t.signature === signed.txHash)).toHaveLength(1);

    const second = await client.sign(transfer(500_000n));
    expect(instructionsOf(second.raw)).toBe(1); // the account exists now
    await client.broadcast(second);
    expect(await client.lookup(second)).toMatchObject({ state: 'included', success: true });
    // Balances are read at `confirmed`: one slot later.
    expect(await client.tokenBalance(SOLANA_USDC_MINT, payee)).toBe(7_500_000n);
    solana.advance(1);
    expect(await client.tokenBalance(SOLANA_USDC_MINT, payee)).toBe(8_000_000n);
  });

  it('reports a transaction that landed failed as included without success, and nothing moves', async () => {
    const before = await client.tokenBalance(SOLANA_USDC_MINT);
    solana.sending.failNextOnChain(1);
    const signed = await client.sign(transfer(1_000_000n, otherPayee));
    await client.broadcast(signed);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', success: false });
    solana.advance(1);
    expect(await client.tokenBalance(SOLANA_USDC_MINT)).toBe(before);
    expect(await client.tokenBalance(SOLANA_USDC_MINT, otherPayee)).toBe(0n);
  });

  it('refuses at preflight a transfer over the balance', async () => {
    const before = await client.tokenBalance(SOLANA_USDC_MINT);
    const signed = await client.sign(transfer(before + 1n));
    await expect(client.broadcast(signed)).rejects.toThrow(/custom program error: 0x1/);
    expect(await client.lookup(signed)).toEqual({ state: 'unknown' });
  });

  it('a transaction never sent, or dropped, is expired once the chain is past its last valid block height', async () => {
    const unsent = await client.sign(transfer(1_000n));
    solana.sending.dropNext(1);
    const dropped = await client.sign(transfer(2_000n));
    await client.broadcast(dropped);
    expect(await client.lookup(dropped)).toEqual({ state: 'unknown' });
    solana.advance(SOLANA_FINALITY_DEPTH + BLOCKHASH_VALID_BLOCKS + 1);
    expect(await client.lookup(unsent)).toEqual({ state: 'expired' });
    expect(await client.lookup(dropped)).toEqual({ state: 'expired' });
    await expect(client.broadcast(unsent)).rejects.toThrow(/Blockhash not found/);
    expect(await client.tokenBalance(SOLANA_USDC_MINT, payee)).toBe(8_000_000n);
  });

  it('refuses to sign for an address that is not a wallet', async () => {
    await expect(client.sign(transfer(1n, associatedTokenAddress(payee, SOLANA_USDC_MINT)))).rejects.toThrow(/not a Solana wallet/);
  });

  it('the peer refuses a transaction whose signature does not match', async () => {
    const signed = await client.sign(transfer(3_000n));
    const bytes = Buffer.from(signed.raw, 'base64');
    const badSig = Buffer.from(bytes);
    badSig[5]! ^= 0xff; // inside the first signature
    await expect(client.broadcast({ ...signed, raw: badSig.toString('base64') })).rejects.toThrow(/signature verification failure/);
    const badMessage = Buffer.from(bytes);
    badMessage[bytes.length - 1]! ^= 0x01; // inside the message: the signature no longer covers it
    await expect(client.broadcast({ ...signed, raw: badMessage.toString('base64') })).rejects.toThrow(/-32003|-32602|simulation/);
    expect(await client.lookup(signed)).toEqual({ state: 'unknown' });
    await client.broadcast(signed);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', success: true });
  });
});
