// The chain watcher against Anvil:
// 1. catch-up: 1,000 live intents each given its exact amount, 1,000 transfers of those amounts spread over
//    10,000 blocks, then one watcher tick from block 0 (scan in COWRIE_CHAIN_BLOCK_RANGE pages, every
//    transfer recorded, matched, read again at its depth and paid): blocks a second and transfers a second;
// 2. sighting delay at one block a second (Anvil --block-time 1): from a transfer's block being mined to its
//    intent showing `confirming` over the API, p50 and p99, with the watcher polling every
//    COWRIE_CHAIN_POLL_MS (250 ms here; the default is 2,000 ms, which adds up to two seconds).
// On SQLite, and on PostgreSQL when a server answers. The server runs in this process (the watcher is what
// is measured); Anvil is a process of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { getAddress, type Address } from 'viem';
import { loadConfig } from '../src/config.js';
import { startCowrie, type Running } from '../src/main.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { startAnvil, testToken, type Anvil } from '../test/helpers/anvil.js';
import { freePorts } from '../test/helpers/server-process.js';
import { withPgDatabase } from './lib.js';

const BLOCKS = Number(process.env['BENCH_CHAIN_BLOCKS'] ?? 10_000);
const TRANSFERS = Number(process.env['BENCH_CHAIN_TRANSFERS'] ?? 1_000);
const SAMPLES = Number(process.env['BENCH_CHAIN_SAMPLES'] ?? 40);
const CONFIRMATIONS = 20;
const POLL_MS = 250;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function server(databaseUrl: string, anvil: Anvil, usdt: Address, payee: Address, jobs: boolean): Promise<Running> {
  const [live, sandbox] = await freePorts(2);
  const config = loadConfig({
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(live),
    COWRIE_SANDBOX_PORT: String(sandbox),
    COWRIE_METRICS_PORT: '0',
    COWRIE_LOG_LEVEL: 'warn',
    COWRIE_CHAIN_POLL_MS: String(POLL_MS),
    COWRIE_CHAIN_BASE_RPC_URLS: anvil.url,
    COWRIE_CHAIN_BASE_ADDRESS: payee,
    COWRIE_CHAIN_BASE_USDT: usdt,
    COWRIE_CHAIN_BASE_USDC: getAddress(`0x${randomBytes(20).toString('hex')}`),
    COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
  });
  return startCowrie(config, { logger: pino({ level: 'warn' }), seedDemo: false, startJobs: jobs });
}

/** Live intents of `amount` USD, each with its exact amount on Base allocated as the checkout does. */
async function intentsWithAmounts(running: Running, n: number): Promise<{ id: string; amount: string; merchant: string }[]> {
  const { services } = running;
  const merchant = await createMerchant(services.db, systemClock, { name: 'Chain bench', verified: true });
  const scope = { merchantId: merchant.merchant.id, environment: 'live' as const };
  const rail = services.rails.railFor('live', 'external_wallet')!;
  const out: { id: string; amount: string; merchant: string }[] = [];
  for (let i = 0; i < n; i++) {
    const pi = await services.intents.create(scope, { amount: '10.00', currency: 'USD', settlement_currency: 'USDT' } as never);
    const row = await services.intents.getRow(scope, pi.id);
    const started = await rail.startPayment({ scope, intent: row, method: 'external_wallet', details: { network: 'base' } });
    if (started.state !== 'pending') throw new Error('no wallet instruction');
    out.push({ id: pi.id, amount: String(started.nextAction!['amount']), merchant: merchant.merchant.id });
  }
  return out;
}

