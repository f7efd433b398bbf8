// Live EVM payouts across kill -9 (both engines): a real server process whose payout sender kills its own
// process at one step (COWRIE_TEST_PAYOUT_HALT, read only by tests): after the transfer was signed and
// recorded but before it was broadcast, after the broadcast but before the payout was marked sent, and
// while it was confirming. Restarted without the halt, the sender looks the recorded transfer up before it
// signs anything, and the payout is paid exactly once: one transfer on the chain, the address holding
// exactly the amount, one payout.sent and one payout.paid. And on PostgreSQL, payouts asked for at once
// through two server processes never overdraw: exactly the ones that fit are made.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { getAddress, parseEther, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { createKey } from '../src/modules/merchants/index.js';
import { ACCOUNTS, transfer } from '../src/modules/ledger/index.js';
import { systemClock } from '../src/shared/clock.js';
import { startAnvil, testToken, type Anvil } from './helpers/anvil.js';
import { ENGINE, createTestDatabase, type TestDatabase } from './helpers/harness.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

const CONFIRMATIONS = 2;

describe(`live payouts across kill -9 (${ENGINE})`, () => {
  let chain: Anvil;
  let usdt: Address;
  let db: TestDatabase;
  let check: Database;
  let env: Record<string, string>;
  let merchantId: string;
  let liveKey: string;
  const procs: ServerProcess[] = [];
  const keyHex = randomBytes(32).toString('hex');
  const hot = privateKeyToAccount(`0x${keyHex}`).address;

  const start = async (extra: Record<string, string> = {}) => {
    const server = await spawnServer(db.url, { ...env, ...extra });
    procs.push(server);
    await server.ready;
    return server;
  };
  /** Money the merchant can pay out, as a settled payment would leave it. */
  const fund = (environment: 'live' | 'test', amount: string) =>
    transfer(
      check.db,
      { merchantId, environment, asset: 'USDT', kind: 'payment', at: Date.now() },
      ACCOUNTS.world,
      ACCOUNTS.available,
      new Decimal(amount),
    );

  beforeAll(async () => {
    chain = await startAnvil({ chainId: 84532 });
    usdt = await chain.deployToken('USDT');
    await chain.test.setBalance({ address: hot, value: parseEther('10') });
    await chain.mint(usdt, hot, '1000');
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    env = {
      COWRIE_LIVE_PORT: String(live),
      COWRIE_SANDBOX_PORT: String(sandbox),
      COWRIE_CHAIN_POLL_MS: '100',
      COWRIE_CHAIN_BASE_RPC_URLS: chain.url,
      COWRIE_CHAIN_BASE_ADDRESS: chain.accounts[5]!,
      COWRIE_CHAIN_BASE_USDT: usdt,
      COWRIE_CHAIN_BASE_USDC: await chain.deployToken('USDC'),
      COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      COWRIE_CHAIN_BASE_PAYOUT_KEY: keyHex,
      COWRIE_PAYOUT_AUTO_APPROVE: '1000',
    };
    db = await createTestDatabase();
    const first = await start();
    check = openDatabase(db.url);
    const demo = await api(first.sandboxPort, first.demoKey()!, 'GET', '/auth/verify');
    merchantId = demo.json.merchant_id;
    await check.db.updateTable('merchants').set({ kyb_status: 'verified' }).where('id', '=', merchantId).execute();
    liveKey = (await createKey(check.db, systemClock, { merchantId, environment: 'live', type: 'secret' })).key;
    await fund('live', '500');
    await killHard(first);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await db?.drop();
    await chain?.stop();
  });

  const token = testToken();
  const balanceOf = async (owner: Address) =>
    (await chain.public.readContract({ address: usdt, abi: token.abi, functionName: 'balanceOf', args: [owner] })) as bigint;
  const payoutRow = (id: string) => check.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txsOf = (id: string) => check.db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).execute();
  const eventsOf = async (id: string) =>
    (await check.db.selectFrom('events').select(['type', 'payload']).where('type', 'like', 'payout.%').execute())
      .filter((e) => JSON.parse(e.payload).data.id === id)
      .map((e) => e.type);

  for (const step of ['recorded', 'broadcast', 'confirming'] as const) {
    it(`killed at "${step}": after a restart the payout is paid exactly once`, async () => {
      const to = getAddress(`0x${randomBytes(20).toString('hex')}`);
      const halting = await start({ COWRIE_TEST_PAYOUT_HALT: step });
      const r = await api(halting.livePort, liveKey, 'POST', '/payouts', { amount: '3.5', asset: 'USDT', network: 'BASE', address: to });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      const died = await Promise.race([halting.exited, new Promise((res) => setTimeout(() => res('alive'), 20_000))]);
      expect(died).toMatchObject({ signal: 'SIGKILL' });
      const recorded = await txsOf(r.json.id);
      expect(recorded).toHaveLength(1);
      const row = await payoutRow(r.json.id);
      if (step === 'recorded') {
        expect(await balanceOf(to)).toBe(0n);
        expect(row.status).toBe('requested');
      }
      if (step === 'broadcast') expect(row.status).toBe('requested');
      if (step === 'confirming') expect(row.status).toBe('sent');
      const server = await start();
      await waitFor(
        'sent',
        () => payoutRow(r.json.id),
        (p) => p.status === 'sent' || p.status === 'paid',
        { timeoutMs: 20_000 },
      );
      await waitFor(
        'mined',
        () => balanceOf(to),
        (b) => b > 0n,
        { timeoutMs: 20_000 },
      );
      await chain.mine(CONFIRMATIONS);
      const paid = await waitFor(
        'paid',
        () => payoutRow(r.json.id),
        (p) => p.status === 'paid',
        { timeoutMs: 20_000 },
      );
      expect(paid.tx_hash).toBe(recorded[0]!.tx_hash);
      await chain.mine(2);
      await new Promise((res) => setTimeout(res, 500));
      expect(await balanceOf(to)).toBe(parseUnits('3.5', 6));
      expect((await txsOf(r.json.id)).map((t) => t.state)).toEqual(['landed']);
      expect((await eventsOf(r.json.id)).sort()).toEqual(['payout.created', 'payout.paid', 'payout.sent']);
      await killHard(server);
    }, 90_000);
  }

  it.skipIf(ENGINE !== 'postgres')(
    'concurrent payouts through two server processes never overdraw: exactly those that fit',
    async () => {
      const [live2, sandbox2] = (await freePorts(2)) as [number, number];
      const a = await start({ COWRIE_CHAIN_BASE_PAYOUT_KEY: '', COWRIE_ROLE: 'api' });
      const b = await start({
        COWRIE_CHAIN_BASE_PAYOUT_KEY: '',
        COWRIE_ROLE: 'api',
        COWRIE_LIVE_PORT: String(live2),
        COWRIE_SANDBOX_PORT: String(sandbox2),
      });
      const testKey = (await createKey(check.db, systemClock, { merchantId, environment: 'test', type: 'secret' })).key;
      await fund('test', '10');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api((i % 2 === 0 ? a : b).sandboxPort, testKey, 'POST', '/payouts', {
            amount: '2.2',
            asset: 'USDT',
            network: 'TRON',
            address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
          }),
        ),
      );
      const made = results.filter((r) => r.status === 201);
      expect(made).toHaveLength(4);
      for (const r of results) if (r.status !== 201) expect(r.json.error.code).toBe('insufficient_balance');
      const legs = await check.db
        .selectFrom('ledger_entries')
        .select(['amount'])
        .where('merchant_id', '=', merchantId)
        .where('environment', '=', 'test')
        .where('account', '=', 'merchant_available')
        .execute();
      const availableNow = legs.reduce((sum, l) => sum.plus(l.amount), new Decimal(0));
      expect(availableNow.toFixed(6)).toBe('1.200000');
      await Promise.all([killHard(a), killHard(b)]);
    },
    60_000,
  );
});
