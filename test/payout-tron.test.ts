// The payout sender's TRON client (TronPayoutClient) against the local TronGrid (peers/tron), behind a dead
// first URL: its address from the key, address checks, a TRC-20 transfer built by the node, checked, signed,
// broadcast (again too), looked up to its depth with the tokens moved; a reverted transfer; a transaction
// left unmined past its expiration; a node that answers another transaction than the one asked for gets
// nothing signed; the peer refuses a transaction signed by another key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1';
import { bytesToHex } from '@noble/hashes/utils';
import type { ChainConfig } from '../src/config-chains.js';
import { TronPayoutClient } from '../src/modules/rails/chain/tron-payout.js';
import { signTxId, tronAddressHex } from '../src/modules/rails/chain/tron-transaction.js';
import { freePorts } from './helpers/server-process.js';
import { startTronPeer, tronAddressFromSeed, TRON_SOLIDIFY_DEPTH, TRON_USDC, TRON_USDT, type TronPeer } from '../peers/tron/peer.js';

const KEY = '0000000000000000000000000000000000000000000000000000000000000001';
/** Key 1's Ethereum address is 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf; TRON's is the same 20 bytes after 0x41. */
const KEY_ONE_HEX = '417e5f4552091a69125d5dfcb7b8c2659029395bdf';

