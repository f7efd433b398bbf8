// The live on-chain wallet rail on EVM networks, against Anvil, a real Ethereum node, with
// 6-decimal ERC-20 tokens the test deploys: Base and Polygon are two Anvil chains (Base Sepolia's and
// Amoy's chain ids), each watched through a dead first RPC URL and Anvil second (failover at every call).
// Covered: an exact transfer seen at once (confirming) and paid at the depth after being read again; wrong
// amount, token and network kept as unmatched deposits; a duplicate payment; a reorganisation removing a
// transfer before its depth; a transfer mined while the server was stopped; a late payment after expiry
// never credited to another intent; `cowrie deposits list` and `claim`, exactly once under concurrency.
import { randomBytes } from 'node:crypto';
import { getAddress, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { startAnvil, type Anvil } from './helpers/anvil.js';
import { openCheckout, pay } from './helpers/checkout.js';
import { cliRunner } from './helpers/cli.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { jobRuns, waitFor, waitForStatus } from './helpers/wait.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';

const CONFIRMATIONS = 3;

describe(`live on-chain payments on EVM networks against Anvil (${ENGINE})`, () => {
  let base: Anvil;
  let polygon: Anvil;
  let tokens: { base: { USDT: Address; USDC: Address }; polygon: { USDT: Address; USDC: Address } };
  const payee = getAddress(`0x${randomBytes(20).toString('hex')}`);
  let db: TestDatabase;
  let s: TestServer;
  let env: Record<string, string>;
  const clock = new ManualClock(Date.now());
  const cli = cliRunner(() => db, []);
  /** The merchant of the first start (a restart makes another, unused). */
  let merchant: TestServer['merchant'];

  const start = async () => {
    s = await startTestServer({ databaseUrl: db.url, clock, noLiveRails: true, env });
  };

  beforeAll(async () => {
    [base, polygon] = await Promise.all([startAnvil({ chainId: 84532 }), startAnvil({ chainId: 80002 })]);
    tokens = {
      base: { USDT: await base.deployToken('USDT'), USDC: await base.deployToken('USDC') },
      polygon: { USDT: await polygon.deployToken('USDT'), USDC: await polygon.deployToken('USDC') },
    };
    for (const [chain, t] of [
      [base, tokens.base],
      [polygon, tokens.polygon],
    ] as const) {
      await chain.mint(t.USDT, chain.accounts[0]!, '1000000');
      await chain.mint(t.USDC, chain.accounts[0]!, '1000000');
    }
    const [dead] = await freePorts(1);
    env = {
      COWRIE_CHAIN_POLL_MS: '100',
      COWRIE_CHAIN_BASE_RPC_URLS: `http://127.0.0.1:${dead},${base.url}`,
      COWRIE_CHAIN_BASE_ADDRESS: payee,
      COWRIE_CHAIN_BASE_USDT: tokens.base.USDT,
      COWRIE_CHAIN_BASE_USDC: tokens.base.USDC,
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      COWRIE_CHAIN_POLYGON_RPC_URLS: polygon.url,
      COWRIE_CHAIN_POLYGON_ADDRESS: payee,
      COWRIE_CHAIN_POLYGON_USDT: tokens.polygon.USDT,
      COWRIE_CHAIN_POLYGON_USDC: tokens.polygon.USDC,
      COWRIE_CHAIN_POLYGON_CONFIRMATIONS: String(CONFIRMATIONS),
    };
    db = await createTestDatabase();
    await start();
    merchant = s.merchant;
  }, 60_000);

  afterAll(async () => {
    await s?.running.stop();
    await db?.drop();
    await Promise.all([base?.stop(), polygon?.stop()]);
  });

  const key = () => merchant.keys.live_secret!;
  const liveIntent = async (body: Record<string, unknown> = {}) => {
    const r = await s.call('live', 'POST', '/payment-intents', {
      key: key(),
      body: { amount: '25.00', currency: 'USD', settlement_currency: 'USDT', ...body },
    });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };
  const intentNow = async (id: string) => (await s.call('live', 'GET', `/payment-intents/${id}`, { key: key() })).json;
  const walletPay = async (pi: any, network: 'base' | 'polygon' = 'base') => {
    const page = await openCheckout(s, pi.checkout_url, 'live');
    const r = await pay(s, page, { method: 'external_wallet', network });
    expect(r.status, r.text).toBe(200);
    return r.json.next_action;
  };
  const waitStatus = (id: string, status: string) => waitForStatus(intentNow, id, status);
  const transferOf = (txHash: string) =>
    s.running.database.db.selectFrom('chain_transfers').selectAll().where('tx_hash', '=', txHash).executeTakeFirst();
  const waitTransfer = (txHash: string, done: (t: any) => boolean) =>
    waitFor(
      `transfer ${txHash}`,
      () => transferOf(txHash),
      (t) => !!t && done(t),
    );
  const eventTypes = async (id: string) =>
    (await s.running.database.db.selectFrom('events').select('type').where('payment_intent_id', '=', id).orderBy('seq').execute()).map(
      (e) => e.type,
    );

  it('the live checkout offers the configured networks, with the configured token and the chain id the node reports', async () => {
    const pi = await liveIntent();
    const page = await openCheckout(s, pi.checkout_url, 'live');
    expect(page.status).toBe(200);
    const options = [...page.html.matchAll(/<option value="([a-z]+)">/g)].map((m) => m[1]);
    expect(options).toEqual(['base', 'polygon']);
    const next = await walletPay(pi);
    expect(next).toMatchObject({ type: 'wallet_deposit', network: 'base', asset: 'USDT', address: payee, token: tokens.base.USDT });
    expect(next.amount).toMatch(/^\d+\.\d{6}$/);
    expect(next.amount).not.toBe(pi.pay_amount);
    const units = BigInt(Math.round(Number(next.amount) * 1e6)).toString();
    expect(next.payment_uri).toBe(`ethereum:${tokens.base.USDT}@84532/transfer?address=${payee}&uint256=${units}`);
    // TRON and Solana are not configured: refused with the network named.
    const refused = await pay(s, page, { method: 'external_wallet', network: 'tron' });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'payment_method_unavailable', param: 'network' });
  });

  it('an exact transfer moves the intent to confirming at once and pays it at the depth; the merchant sees the deposit', async () => {
    const pi = await liveIntent();
    const next = await walletPay(pi);
    const sent = await base.transfer(tokens.base.USDT, payee, next.amount);
    const confirming = await waitStatus(pi.id, 'confirming');
    expect(confirming).toMatchObject({ payment_method: 'external_wallet', provider_reference: sent.hash, amount_received: next.amount });
    // Not paid before the depth, however long the watcher looks.
    await jobRuns(s.running.database.db, 'chain-watch:base', 2);
    expect((await intentNow(pi.id)).status).toBe('confirming');
    await base.mine(CONFIRMATIONS - 1);
    const paid = await waitStatus(pi.id, 'paid');
    expect(paid.provider_reference).toBe(sent.hash);
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.confirming', 'payment_intent.paid']);
    const t = await transferOf(sent.hash);
    expect(t).toMatchObject({ state: 'confirmed', outcome: 'credited', network: 'base', asset: 'USDT', payment_intent_id: pi.id });
    expect(Number(t!.block_number)).toBe(sent.block);
    const deposits = await s.call('live', 'GET', '/wallet-deposits?status=credited', { key: key() });
    expect(deposits.status, deposits.text).toBe(200);
    const d = deposits.json.data.find((x: any) => x.tx_hash === sent.hash);
    expect(d).toMatchObject({
      status: 'credited',
      network: 'base',
      asset: 'USDT',
      amount: next.amount,
      payment_intent: pi.id,
      livemode: true,
    });
    expect(d.sender).toBe(base.accounts[0]);

    // A second exact transfer to the paid intent: a duplicate payment, credited to the merchant.
    const again = await base.transfer(tokens.base.USDT, payee, next.amount);
    await base.mine(CONFIRMATIONS - 1);
    await waitTransfer(again.hash, (x) => x.state === 'confirmed');
    expect(await transferOf(again.hash)).toMatchObject({ outcome: 'duplicate', payment_intent_id: pi.id });
    expect((await eventTypes(pi.id)).at(-1)).toBe('payment_intent.duplicate_payment');
    expect((await intentNow(pi.id)).provider_reference).toBe(sent.hash);

    // A refund of a wallet payment is a new on-chain send the operator makes: requested, with the return address.
    const refund = await s.call('live', 'POST', '/refunds', {
      key: key(),
      body: { payment_intent: pi.id, return_address: base.accounts[0] },
      headers: { 'idempotency-key': `refund-${pi.id}` },
    });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.json).toMatchObject({ status: 'requested', return_address: base.accounts[0], payment_intent: pi.id });
    expect((await intentNow(pi.id)).status).toBe('paid');
  });

  it('a wrong amount, a wrong token and a wrong network are unmatched deposits; the intent keeps waiting', async () => {
    const pi = await liveIntent({ amount: '31.00' });
    const next = await walletPay(pi);
    const wrongAmount = await base.transfer(tokens.base.USDT, payee, pi.pay_amount);
    const wrongToken = await base.transfer(tokens.base.USDC, payee, next.amount);
    const wrongNetwork = await polygon.transfer(tokens.polygon.USDT, payee, next.amount);
    await base.mine(CONFIRMATIONS);
    await polygon.mine(CONFIRMATIONS);
    for (const sent of [wrongAmount, wrongToken, wrongNetwork]) {
      const t = await waitTransfer(sent.hash, (x) => x.state === 'confirmed');
      expect(t).toMatchObject({ outcome: 'unmatched', reason: 'no_matching_payment', merchant_id: null, payment_intent_id: null });
    }
    expect(await transferOf(wrongToken.hash)).toMatchObject({ asset: 'USDC', network: 'base', amount: next.amount });
    expect(await transferOf(wrongNetwork.hash)).toMatchObject({ asset: 'USDT', network: 'polygon', amount: next.amount });
    expect((await intentNow(pi.id)).status).toBe('awaiting_payment');
    // The operator sees them, with hash, network, asset, amount and sender.
    const listed = await cli.ok<{ data: any[] }>('deposits', 'list', '--outcome', 'unmatched', '--json');
    const mine = listed.data.filter((d) => [wrongAmount.hash, wrongToken.hash, wrongNetwork.hash].includes(d.tx_hash));
    expect(mine).toHaveLength(3);
    for (const d of mine) {
      expect(Object.keys(d).sort()).toEqual(
        [
          'address',
          'amount',
          'asset',
          'block_number',
          'confirmed_at',
          'event_index',
          'first_seen_at',
          'id',
          'merchant',
          'network',
          'object',
          'outcome',
          'payment_intent',
          'payer_topup',
          'reason',
          'sender',
          'state',
          'tx_hash',
        ].sort(),
      );
      expect(d.sender).toBe(getAddress(base.accounts[0]!));
    }
    expect((await cli.ok<{ data: any[] }>('deposits', 'list', '--network', 'polygon', '--json')).data.map((d) => d.tx_hash)).toContain(
      wrongNetwork.hash,
    );
    expect((await cli.fails('deposits', 'list', '--network', 'bitcoin', '--json')).code).toBe('parameter_invalid');
  });

  it('a reorganisation that removes the transfer before its depth: never paid, the intent payable again; sent again, it pays', async () => {
    const pi = await liveIntent({ amount: '42.00' });
    const next = await walletPay(pi);
    const before = await base.snapshot();
    const sent = await base.transfer(tokens.base.USDT, payee, next.amount);
    await waitStatus(pi.id, 'confirming');
    // The chain reorganises: the block holding the transfer is replaced by empty ones, past the depth.
    await base.revert(before);
    await base.mine(CONFIRMATIONS + 1);
    const back = await waitStatus(pi.id, 'awaiting_payment');
    expect(back.provider_reference).toBeNull();
    expect(back.amount_received).toBe('0.000000');
    expect(back.last_payment_error).toMatchObject({ code: 'provider_error', payment_method: 'external_wallet' });
    expect(back.last_payment_error.message).toContain(sent.hash);
    expect(await transferOf(sent.hash)).toMatchObject({ state: 'removed', outcome: null });
    expect(await eventTypes(pi.id)).toEqual(['payment_intent.created', 'payment_intent.confirming', 'payment_intent.payment_failed']);
    // The same exact amount sent again pays (the allocation is still the intent's).
    expect((await walletPay(pi)).amount).toBe(next.amount);
    const resent = await base.transfer(tokens.base.USDT, payee, next.amount);
    await base.mine(CONFIRMATIONS - 1);
    const paid = await waitStatus(pi.id, 'paid');
    expect(paid).toMatchObject({ provider_reference: resent.hash, amount_received: next.amount, last_payment_error: null });
    expect(await transferOf(sent.hash)).toMatchObject({ state: 'removed' });
  });

  it('a transfer mined while the server is stopped is found after the restart, from the cursor kept in the database', async () => {
    const pi = await liveIntent({ amount: '53.00' });
    const next = await walletPay(pi);
    const cursorBefore = await s.running.database.db
      .selectFrom('chain_cursors')
      .selectAll()
      .where('network', '=', 'base')
      .executeTakeFirstOrThrow();
    await s.running.stop();
    const sent = await base.transfer(tokens.base.USDT, payee, next.amount);
    await base.mine(CONFIRMATIONS + 20);
    await start();
    const paid = await waitStatus(pi.id, 'paid');
    expect(paid.provider_reference).toBe(sent.hash);
    // The watcher read on from where it stopped (the transfer's block was after the stored cursor).
    expect(Number(cursorBefore.cursor)).toBeLessThan(sent.block);
    const cursorAfter = await s.running.database.db
      .selectFrom('chain_cursors')
      .selectAll()
      .where('network', '=', 'base')
      .executeTakeFirstOrThrow();
    expect(Number(cursorAfter.cursor)).toBe(await base.head());
  });

  it('a late payment after expiry is never credited to another intent: kept as unmatched for the merchant', async () => {
    const first = await liveIntent({ amount: '64.00' });
    const firstPay = await walletPay(first);
    clock.advance(2 * 3_600_000);
    expect((await intentNow(first.id)).status).toBe('expired');
    const second = await liveIntent({ amount: '64.00' });
    const secondPay = await walletPay(second);
    expect(secondPay.amount).not.toBe(firstPay.amount);
    const late = await base.transfer(tokens.base.USDT, payee, firstPay.amount);
    await base.mine(CONFIRMATIONS - 1);
    const t = await waitTransfer(late.hash, (x) => x.state === 'confirmed');
    expect(t).toMatchObject({ outcome: 'unmatched', reason: 'intent_not_payable', payment_intent_id: first.id });
    expect((await intentNow(second.id)).status).toBe('awaiting_payment');
    expect((await intentNow(first.id)).status).toBe('expired');
    const deposits = await s.call('live', 'GET', '/wallet-deposits?status=unmatched', { key: key() });
    expect(deposits.json.data.find((d: any) => d.tx_hash === late.hash)).toMatchObject({
      reason: 'intent_not_payable',
      payment_intent: first.id,
      amount: firstPay.amount,
    });
  });

  it('cowrie deposits claim credits an unmatched deposit to an intent that can still be paid, exactly once under concurrency', async () => {
    const pi = await liveIntent({ amount: '75.00' });
    await walletPay(pi);
    // The customer sent the amount without the tag: not matched automatically.
    const sent = await base.transfer(tokens.base.USDT, payee, pi.pay_amount);
    await waitTransfer(sent.hash, () => true);
    expect((await cli.fails('deposits', 'claim', sent.hash, '--intent', pi.id, '--json')).code).toBe('deposit_not_confirmed');
    await base.mine(CONFIRMATIONS);
    await waitTransfer(sent.hash, (x) => x.state === 'confirmed');
    expect((await cli.fails('deposits', 'claim', `0x${'ab'.repeat(32)}`, '--intent', pi.id, '--json')).code).toBe('resource_missing');
    expect((await cli.fails('deposits', 'claim', sent.hash, '--intent', 'pi_nope', '--json')).code).toBe('resource_missing');
    const sandboxIntent = await s.call('test', 'POST', '/payment-intents', {
      key: merchant.keys.test_secret,
      body: { amount: '75.00', currency: 'USD' },
    });
    expect((await cli.fails('deposits', 'claim', sent.hash, '--intent', sandboxIntent.json.id, '--json')).code).toBe('intent_not_payable');

    const results = await Promise.all(
      Array.from({ length: 6 }, () => cli.cli('deposits', 'claim', sent.hash, '--intent', pi.id, '--json')),
    );
    const ok = results.filter((r) => r.code === 0);
    expect(ok, JSON.stringify(results)).toHaveLength(1);
    for (const r of results.filter((x) => x.code !== 0)) {
      expect(['deposit_already_credited', 'intent_not_payable'], r.out).toContain(JSON.parse(r.out).error.code);
    }
    expect(JSON.parse(ok[0]!.out).deposit).toMatchObject({ outcome: 'claimed', payment_intent: pi.id, merchant: merchant.merchant.id });
    const paid = await intentNow(pi.id);
    expect(paid).toMatchObject({ status: 'paid', provider_reference: sent.hash, amount_received: pi.pay_amount });
    expect((await eventTypes(pi.id)).filter((t) => t === 'payment_intent.paid')).toHaveLength(1);
    const credited = await s.call('live', 'GET', '/wallet-deposits?status=credited', { key: key() });
    expect(credited.json.data.filter((d: any) => d.tx_hash === sent.hash)).toHaveLength(1);
    // Claimed once, never again, not even to another intent.
    const other = await liveIntent({ amount: '75.00' });
    expect((await cli.fails('deposits', 'claim', sent.hash, '--intent', other.id, '--json')).code).toBe('deposit_already_credited');
  });
});

