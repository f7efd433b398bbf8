// npm run bench: create-intent throughput and latency on SQLite and PostgreSQL beside a bare Fastify
// endpoint measured in the same run, and a plain insert loop over `pg` as PostgreSQL's yardstick.
// Each server runs in its own process (built from dist/); the load generator runs here.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { randomBase62 } from '../src/shared/ids.js';
import { SERVER, startProcess, stop, withPgDatabase } from './lib.js';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 8);
const PROFILE = process.argv.includes('--profile');

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU (all threads) per request, in microseconds, when measured. */
  cpuUs?: number;
  /** Latency at a fixed offered rate (below saturation), when measured. */
  atRate?: { rate: number; achieved: number; p50: number; p99: number; errors: number };
}

/** utime + stime of a process, in clock ticks (Linux). */
function cpuTicks(pid: number | undefined): number | null {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function waitForHttp(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} never answered`);
}

async function load(name: string, url: string, headers: Record<string, string>, body: string, pid?: number): Promise<Figures> {
  // Warm-up, then the measured run.
  await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: 2 });
  const before = cpuTicks(pid);
  const r = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: DURATION });
  const after = cpuTicks(pid);
  const errors = r.errors + r.timeouts + r.non2xx;
  const cpuUs = before === null || after === null ? undefined : ((after - before) * 10_000) / r.requests.total;
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors, cpuUs };
}

/**
 * Latency below saturation: the same requests offered at a fixed rate over the same connections. In the
 * saturated run every connection always has a request waiting, so its latency is connections / throughput
 * (Little's law) whatever the server does; this run shows the latency of a server that keeps up.
 */
async function latencyAtRate(
  url: string,
  headers: Record<string, string>,
  body: string,
  rate: number,
): Promise<NonNullable<Figures['atRate']>> {
  const r = await autocannon({
    url,
    method: 'POST',
    headers,
    body,
    connections: CONNECTIONS,
    overallRate: Math.max(1, Math.round(rate)),
    duration: DURATION,
  });
  return { rate, achieved: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

const INTENT_BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order', merchant_reference: 'bench-1' });

async function benchCowrie(name: string, databaseUrl: string, port: number, targetRate: number): Promise<Figures> {
  const env = {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_RATE_LIMIT_LIVE: '1000000',
    COWRIE_LOG_LEVEL: 'warn',
  };
  const args = [...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), 'bench', 'profiles')}`] : []), ...SERVER, 'serve'];
  // `serve` prints the demo merchant's key on the first start of an empty database.
  const { child, output } = await startProcess(args, env, (out) => /cwk_test_sk_\w+/.test(out));
  try {
    await waitForHttp(`http://127.0.0.1:${port + 1}/docs/errors`);
    const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(output())?.[0];
    if (!key) throw new Error(`no demo key in output:\n${output()}`);
    const url = `http://127.0.0.1:${port + 1}/v1/payment-intents`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const saturated = await load(name, url, headers, INTENT_BODY, child.pid);
    return { ...saturated, atRate: await latencyAtRate(url, headers, INTENT_BODY, targetRate) };
  } finally {
    await stop(child);
  }
}

/** The PostgreSQL yardstick: 32 concurrent clients inserting payment-intent-sized rows in a loop. */
async function plainInsertLoop(url: string): Promise<Figures> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(`CREATE TABLE plain_intents (id text primary key, merchant_id text not null, environment text not null,
    status text not null, amount text not null, currency text not null, payload text not null, created_at bigint not null)`);
  const payload = JSON.stringify({ description: 'Bench order', metadata: {}, methods: ['mpesa', 'card'] });
  let count = 0;
  const latencies: number[] = [];
  const deadline = Date.now() + DURATION * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline) {
        const t = performance.now();
        await pool.query('INSERT INTO plain_intents VALUES ($1,$2,$3,$4,$5,$6,$7,$8)', [
          `pi_${randomBase62(24)}`,
          'mer_x',
          'test',
          'awaiting_payment',
          '1500.00',
          'KES',
          payload,
          Date.now(),
        ]);
        latencies.push(performance.now() - t);
        count++;
      }
    }),
  );
  await pool.end();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { name: 'pg plain INSERT loop', rps: count / DURATION, p50: pct(50), p99: pct(99), errors: 0 };
}

