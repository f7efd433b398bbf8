// How long the hosted checkout page takes to serve: p50 (and p90/p99) over 1,000 sequential GETs of one
// intent's checkout_url, on SQLite and PostgreSQL, against a real server in this process. Not part of
// `npm test`; run with `node --import tsx bench/checkout.ts` (BENCH_REQUESTS changes the count).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { startCowrie } from '../src/main.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { randomBase62 } from '../src/shared/ids.js';

const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 1000);
const PG_ADMIN =
  process.env['COWRIE_BENCH_DATABASE_URL'] ?? process.env['COWRIE_TEST_DATABASE_URL'] ?? 'postgres://root@127.0.0.1:5432/test';

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(name: string, databaseUrl: string): Promise<void> {
  const config = loadConfig({
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: '0',
    COWRIE_SANDBOX_PORT: '0',
    COWRIE_LOG_LEVEL: 'warn',
    COWRIE_RATE_LIMIT_TEST: '100000',
  });
  const running = await startCowrie(config, { logger: pino({ level: 'warn' }), seedDemo: false, startJobs: false });
  try {
    const base = `http://127.0.0.1:${running.listeners.portOf('test')}`;
    const m = await createMerchant(running.database.db, running.clock, { name: 'Bench shop', verified: false });
    const created = await fetch(`${base}/v1/payment-intents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.keys.test_secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order', return_url: 'https://shop.example/done' }),
    });
    const intent = (await created.json()) as { checkout_url: string };
    const url = `${base}${new URL(intent.checkout_url).pathname}`;
    for (let i = 0; i < 50; i++) await (await fetch(url)).text(); // warm-up
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await fetch(url);
      const body = await res.text();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`checkout answered ${res.status}`);
      bytes = body.length;
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(10)} checkout page (${bytes} bytes) over ${REQUESTS} requests: p50 ${pct(times, 50).toFixed(2)} ms, p90 ${pct(times, 90).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms`,
    );
  } finally {
    await running.stop();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cowrie-bench-checkout-'));
try {
  await measure('sqlite', `sqlite:${join(dir, 'cowrie.db')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const dbName = `cowrie_bench_${randomBase62(10).toLowerCase()}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
try {
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${dbName}`;
  await measure('postgres', url.toString());
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
} catch (err) {
  console.log(`postgres   skipped: ${(err as Error).message}`);
} finally {
  await admin.end().catch(() => {});
}
