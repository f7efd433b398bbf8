// The merchant console's pages with 100,000 payments in the merchant's sandbox: a server process
// (built from dist/) over a database seeded in bulk, a signed-in owner, and each page fetched 200 times in
// a row after 20 warm-up fetches; p50 and p95 in milliseconds (target: p95 under 50 ms) on SQLite, and on
// PostgreSQL when a server answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPaidPayments, SERVER, type Started, startProcess, stop, withPgDatabase } from './lib.js';

const ROWS = Number(process.env['BENCH_CONSOLE_ROWS'] ?? 100_000);
const RUNS = 200;

function startServer(databaseUrl: string, port: number): Promise<Started> {
  const env = {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_LOG_LEVEL: 'warn',
    COWRIE_METRICS_PORT: '0',
  };
  return startProcess([...SERVER, 'serve'], env, (out) => /Cowrie is running/.test(out), 60_000);
}

/** A day relative to today (YYYY-MM-DD in the console's default zone, Africa/Nairobi). */
const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Nairobi' }).format(Date.now() + offset * 86_400_000);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

async function benchEngine(engine: string, databaseUrl: string, port: number): Promise<void> {
  const first = await startServer(databaseUrl, port);
  const out = first.output();
  await stop(first.child);
  const merchantId = /(mer_[0-9A-Za-z]+)/.exec(out)?.[1];
  const password = /console password:\s+([A-Za-z0-9]{20})/.exec(out)?.[1];
  if (!merchantId || !password) throw new Error(`no demo merchant in output:\n${out}`);
  const t0 = performance.now();
  await seedPaidPayments(databaseUrl, merchantId, ROWS);
  process.stdout.write(`${engine}: seeded ${ROWS} paid payments in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const server = await startServer(databaseUrl, port);
  try {
    const base = `http://127.0.0.1:${port + 1}`;
    const login = await fetch(`${base}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'owner@demo.cowrie.local', password }).toString(),
      redirect: 'manual',
    });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    if (login.status !== 303 || !cookie) throw new Error(`login answered ${login.status}`);
    const list = await (await fetch(`${base}/console/payments?env=test`, { headers: { cookie } })).text();
    const someId = /\/console\/payments\/(pi_[0-9A-Za-z]+)/.exec(list)?.[1];
    const pages = [
      '/console?env=test',
      '/console/payments?env=test',
      '/console/payments?env=test&status=paid',
      '/console/payments?env=test&q=order-50000%2C%20%22bench%22',
      // The shop owner's search box and filters: a reference prefix, a customer's email and phone, an exact
      // amount (every payment has it), method and status, a range of days, and the CSV of a narrow filter.
      '/console/payments?env=test&q=order-5',
      '/console/payments?env=test&q=c50000%40bench.example',
      '/console/payments?env=test&q=%2B254700050000',
      '/console/payments?env=test&q=1%2C500',
      '/console/payments?env=test&method=card&status=paid',
      `/console/payments?env=test&from=${day(-12)}&to=${day(-8)}`,
      `/console/payments?env=test&from=${day(-12)}&to=${day(-8)}&q=order-9`,
      '/console/payments/export.csv?env=test&q=order-5000',
      '/console/team',
      `/console/payments/${someId}?env=test`,
      '/console/settlements?env=test',
      '/console/refunds?env=test',
      '/console/events?env=test',
      '/console/audit',
    ];
    process.stdout.write(`${engine}: console pages with ${ROWS} payments, ${RUNS} sequential fetches each (ms)\n`);
    for (const path of pages) {
      const times: number[] = [];
      for (let i = 0; i < 20 + RUNS; i++) {
        const start = performance.now();
        const res = await fetch(`${base}${path}`, { headers: { cookie } });
        await res.text();
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        if (i >= 20) times.push(performance.now() - start);
      }
      const p95 = pct(times, 95);
      process.stdout.write(
        `  ${path.padEnd(62)} p50 ${pct(times, 50).toFixed(1).padStart(6)}  p95 ${p95.toFixed(1).padStart(6)}  ${p95 < 50 ? 'met' : 'NOT MET'}\n`,
      );
    }
  } finally {
    await stop(server.child);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cowrie-console-bench-'));
try {
  await benchEngine('SQLite', `sqlite:${join(dir, 'console.db')}`, 4720);
  await withPgDatabase((url) => benchEngine('PostgreSQL', url, 4730));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