describe('TronPayoutClient against the TronGrid peer', () => {
  let tron: TronPeer;
  let client: TronPayoutClient;
  const payee = tronAddressFromSeed('a merchant taking its money out');

  beforeAll(async () => {
    tron = await startTronPeer();
    const [dead] = await freePorts(1);
    const config: ChainConfig = {
      network: 'tron',
      rpcUrls: [`http://127.0.0.1:${dead}`, tron.url],
      address: tronAddressFromSeed('cowrie tron payee'),
      tokens: { USDT: TRON_USDT, USDC: TRON_USDC },
      confirmations: TRON_SOLIDIFY_DEPTH,
    };
    client = new TronPayoutClient(config, KEY, { timeoutMs: 2000 });
    tron.sending.fund({ contract: TRON_USDT, address: client.from, value: 100_000_000n });
  });
  afterAll(() => tron?.close());

  const transfer = (units: bigint, to = payee) => ({ asset: 'USDT' as const, token: TRON_USDT, to, units });

  it('derives the hot wallet address from the key and checks addresses with their checksum', () => {
    expect(tronAddressHex(client.from)).toBe(KEY_ONE_HEX);
    expect(client.isValidAddress(payee)).toBe(true);
    expect(client.isValidAddress(TRON_USDT)).toBe(true);
    const broken = payee.slice(0, -1) + (payee.endsWith('a') ? 'b' : 'a');
    expect(client.isValidAddress(broken)).toBe(false);
    expect(client.isValidAddress('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf')).toBe(false);
    expect(client.isValidAddress('T')).toBe(false);
    expect(client.isValidAddress('')).toBe(false);
    expect(() => new TronPayoutClient({ ...({} as ChainConfig), rpcUrls: [tron.url] }, 'zz')).toThrow(/private key/);
  });

  it('signs, broadcasts, looks up to the depth, and the tokens arrive exactly once', async () => {
    const before = await client.tokenBalance(TRON_USDT);
    expect(before).toBe(100_000_000n);
    const signed = await client.sign(transfer(12_345_678n));
    expect(signed.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.validUntil).toBeGreaterThan(tron.blockTimestamp(tron.head));
    expect(await client.lookup(signed)).toEqual({ state: 'unknown' });
    await client.broadcast(signed);
    const first = await client.lookup(signed);
    expect(first).toMatchObject({ state: 'included', confirmations: 1, success: true });
    // Broadcast again (a restart after a crash): already known, not an error, nothing moves twice.
    await client.broadcast(signed);
    tron.mine(TRON_SOLIDIFY_DEPTH - 1);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', confirmations: TRON_SOLIDIFY_DEPTH, success: true });
    expect(await client.tokenBalance(TRON_USDT, payee)).toBe(12_345_678n);
    expect(await client.tokenBalance(TRON_USDT)).toBe(before - 12_345_678n);
    expect(tron.transfers.filter((t) => t.transaction_id === signed.txHash)).toHaveLength(1);
    const trigger = tron.requests.find((r) => r.path === '/wallet/triggersmartcontract')!;
    expect(trigger.body).toMatchObject({
      owner_address: client.from,
      contract_address: TRON_USDT,
      function_selector: 'transfer(address,uint256)',
    });
  });

  it('reports a reverted transfer as included without success, and nothing moves', async () => {
    const before = await client.tokenBalance(TRON_USDT);
    tron.sending.revertNext(1);
    const signed = await client.sign(transfer(1_000_000n));
    await client.broadcast(signed);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', success: false });
    expect(await client.tokenBalance(TRON_USDT)).toBe(before);
    // More than the hot wallet holds: mined, reverted.
    const tooMuch = await client.sign(transfer(before + 1n));
    await client.broadcast(tooMuch);
    expect(await client.lookup(tooMuch)).toMatchObject({ state: 'included', success: false });
    expect(await client.tokenBalance(TRON_USDT)).toBe(before);
  });

  it('sees a held broadcast pending, then expired once the chain is past its expiration', async () => {
    tron.sending.hold(true);
    try {
      const signed = await client.sign(transfer(2_000_000n));
      await client.broadcast(signed);
      expect(await client.lookup(signed)).toEqual({ state: 'pending' });
      tron.mine(5);
      expect(await client.lookup(signed)).toEqual({ state: 'pending' });
      tron.mine(20); // 25 blocks of 3 s: past the 60 s expiration
      expect(await client.lookup(signed)).toEqual({ state: 'expired' });
      await expect(client.broadcast(signed)).rejects.toThrow(/TRANSACTION_EXPIRATION_ERROR/);
      tron.sending.hold(false);
      tron.mine(1);
      expect(await client.lookup(signed)).toEqual({ state: 'expired' });
      expect(await client.tokenBalance(TRON_USDT, payee)).toBe(12_345_678n);
    } finally {
      tron.sending.hold(false);
    }
  });

  it('a held broadcast released is mined', async () => {
    tron.sending.hold(true);
    const signed = await client.sign(transfer(1n));
    await client.broadcast(signed);
    tron.sending.hold(false);
    tron.mine(1);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', confirmations: 1, success: true });
  });

  it.each(['receiver', 'amount', 'owner', 'txid'] as const)(
    'signs nothing when the node answers another transaction (%s)',
    async (kind) => {
      const broadcasts = tron.sending.accepted.length;
      tron.sending.tamperNext(kind);
      await expect(client.sign(transfer(3_000_000n))).rejects.toThrow(kind === 'txid' ? /txID is not the hash/ : /another transaction/);
      expect(tron.sending.accepted.length).toBe(broadcasts);
    },
  );

  it('refuses to build a transfer to an address that is not one', async () => {
    await expect(client.sign(transfer(1n, 'TNotAnAddress'))).rejects.toThrow(/not a TRON address/);
  });

  it('the peer refuses a transaction signed by another key', async () => {
    const signed = await client.sign(transfer(4_000_000n));
    const other = secp256k1.utils.randomPrivateKey();
    const tx = JSON.parse(signed.raw) as { txID: string; signature: string[] };
    tx.signature = [signTxId(tx.txID, other)];
    await expect(client.broadcast({ ...signed, raw: JSON.stringify(tx) })).rejects.toThrow(/SIGERROR/);
    tx.signature = [bytesToHex(new Uint8Array(65))];
    await expect(client.broadcast({ ...signed, raw: JSON.stringify(tx) })).rejects.toThrow(/SIGERROR/);
    expect(await client.lookup(signed)).toEqual({ state: 'unknown' });
    // The real signature still goes through.
    await client.broadcast(signed);
    expect(await client.lookup(signed)).toMatchObject({ state: 'included', success: true });
  });
});