function show(rows: Figures[]): void {
  const line = (f: Figures) =>
    `${f.name.padEnd(34)} ${f.rps.toFixed(0).padStart(8)} req/s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   errors ${f.errors}` +
    (f.cpuUs === undefined ? '' : `   server CPU ${f.cpuUs.toFixed(0)} us/request`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
  for (const r of rows) {
    if (!r.atRate) continue;
    const a = r.atRate;
    process.stdout.write(
      `${`${r.name} at ${a.rate.toFixed(0)} req/s offered`.padEnd(58)} achieved ${a.achieved.toFixed(0).padStart(6)} req/s   p50 ${a.p50.toFixed(2).padStart(7)} ms   p99 ${a.p99.toFixed(2).padStart(7)} ms   errors ${a.errors}\n`,
    );
  }
}

async function main(): Promise<void> {
  process.stdout.write(`Create-intent benchmark: ${CONNECTIONS} connections, ${DURATION} s per run, node ${process.version}\n\n`);
  const bareProc = await startProcess(['--import', 'tsx', 'bench/bare-server.ts'], { PORT: '4290' }, (out) => /listening/.test(out));
  let bare: Figures;
  try {
    bare = await load(
      'bare Fastify endpoint',
      'http://127.0.0.1:4290/v1/payment-intents',
      { 'content-type': 'application/json' },
      INTENT_BODY,
      bareProc.child.pid,
    );
  } finally {
    await stop(bareProc.child);
  }
  const dir = mkdtempSync(join(tmpdir(), 'cowrie-bench-'));
  let sqlite: Figures;
  try {
    // Latency is also measured at the throughput the target asks for: half of the bare endpoint's.
    sqlite = await benchCowrie('cowrie create intent (SQLite)', `sqlite:${join(dir, 'bench.db')}`, 4300, bare.rps / 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const pgFigures = await withPgDatabase(async (url) => {
    const plain = await plainInsertLoop(url);
    return [await benchCowrie('cowrie create intent (PostgreSQL)', url, 4310, plain.rps * 0.6), plain] as const;
  });
  show(pgFigures ? [bare, sqlite, ...pgFigures] : [bare, sqlite]);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const sqliteAtRate = sqlite.atRate!;
  process.stdout.write(
    `\nSQLite / bare Fastify throughput:        ${(sqlite.rps / bare.rps).toFixed(2)}  (target >= 0.50: ${met(sqlite.rps >= bare.rps / 2)})\n` +
      `SQLite p99 at 32 connections:            ${sqlite.p99.toFixed(1)} ms saturated, ${sqliteAtRate.p99.toFixed(1)} ms at ${sqliteAtRate.rate.toFixed(0)} req/s offered (target < 5 ms: ${met(sqliteAtRate.p99 < 5 && sqliteAtRate.achieved >= sqliteAtRate.rate * 0.95)})\n` +
      `(bare Fastify's own p99 saturated: ${bare.p99.toFixed(1)} ms)\n` +
      (pgFigures
        ? `PostgreSQL / plain pg insert throughput:  ${(pgFigures[0].rps / pgFigures[1].rps).toFixed(2)}  (target >= 0.60: ${met(pgFigures[0].rps >= pgFigures[1].rps * 0.6)})\n`
        : ''),
  );
}

// The other benchmarks, each a script of its own that prints its figures.
const EXTRA_BENCHES = [
  'bench/webhooks.ts',
  'bench/reports.ts',
  'bench/processes.ts',
  'bench/metrics-cost.ts',
  'bench/chain.ts',
  'bench/payouts.ts',
  'bench/console.ts',
];

await main();
for (const script of EXTRA_BENCHES) {
  if (!existsSync(script) || process.env['BENCH_ONLY_INTENTS']) continue;
  process.stdout.write(`\n== ${script} ==\n`);
  const code = await new Promise<number | null>((resolve) => {
    spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' }).on('exit', resolve);
  });
  if (code !== 0) process.exitCode = 1;
}