async function catchUp(engine: string, databaseUrl: string): Promise<void> {
  const anvil = await startAnvil();
  const payee = getAddress(`0x${randomBytes(20).toString('hex')}`);
  try {
    const usdt = await anvil.deployToken('USDT');
    await anvil.mint(usdt, anvil.accounts[0]!, '100000000');
    const running = await server(databaseUrl, anvil, usdt, payee, false);
    try {
      const intents = await intentsWithAmounts(running, TRANSFERS);
      const spacing = Math.floor(BLOCKS / TRANSFERS);
      const t0 = Date.now();
      const abi = testToken().abi;
      for (const pi of intents) {
        // Anvil mines each transaction as it arrives (automine): no need to wait for the receipt.
        await anvil.wallet.writeContract({
          address: usdt,
          abi,
          functionName: 'transfer',
          args: [payee, BigInt(Math.round(Number(pi.amount) * 1e6))],
          account: anvil.accounts[0]!,
          chain: null,
        });
        if (spacing > 1) await anvil.mine(spacing - 1);
      }
      await anvil.mine(CONFIRMATIONS);
      const head = await anvil.head();
      process.stdout.write(
        `${engine}: chain of ${head} blocks with ${TRANSFERS} transfers built in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
      // The watcher starts from block 0, as after a long downtime.
      await running.services.db
        .insertInto('chain_cursors')
        .values({ network: 'base', cursor: '0', head: 0, updated_at: Date.now() })
        .execute();
      const watcher = running.services.chainWatchers[0]!;
      const start = process.hrtime.bigint();
      const tick = await watcher.tick();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const paid = await running.services.db
        .selectFrom('payment_intents')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('status', '=', 'paid')
        .where(
          'id',
          'in',
          intents.map((i) => i.id),
        )
        .executeTakeFirstOrThrow();
      process.stdout.write(
        `${engine}: catch-up of ${head} blocks: ${seconds.toFixed(2)} s, ${(head / seconds).toFixed(0)} blocks/s; ` +
          `${tick.seen} transfers seen, ${tick.confirmed} confirmed (${(tick.confirmed / seconds).toFixed(0)}/s), ${Number(paid.n)} of ${TRANSFERS} intents paid\n`,
      );
    } finally {
      await running.stop();
    }
  } finally {
    await anvil.stop();
  }
}

async function sightingDelay(engine: string, databaseUrl: string): Promise<void> {
  const anvil = await startAnvil({ blockTime: 1 });
  const payee = getAddress(`0x${randomBytes(20).toString('hex')}`);
  try {
    const usdt = await anvil.deployToken('USDT');
    await anvil.mint(usdt, anvil.accounts[0]!, '100000000');
    const running = await server(databaseUrl, anvil, usdt, payee, true);
    try {
      const intents = await intentsWithAmounts(running, SAMPLES);
      const delays: number[] = [];
      for (const pi of intents) {
        const hash = await anvil.wallet.writeContract({
          address: usdt,
          abi: testToken().abi,
          functionName: 'transfer',
          args: [payee, BigInt(Math.round(Number(pi.amount) * 1e6))],
          account: anvil.accounts[0]!,
          chain: null,
        });
        // Mined: the moment its receipt can be read (polled every 5 ms).
        for (;;) {
          const r = await anvil.public.getTransactionReceipt({ hash }).catch(() => null);
          if (r) break;
          await new Promise((res) => setTimeout(res, 5));
        }
        const mined = Date.now();
        for (;;) {
          const row = await running.services.db
            .selectFrom('payment_intents')
            .select('status')
            .where('id', '=', pi.id)
            .executeTakeFirstOrThrow();
          if (row.status !== 'awaiting_payment') break;
          await new Promise((res) => setTimeout(res, 5));
        }
        delays.push(Date.now() - mined);
      }
      process.stdout.write(
        `${engine}: mined -> confirming at 1 block/s, poll ${POLL_MS} ms, ${SAMPLES} transfers: p50 ${pct(delays, 50)} ms, p99 ${pct(delays, 99)} ms, max ${Math.max(...delays)} ms\n`,
      );
    } finally {
      await running.stop();
    }
  } finally {
    await anvil.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cowrie-chain-bench-'));
try {
  await catchUp('SQLite', `sqlite:${join(dir, 'catchup.db')}`);
  await sightingDelay('SQLite', `sqlite:${join(dir, 'delay.db')}`);
  await withPgDatabase((url) => catchUp('PostgreSQL', url));
  await withPgDatabase((url) => sightingDelay('PostgreSQL', url));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
