// Live payouts on an EVM network against Anvil, a real Ethereum node, with a 6-decimal ERC-20 the test
// deploys and a hot wallet of its own (a fresh key, given ETH and tokens): a payout arrives exactly once
// (the token balance read from the chain), paid at the confirmation depth; one above the auto-approval
// threshold waits for the operator; a transfer the token reverts fails and releases the hold; a transfer
// stuck below the base fee is replaced at the same nonce after COWRIE_CHAIN_BASE_REPLACE_AFTER_BLOCKS and
// the replacement is the one paid; an approved refund of a wallet payment is sent on-chain to its return
// address by the same sender and succeeds at the depth; the payout key never appears in logs, errors or the
// configuration.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { getAddress, parseEther, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startAnvil, testToken, type Anvil } from './helpers/anvil.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { applyLive, expectLedgerInvariant, newIntent } from './helpers/ledger-invariant.js';
import { waitFor, waitForStatus } from './helpers/wait.js';
import { openCheckout, pay } from './helpers/checkout.js';
import { consoleHttp } from './helpers/console.js';

const CONFIRMATIONS = 2;

describe(`live payouts on an EVM network against Anvil (${ENGINE})`, () => {
  let chain: Anvil;
  let usdt: Address;
  let usdc: Address;
  let s: TestServer;
  let env: Record<string, string>;
  const keyHex = randomBytes(32).toString('hex');
  const hot = privateKeyToAccount(`0x${keyHex}`).address;
  let merchantKey: string;
  let merchantId: string;

  beforeAll(async () => {
    chain = await startAnvil({ chainId: 84532 });
    usdt = await chain.deployToken('USDT');
    usdc = await chain.deployToken('USDC');
    await chain.test.setBalance({ address: hot, value: parseEther('10') });
    await chain.mint(usdt, hot, '1000');
    env = {
      COWRIE_CHAIN_POLL_MS: '100',
      COWRIE_CHAIN_BASE_RPC_URLS: chain.url,
      COWRIE_CHAIN_BASE_ADDRESS: chain.accounts[5]!,
      COWRIE_CHAIN_BASE_USDT: usdt,
      COWRIE_CHAIN_BASE_USDC: usdc,
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      COWRIE_CHAIN_BASE_PAYOUT_KEY: keyHex,
      COWRIE_CHAIN_BASE_REPLACE_AFTER_BLOCKS: '3',
      COWRIE_PAYOUT_AUTO_APPROVE: '50',
      COWRIE_NEW_MERCHANT_DAYS: '0',
      COWRIE_JOB_INTERVAL_MS: '60000',
    };
    s = await startTestServer({ env, noLiveRails: true });
    const m = await s.newMerchant({ name: 'Payout merchant', verified: true });
    merchantKey = m.keys.live_secret!;
    merchantId = m.merchant.id;
    // Live balances: USDT and USDC payments, as a live rail reports them.
    for (const asset of ['USDT', 'USDT', 'USDT', 'USDC']) {
      const pi = await newIntent(s, { amount: '100.00', currency: 'USD', settlement_currency: asset }, 'live', merchantKey);
      await applyLive(s, pi.id, 'external_wallet', 'success', m.merchant.id);
    }
  }, 90_000);
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => {
    await s?.stop();
    await chain?.stop();
  });

  const token = testToken();
  const balanceOf = async (tokenAddress: Address, owner: Address) =>
    (await chain.public.readContract({ address: tokenAddress, abi: token.abi, functionName: 'balanceOf', args: [owner] })) as bigint;
  const fresh = () => getAddress(`0x${randomBytes(20).toString('hex')}`);
  const payout = (body: object) =>
    s.call('live', 'POST', '/payouts', { key: merchantKey, body: { asset: 'USDT', network: 'BASE', ...body } });
  const get = async (id: string) => (await s.call('live', 'GET', `/payouts/${id}`, { key: merchantKey })).json;
  const waitStatus = (id: string, status: string) => waitForStatus(get, id, status, { timeoutMs: 20_000 });
  const txsOf = (id: string) =>
    s.running.database.db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).orderBy('attempt').execute();
  const available = async (asset = 'USDT') =>
    (await s.call('live', 'GET', '/balances', { key: merchantKey })).json.data.find((b: any) => b.asset === asset).available;

  it('an auto-approved payout is sent, paid at the confirmation depth, and arrives exactly once', async () => {
    const to = fresh();
    const hotBefore = await balanceOf(usdt, hot);
    const r = await payout({ amount: '12.345678', address: to });
    expect(r.status, r.text).toBe(201);
    expect(['requested', 'sent']).toContain(r.json.status);
    const sent = await waitStatus(r.json.id, 'sent');
    expect(sent.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The one transfer is mined at once (automine); not paid before the depth.
    await waitFor(
      'mined',
      () => balanceOf(usdt, to),
      (b) => b === parseUnits('12.345678', 6),
    );
    await new Promise((res) => setTimeout(res, 400));
    expect((await get(r.json.id)).status).toBe('sent');
    await chain.mine(CONFIRMATIONS);
    const paid = await waitStatus(r.json.id, 'paid');
    expect(paid.tx_hash).toBe(sent.tx_hash);
    const receipt = await chain.public.getTransactionReceipt({ hash: paid.tx_hash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(hot.toLowerCase());
    // Some more blocks and runs: nothing more is sent.
    await chain.mine(3);
    await new Promise((res) => setTimeout(res, 500));
    expect(await balanceOf(usdt, to)).toBe(parseUnits('12.345678', 6));
    expect(hotBefore - (await balanceOf(usdt, hot))).toBe(parseUnits('12.345678', 6));
    const txs = await txsOf(r.json.id);
    expect(txs.map((t) => t.state)).toEqual(['landed']);
    const types = (
      await s.running.database.db.selectFrom('events').select('type').where('type', 'like', 'payout.%').orderBy('seq').execute()
    ).map((e) => e.type);
    expect(types.filter((t) => t !== 'payout.created')).toEqual(expect.arrayContaining(['payout.sent', 'payout.paid']));
  });

  it('above COWRIE_PAYOUT_AUTO_APPROVE a payout waits requested until the operator approves it', async () => {
    const to = fresh();
    const r = await payout({ amount: '60', address: to });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toBe('requested');
    await new Promise((res) => setTimeout(res, 500));
    expect(await txsOf(r.json.id)).toHaveLength(0);
    expect((await get(r.json.id)).status).toBe('requested');
    await s.running.services.payouts.approve(r.json.id);
    await waitStatus(r.json.id, 'sent');
    await chain.mine(CONFIRMATIONS);
    await waitStatus(r.json.id, 'paid');
    expect(await balanceOf(usdt, to)).toBe(parseUnits('60', 6));
  });

  it('a transfer the token reverts (the hot wallet holds no USDC) fails with the reason and releases the hold', async () => {
    const before = await available('USDC');
    const r = await payout({ amount: '5', asset: 'USDC', address: fresh() });
    expect(r.status, r.text).toBe(201);
    expect(Number(await available('USDC'))).toBeCloseTo(Number(before) - 5, 6);
    await waitFor(
      'mined',
      () => txsOf(r.json.id),
      (t) => t.length === 1 && t[0]!.state !== 'signed',
    );
    await chain.mine(CONFIRMATIONS);
    const failed = await waitStatus(r.json.id, 'failed');
    expect(failed.failure_reason).toContain('reverted');
    expect(failed.tx_hash).toBe((await txsOf(r.json.id))[0]!.tx_hash);
    expect(await available('USDC')).toBe(before);
  });

  it('a transfer stuck below the base fee is replaced at the same nonce after REPLACE_AFTER_BLOCKS; the replacement is paid, once', async () => {
    const to = fresh();
    await chain.test.setAutomine(false);
    try {
      const r = await payout({ amount: '7', address: to });
      expect(r.status, r.text).toBe(201);
      await waitStatus(r.json.id, 'sent');
      const [first] = await txsOf(r.json.id);
      // Blocks whose base fee is far above what the first transfer offers: it cannot be mined.
      await chain.test.request({ method: 'anvil_setNextBlockBaseFeePerGas' as never, params: [`0x${(10n ** 12n).toString(16)}`] as never });
      await chain.mine(3);
      const both = await waitFor(
        'the replacement',
        () => txsOf(r.json.id),
        (t) => t.length === 2,
        { timeoutMs: 20_000 },
      );
      expect(both[1]!.nonce).toBe(first!.nonce);
      expect(both[1]!.tx_hash).not.toBe(first!.tx_hash);
      expect(await balanceOf(usdt, to)).toBe(0n);
      await chain.mine(1);
      await waitFor(
        'mined',
        () => balanceOf(usdt, to),
        (b) => b > 0n,
      );
      await chain.mine(CONFIRMATIONS);
      const paid = await waitStatus(r.json.id, 'paid');
      expect(paid.tx_hash).toBe(both[1]!.tx_hash);
      const states = (await txsOf(r.json.id)).map((t) => t.state);
      expect(states).toEqual(['dropped', 'landed']);
      expect(await balanceOf(usdt, to)).toBe(parseUnits('7', 6));
    } finally {
      await chain.test.setAutomine(true);
    }
  });

  it('an approved refund of a live wallet payment is an on-chain send to the return address, succeeded at the depth', async () => {
    await chain.mint(usdt, chain.accounts[0]!, '100');
    const pi = (
      await s.call('live', 'POST', '/payment-intents', {
        key: merchantKey,
        body: { amount: '20.00', currency: 'USD', settlement_currency: 'USDT' },
      })
    ).json;
    const page = await openCheckout(s, pi.checkout_url, 'live');
    const next = (await pay(s, page, { method: 'external_wallet', network: 'base' })).json.next_action;
    await chain.transfer(usdt, chain.accounts[5]!, next.amount);
    const intentNow = async () => (await s.call('live', 'GET', `/payment-intents/${pi.id}`, { key: merchantKey })).json;
    await waitFor('confirming', intentNow, (i) => i.status === 'confirming', { timeoutMs: 20_000 });
    await chain.mine(CONFIRMATIONS);
    const paidIntent = await waitFor('paid', intentNow, (i) => i.status === 'paid', { timeoutMs: 20_000 });
    const back = fresh();
    const refund = await s.call('live', 'POST', '/refunds', { key: merchantKey, body: { payment_intent: pi.id, return_address: back } });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.json.status).toBe('requested');
    const approved = await s.running.services.refundDecisions.approve(refund.json.id);
    expect(approved.status).toBe('pending');
    expect(approved.rail_reference).toMatch(/^po_/);
    await waitFor(
      'sent back',
      () => balanceOf(usdt, back),
      (b) => b > 0n,
      { timeoutMs: 20_000 },
    );
    expect(await balanceOf(usdt, back)).toBe(parseUnits(paidIntent.pay_amount, 6));
    await chain.mine(CONFIRMATIONS);
    const getRefund = async () => (await s.call('live', 'GET', `/refunds/${refund.json.id}`, { key: merchantKey })).json;
    const done = await waitFor('refund succeeded', getRefund, (r) => r.status === 'succeeded', { timeoutMs: 20_000 });
    expect(done.provider_reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await intentNow()).status).toBe('refunded');
    // The send is no payout of the merchant's: not listed.
    const listed = (await s.call('live', 'GET', '/payouts?limit=100', { key: merchantKey })).json.data;
    expect(listed.map((p: any) => p.id)).not.toContain(approved.rail_reference);
    expect(await balanceOf(usdt, back)).toBe(parseUnits(paidIntent.pay_amount, 6));
  });

  const { request, signedInUser } = consoleHttp(() => s);

  it('the payout key never appears in the console', async () => {
    const owner = await signedInUser(merchantId, 'owner@evm-payouts.example', 'owner');
    for (const path of ['/console?env=live', '/console/payouts?env=live', '/console/developers?env=live']) {
      const page = await request('GET', path, { cookie: owner.cookie });
      expect(page.status, path).toBe(200);
      expect(page.html).not.toContain(keyHex);
      expect(page.html.toLowerCase()).not.toContain(keyHex.slice(0, 16));
    }
  });

  it('the payout key never appears in the logs, the configuration or an error about it', () => {
    const config = loadConfig({ ...env, COWRIE_DATABASE_URL: 'sqlite:/tmp/x.db' });
    expect(JSON.stringify(config)).not.toContain(keyHex);
    expect(inspect(config, { depth: 10 })).not.toContain(keyHex);
    expect(JSON.stringify(s.config)).not.toContain(keyHex);
    expect(JSON.stringify(s.logs)).not.toContain(keyHex);
    expect(JSON.stringify(s.logs)).not.toContain(keyHex.slice(0, 16));
    const bad = `${keyHex.slice(0, 60)}zz`;
    expect(() => loadConfig({ ...env, COWRIE_CHAIN_BASE_PAYOUT_KEY: bad })).toThrow(
      /COWRIE_CHAIN_BASE_PAYOUT_KEY: must be a hex private key/,
    );
    try {
      loadConfig({ ...env, COWRIE_CHAIN_BASE_PAYOUT_KEY: bad });
    } catch (err) {
      expect(String((err as Error).message)).not.toContain(bad.slice(0, 20));
    }
    expect(() => loadConfig({ ...env, COWRIE_CHAIN_BASE_PAYOUT_KEY_FILE: '/nonexistent' })).toThrow(/not both/);
    const { COWRIE_CHAIN_BASE_PAYOUT_KEY: _k, ...noKey } = env;
    expect(() => loadConfig({ ...noKey, COWRIE_CHAIN_BASE_PAYOUT_KEY_FILE: '/nonexistent/key' })).toThrow(
      /cannot read \/nonexistent\/key \(ENOENT\)/,
    );
  });
});