// Two real server processes on one PostgreSQL database watch one chain: one holds the network's lease and
// reads the chain; when it dies, the other takes over from the cursor in the database. Every payment is
// paid once. SQLite serves one process, so this runs on PostgreSQL only.
describe.skipIf(ENGINE !== 'postgres')('two processes, one chain watcher (PostgreSQL)', () => {
  let chain: Anvil;
  let usdt: Address;
  let db: TestDatabase;
  let check: Database;
  const procs: ServerProcess[] = [];
  let liveKey = '';
  const payee = getAddress(`0x${randomBytes(20).toString('hex')}`);

  beforeAll(async () => {
    chain = await startAnvil();
    usdt = await chain.deployToken('USDT');
    await chain.mint(usdt, chain.accounts[0]!, '1000000');
    db = await createTestDatabase();
    const env = {
      COWRIE_CHAIN_POLL_MS: '100',
      COWRIE_CHAIN_BASE_RPC_URLS: chain.url,
      COWRIE_CHAIN_BASE_ADDRESS: payee,
      COWRIE_CHAIN_BASE_USDT: usdt,
      COWRIE_CHAIN_BASE_USDC: getAddress(`0x${randomBytes(20).toString('hex')}`),
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
    };
    const first = await spawnServer(db.url, env);
    procs.push(first);
    await first.ready;
    const second = await spawnServer(db.url, env);
    procs.push(second);
    await second.ready;
    check = openDatabase(db.url);
    liveKey = (await createMerchant(check.db, systemClock, { name: 'Chain shop', verified: true })).keys.live_secret!;
  }, 90_000);

  afterAll(async () => {
    for (const p of procs) await killHard(p);
    await check?.close();
    await db?.drop();
    await chain?.stop();
  });

  /** An intent created on one process, its wallet amount allocated on the other. */
  async function payable(i: number) {
    const created = await api(procs[i % 2]!.livePort, liveKey, 'POST', '/payment-intents', {
      amount: '12.00',
      currency: 'USD',
      settlement_currency: 'USDT',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const port = procs[(i + 1) % 2]!.livePort;
    const server = { url: (_env: string, path = '') => `http://127.0.0.1:${port}${path}` } as unknown as TestServer;
    const page = await openCheckout(server, created.json.checkout_url, 'live');
    const r = await pay(server, page, { method: 'external_wallet', network: 'base' });
    expect(r.status, r.text).toBe(200);
    return { id: created.json.id as string, amount: r.json.next_action.amount as string };
  }
  const statusOf = async (id: string) =>
    (await check.db.selectFrom('payment_intents').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const seenBy = (p: ServerProcess) =>
    p
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"chain transfer seen"')).length;

  it('one process watches the chain; when it dies the other takes over; every payment is paid once', async () => {
    const first = await Promise.all([0, 1, 2, 3].map((i) => payable(i)));
    for (const p of first) await chain.transfer(usdt, payee, p.amount);
    await chain.mine(CONFIRMATIONS);
    for (const p of first)
      await waitFor(
        `${p.id} paid`,
        () => statusOf(p.id),
        (st) => st === 'paid',
      );
    const lease = await check.db.selectFrom('leases').selectAll().where('name', '=', 'chain-watch:base').executeTakeFirstOrThrow();
    const counts = procs.map(seenBy);
    // One watcher saw every transfer; the other none.
    expect(counts.sort()).toEqual([0, 4]);
    const holder = procs.find((p) => seenBy(p) === 4)!;
    expect(lease.holder).toContain(`:${holder.child.pid}:`);

    // The watcher dies mid-work: the other process takes its lease over when it runs out and goes on.
    await killHard(holder);
    const other = procs.find((p) => p !== holder)!;
    const second = await Promise.all(
      [0, 1].map(async () => {
        const created = await api(other.livePort, liveKey, 'POST', '/payment-intents', {
          amount: '13.00',
          currency: 'USD',
          settlement_currency: 'USDT',
        });
        const server = { url: (_env: string, path = '') => `http://127.0.0.1:${other.livePort}${path}` } as unknown as TestServer;
        const page = await openCheckout(server, created.json.checkout_url, 'live');
        const r = await pay(server, page, { method: 'external_wallet', network: 'base' });
        return { id: created.json.id as string, amount: r.json.next_action.amount as string };
      }),
    );
    for (const p of second) await chain.transfer(usdt, payee, p.amount);
    await chain.mine(CONFIRMATIONS);
    for (const p of second)
      await waitFor(
        `${p.id} paid`,
        () => statusOf(p.id),
        (st) => st === 'paid',
        { timeoutMs: 20_000 },
      );
    expect(seenBy(other)).toBe(2);
    const paidEvents = await check.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('type', '=', 'payment_intent.paid')
      .where(
        'payment_intent_id',
        'in',
        [...first, ...second].map((p) => p.id),
      )
      .executeTakeFirstOrThrow();
    expect(Number(paidEvents.n)).toBe(6);
    const transfers = await check.db.selectFrom('chain_transfers').select(['outcome']).execute();
    expect(transfers.map((t) => t.outcome)).toEqual(Array(6).fill('credited'));
  }, 60_000);
});
