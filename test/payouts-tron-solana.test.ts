// Live payouts on TRON and Solana through a running server, against the local TronGrid (peers/tron) and
// Solana RPC node (peers/solana): a merchant's payout on each network is held, sent by that network's
// payout sender (the same loop as on EVM networks), paid at the network's depth, and arrives exactly once
// (the receiver's token balance read from the peer); an address of the wrong network is refused before
// anything is held.
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSolanaPeer, SOLANA_USDC_MINT, solanaAddressFromSeed, type SolanaPeer } from '../peers/solana/peer.js';
import { startTronPeer, TRON_USDT, tronAddressFromSeed, type TronPeer } from '../peers/tron/peer.js';
import { SolanaPayoutClient } from '../src/modules/rails/chain/solana-payout.js';
import { TronPayoutClient } from '../src/modules/rails/chain/tron-payout.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { applyLive, expectLedgerInvariant, newIntent } from './helpers/ledger-invariant.js';
import { waitForStatus } from './helpers/wait.js';

const TRON_KEY = '00000000000000000000000000000000000000000000000000000000000000a7';
const TRON_DEPTH = 3;
const SOLANA_DEPTH = 4;

const solanaKeyPair = (seedByte: number) => {
  const seed = new Uint8Array(32).fill(seedByte);
  const pub = ed25519.getPublicKey(seed);
  return { secret: base58.encode(new Uint8Array([...seed, ...pub])), address: base58.encode(pub) };
};

describe(`live payouts on TRON and Solana against their peers (${ENGINE})`, () => {
  let tron: TronPeer;
  let solana: SolanaPeer;
  let s: TestServer;
  let merchantKey: string;
  const solHot = solanaKeyPair(21);

  beforeAll(async () => {
    tron = await startTronPeer();
    solana = await startSolanaPeer();
    s = await startTestServer({
      noLiveRails: true,
      env: {
        COWRIE_CHAIN_POLL_MS: '100',
        COWRIE_CHAIN_TRON_RPC_URLS: tron.url,
        COWRIE_CHAIN_TRON_ADDRESS: tronAddressFromSeed('cowrie tron receiving'),
        COWRIE_CHAIN_TRON_CONFIRMATIONS: String(TRON_DEPTH),
        COWRIE_CHAIN_TRON_PAYOUT_KEY: TRON_KEY,
        COWRIE_CHAIN_SOLANA_RPC_URLS: solana.url,
        COWRIE_CHAIN_SOLANA_ADDRESS: solanaAddressFromSeed('cowrie solana receiving'),
        COWRIE_CHAIN_SOLANA_CONFIRMATIONS: String(SOLANA_DEPTH),
        COWRIE_CHAIN_SOLANA_PAYOUT_KEY: solHot.secret,
        COWRIE_PAYOUT_AUTO_APPROVE: '100',
        COWRIE_NEW_MERCHANT_DAYS: '0',
        COWRIE_JOB_INTERVAL_MS: '60000',
      },
    });
    const m = await s.newMerchant({ name: 'Payouts on TRON and Solana', verified: true });
    merchantKey = m.keys.live_secret!;
    for (const asset of ['USDT', 'USDC']) {
      const pi = await newIntent(s, { amount: '80.00', currency: 'USD', settlement_currency: asset }, 'live', merchantKey);
      await applyLive(s, pi.id, 'external_wallet', 'success', m.merchant.id);
    }
  }, 90_000);
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    tron?.close();
    solana?.close();
  });

  const payout = (body: object) => s.call('live', 'POST', '/payouts', { key: merchantKey, body });
  const get = async (id: string) => (await s.call('live', 'GET', `/payouts/${id}`, { key: merchantKey })).json;
  const waitStatus = (id: string, status: string) => waitForStatus(get, id, status, { timeoutMs: 20_000 });
  const available = async (asset: string) =>
    (await s.call('live', 'GET', '/balances', { key: merchantKey })).json.data.find((b: { asset: string }) => b.asset === asset).available;

  it('a TRON payout is sent by TronGrid, paid at the depth, and the tokens arrive once', async () => {
    const hot = s.config.chains.find((c) => c.network === 'tron')!;
    expect(hot.payout).toBeTruthy();
    const to = tronAddressFromSeed('a merchant wallet on TRON');
    const before = await available('USDT');
    // The hot wallet: the address of the key, funded on the peer.
    const client = new TronPayoutClient(hot, TRON_KEY);
    tron.sending.fund({ contract: TRON_USDT, address: client.from, value: 100_000_000n });

    const r = await payout({ amount: '12.5', asset: 'USDT', network: 'TRON', address: to });
    expect(r.status, r.text).toBe(201);
    expect(Number(await available('USDT'))).toBeCloseTo(Number(before) - 12.5, 6);
    const sent = await waitStatus(r.json.id, 'sent');
    expect(sent.tx_hash).toMatch(/^[0-9a-f]{64}$/);
    tron.mine(TRON_DEPTH);
    const paid = await waitStatus(r.json.id, 'paid');
    expect(paid.tx_hash).toBe(sent.tx_hash);
    expect(tron.transfers.filter((t) => t.transaction_id === paid.tx_hash)).toHaveLength(1);
    expect(await client.tokenBalance(TRON_USDT, to)).toBe(12_500_000n);
    expect(await client.tokenBalance(TRON_USDT)).toBe(87_500_000n);
    tron.mine(2);
    await new Promise((res) => setTimeout(res, 400));
    expect(await client.tokenBalance(TRON_USDT, to)).toBe(12_500_000n);
    expect(Number(await available('USDT'))).toBeCloseTo(Number(before) - 12.5, 6);
  });

  it('a Solana payout is an SPL transfer, paid at the depth, and the tokens arrive once', async () => {
    const to = solanaKeyPair(33).address;
    solana.sending.mintTo(solHot.address, SOLANA_USDC_MINT, 50_000_000n);
    const before = await available('USDC');
    const r = await payout({ amount: '7.25', asset: 'USDC', network: 'SOLANA', address: to });
    expect(r.status, r.text).toBe(201);
    const sent = await waitStatus(r.json.id, 'sent');
    expect(sent.tx_hash.length).toBeGreaterThan(60);
    solana.advance(SOLANA_DEPTH + 1);
    const paid = await waitStatus(r.json.id, 'paid');
    expect(solana.transactions.filter((t) => t.signature === paid.tx_hash)).toHaveLength(1);
    const hot = s.config.chains.find((c) => c.network === 'solana')!;
    const client = new SolanaPayoutClient(hot, solHot.secret);
    solana.advance(1);
    expect(await client.tokenBalance(SOLANA_USDC_MINT, to)).toBe(7_250_000n);
    expect(await client.tokenBalance(SOLANA_USDC_MINT)).toBe(42_750_000n);
    expect(Number(await available('USDC'))).toBeCloseTo(Number(before) - 7.25, 6);
  });

  it('an address of another network is refused before anything is held', async () => {
    const before = await available('USDT');
    const evm = '0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf';
    for (const network of ['TRON', 'SOLANA']) {
      const r = await payout({ amount: '1', asset: 'USDT', network, address: evm });
      expect(r.status, r.text).toBe(400);
      expect(r.json.error).toMatchObject({ code: 'parameter_invalid', param: 'address' });
    }
    const wrong = await payout({ amount: '1', asset: 'USDT', network: 'TRON', address: solanaAddressFromSeed('x') });
    expect(wrong.status).toBe(400);
    expect(await available('USDT')).toBe(before);
  });
});
