// The live on-chain wallet rail on TRON and Solana, behind the same watcher as the EVM networks,
// against protocol-faithful local peers (peers/tron, peers/solana): a TronGrid-compatible HTTP API and a
// Solana JSON-RPC node. Each network is configured with a dead first RPC URL (failover) and its documented
// default depth (TRON 19 blocks, Solana 32 slots, that is finalized). Covered on each: an exact transfer
// confirming at once and paid at the depth; a wrong amount unmatched; a transfer removed before its depth
// never paying.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckout, pay } from './helpers/checkout.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { jobRuns, waitFor, waitForStatus } from './helpers/wait.js';
import { startSolanaPeer, solanaAddressFromSeed, SOLANA_USDC_MINT, SOLANA_USDT_MINT, type SolanaPeer } from '../peers/solana/peer.js';
import { startTronPeer, tronAddressFromSeed, TRON_USDC, TRON_USDT, type TronPeer } from '../peers/tron/peer.js';

const units = (amount: string) => BigInt(Math.round(Number(amount) * 1e6)).toString();

describe(`live on-chain payments on TRON and Solana against their local peers (${ENGINE})`, () => {
  let tron: TronPeer;
  let solana: SolanaPeer;
  let s: TestServer;
  const tronPayee = tronAddressFromSeed('cowrie tron payee');
  const tronPayer = tronAddressFromSeed('a tron customer');
  const solPayee = solanaAddressFromSeed('cowrie solana payee');
  const solPayer = solanaAddressFromSeed('a solana customer');

  beforeAll(async () => {
    [tron, solana] = await Promise.all([startTronPeer(), startSolanaPeer()]);
    const [dead] = await freePorts(1);
    s = await startTestServer({
      noLiveRails: true,
      env: {
        COWRIE_CHAIN_POLL_MS: '100',
        COWRIE_CHAIN_TRON_RPC_URLS: `http://127.0.0.1:${dead},${tron.url}`,
        COWRIE_CHAIN_TRON_ADDRESS: tronPayee,
        COWRIE_CHAIN_SOLANA_RPC_URLS: `http://127.0.0.1:${dead},${solana.url}`,
        COWRIE_CHAIN_SOLANA_ADDRESS: solPayee,
      },
    });
  }, 30_000);

  afterAll(async () => {
    await s?.stop();
    await Promise.all([tron?.close(), solana?.close()]);
  });

  const key = () => s.merchant.keys.live_secret!;
  const liveIntent = async (amount: string, settlement = 'USDT') => {
    const r = await s.call('live', 'POST', '/payment-intents', {
      key: key(),
      body: { amount, currency: 'USD', settlement_currency: settlement },
    });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };
  const intentNow = async (id: string) => (await s.call('live', 'GET', `/payment-intents/${id}`, { key: key() })).json;
  const waitStatus = (id: string, status: string) => waitForStatus(intentNow, id, status);
  const walletPay = async (pi: any, network: 'tron' | 'solana') => {
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect([...page.html.matchAll(/<option value="([a-z]+)">/g)].map((m) => m[1])).toEqual(['tron', 'solana']);
    const r = await pay(s, page, { method: 'external_wallet', network });
    expect(r.status, r.text).toBe(200);
    return r.json.next_action;
  };
  const transferOf = (txHash: string) =>
    s.running.database.db.selectFrom('chain_transfers').selectAll().where('tx_hash', '=', txHash).executeTakeFirst();
  /** The network's watcher has looked at the chain twice more, start to end. */
  const watched = (network: 'tron' | 'solana') => jobRuns(s.running.database.db, `chain-watch:${network}`, 2);
  const waitTransfer = (txHash: string, done: (t: any) => boolean) =>
    waitFor(
      `transfer ${txHash}`,
      () => transferOf(txHash),
      (t) => !!t && done(t),
    );

  describe('TRON (TronGrid HTTP API)', () => {
    it('an exact TRC-20 transfer confirms at once and pays at 19 blocks; the wallet request names the token', async () => {
      const pi = await liveIntent('20.00');
      const next = await walletPay(pi, 'tron');
      expect(next).toMatchObject({ network: 'tron', asset: 'USDT', address: tronPayee, token: TRON_USDT });
      expect(next.payment_uri).toBe(`tron:${tronPayee}?token=${TRON_USDT}&amount=${Number(next.amount)}`);
      const sent = tron.transfer({ contract: TRON_USDT, from: tronPayer, to: tronPayee, value: units(next.amount) });
      expect(await waitStatus(pi.id, 'confirming')).toMatchObject({ provider_reference: sent.transaction_id });
      tron.mine(17);
      await watched('tron');
      expect((await intentNow(pi.id)).status).toBe('confirming');
      tron.mine(1);
      await waitStatus(pi.id, 'paid');
      expect(await transferOf(sent.transaction_id)).toMatchObject({
        state: 'confirmed',
        outcome: 'credited',
        sender: tronPayer,
        block_number: sent.blockNumber,
        amount: next.amount,
      });
      // What the watcher asked TronGrid: only transfers to the address, one token contract at a time, oldest first.
      const listing = tron.requests.find((r) => r.path.startsWith(`/v1/accounts/${tronPayee}/transactions/trc20`));
      expect(listing?.query).toMatchObject({ only_to: 'true', order_by: 'block_timestamp,asc' });
      expect(tron.requests.some((r) => r.path === '/wallet/gettransactioninfobyid' && (r.body as any)?.value === sent.transaction_id)).toBe(
        true,
      );
    });

    it('a wrong amount or token is unmatched; a transfer removed before its depth never pays', async () => {
      const pi = await liveIntent('21.00');
      const next = await walletPay(pi, 'tron');
      const wrong = tron.transfer({ contract: TRON_USDT, from: tronPayer, to: tronPayee, value: units(pi.pay_amount) });
      const wrongToken = tron.transfer({ contract: TRON_USDC, from: tronPayer, to: tronPayee, value: units(next.amount) });
      tron.mine(20);
      for (const t of [wrong, wrongToken]) {
        expect(await waitTransfer(t.transaction_id, (x) => x.state === 'confirmed')).toMatchObject({
          outcome: 'unmatched',
          reason: 'no_matching_payment',
        });
      }
      expect((await transferOf(wrongToken.transaction_id))!.asset).toBe('USDC');
      const sent = tron.transfer({ contract: TRON_USDT, from: tronPayer, to: tronPayee, value: units(next.amount) });
      await waitStatus(pi.id, 'confirming');
      tron.drop(sent.transaction_id);
      const back = await waitStatus(pi.id, 'awaiting_payment');
      expect(back.last_payment_error.message).toContain(sent.transaction_id);
      tron.mine(25);
      await watched('tron');
      expect((await intentNow(pi.id)).status).toBe('awaiting_payment');
      expect(await transferOf(sent.transaction_id)).toMatchObject({ state: 'removed' });
    });
  });

  describe('Solana (JSON-RPC, SPL token accounts)', () => {
    it('an exact SPL transfer to the address’s token account confirms at once and pays once finalized', async () => {
      const pi = await liveIntent('30.00', 'USDC');
      const next = await walletPay(pi, 'solana');
      expect(next).toMatchObject({ network: 'solana', asset: 'USDC', address: solPayee, token: SOLANA_USDC_MINT });
      expect(next.payment_uri).toBe(`solana:${solPayee}?amount=${Number(next.amount)}&spl-token=${SOLANA_USDC_MINT}`);
      const sent = solana.transfer({ mint: SOLANA_USDC_MINT, fromOwner: solPayer, toOwner: solPayee, amount: units(next.amount) });
      solana.advance(1);
      expect(await waitStatus(pi.id, 'confirming')).toMatchObject({ provider_reference: sent.signature });
      solana.advance(20);
      await watched('solana');
      expect((await intentNow(pi.id)).status).toBe('confirming');
      solana.advance(12);
      await waitStatus(pi.id, 'paid');
      expect(await transferOf(sent.signature)).toMatchObject({ state: 'confirmed', outcome: 'credited', sender: solPayer, asset: 'USDC' });
      const sigCall = solana.requests.find((r) => (r.body as any)?.method === 'getSignaturesForAddress');
      expect((sigCall!.body as any).params[1]).toMatchObject({ commitment: 'confirmed' });
    });

    it('a wrong amount or mint is unmatched; a transaction dropped with its fork never pays', async () => {
      const pi = await liveIntent('31.00');
      const next = await walletPay(pi, 'solana');
      const wrong = solana.transfer({ mint: SOLANA_USDT_MINT, fromOwner: solPayer, toOwner: solPayee, amount: units(pi.pay_amount) });
      const wrongMint = solana.transfer({ mint: SOLANA_USDC_MINT, fromOwner: solPayer, toOwner: solPayee, amount: units(next.amount) });
      solana.advance(40);
      for (const t of [wrong, wrongMint]) {
        expect(await waitTransfer(t.signature, (x) => x.state === 'confirmed')).toMatchObject({
          outcome: 'unmatched',
          reason: 'no_matching_payment',
        });
      }
      const sent = solana.transfer({ mint: SOLANA_USDT_MINT, fromOwner: solPayer, toOwner: solPayee, amount: units(next.amount) });
      solana.advance(1);
      await waitStatus(pi.id, 'confirming');
      solana.drop(sent.signature);
      const back = await waitStatus(pi.id, 'awaiting_payment');
      expect(back.last_payment_error.message).toContain(sent.signature);
      solana.advance(40);
      await watched('solana');
      expect((await intentNow(pi.id)).status).toBe('awaiting_payment');
    });
  });
});
