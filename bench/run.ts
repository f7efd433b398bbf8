// npm run bench: create-intent throughput, latency and server CPU per request on SQLite and PostgreSQL,
// side by side in one run with a bare Fastify endpoint and, on each engine, the minimal durable write of
// the same work (bench/minimal-write.ts: auth, validation, intent and event in one group-committed
// transaction), alternating round by round with Cowrie (BENCH_ROUNDS, default 1). Each server runs in its
// own process (Cowrie built from dist/); the load generator runs here.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
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

const INTENT_BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order', merchant_reference: 'bench-1' });

async function benchCowrie(name: string, databaseUrl: string, port: number): Promise<Figures> {
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
    return await load(name, url, headers, INTENT_BODY, child.pid);
  } finally {
    await stop(child);
  }
}

/** The minimal durable write (bench/minimal-write.ts) on `databaseUrl`, loaded as Cowrie is. */
async function benchMinimal(name: string, databaseUrl: string, port: number): Promise<Figures> {
  const proc = await startProcess(
    ['--import', 'tsx', 'bench/minimal-write.ts'],
    { BENCH_DATABASE_URL: databaseUrl, PORT: String(port) },
    (out) => /listening \d+ key \w+/.test(out),
  );
  try {
    const key = /key (\w+)/.exec(proc.output())![1]!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    return await load(name, `http://127.0.0.1:${port}/v1/payment-intents`, headers, INTENT_BODY, proc.child.pid);
  } finally {
    await stop(proc.child);
  }
}

function show(rows: Figures[]): void {
  const line = (f: Figures) =>
    `${f.name.padEnd(34)} ${f.rps.toFixed(0).padStart(8)} req/s   p50 ${f.p50.toFixed(2).padStart(7)} ms   p99 ${f.p99.toFixed(2).padStart(7)} ms   errors ${f.errors}` +
    (f.cpuUs === undefined ? '' : `   server CPU ${f.cpuUs.toFixed(0)} us/request`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median of each figure over rounds of one server. */
function medianOf(rounds: Figures[]): Figures {
  const cpu = rounds.map((r) => r.cpuUs).filter((c): c is number => c !== undefined);
  return {
    name: rounds[0]!.name,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    ...(cpu.length > 0 ? { cpuUs: median(cpu) } : {}),
  };
}

/** Minimal write and Cowrie on one engine, alternating round by round (the machine's speed drifts). */
async function engineSideBySide(engine: 'SQLite' | 'PostgreSQL', port: number): Promise<[Figures, Figures] | null> {
  const minimal: Figures[] = [];
  const cowrie: Figures[] = [];
  const fresh = async <T>(fn: (url: string) => Promise<T>): Promise<T | null> => {
    if (engine === 'PostgreSQL') return withPgDatabase(fn);
    const dir = mkdtempSync(join(tmpdir(), 'cowrie-bench-'));
    try {
      return await fn(`sqlite:${join(dir, 'bench.db')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const m = await fresh((url) => benchMinimal(`minimal durable write (${engine})`, url, port + 5));
    const c = await fresh((url) => benchCowrie(`cowrie create intent (${engine})`, url, port));
    if (!m || !c) return null;
    minimal.push(m);
    cowrie.push(c);
    // Each round's pair as it came: the medians below hide a round that ran in another mode (bench/README.md,
    // "Two modes").
    process.stdout.write(
      `  round ${round + 1} ${engine}: minimal ${m.rps.toFixed(0)} req/s p99 ${m.p99} ms, Cowrie ${c.rps.toFixed(0)} req/s p99 ${c.p99} ms ` +
        `(${(c.rps / m.rps).toFixed(2)}), CPU ${c.cpuUs?.toFixed(0)} us/request\n`,
    );
  }
  return [medianOf(minimal), medianOf(cowrie)];
}

async function main(): Promise<void> {
  process.stdout.write(
    `Create-intent benchmark: ${CONNECTIONS} connections, ${DURATION} s per run, ${ROUNDS} round(s), node ${process.version}\n\n`,
  );
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
  const sqlite = await engineSideBySide('SQLite', 4300);
  const postgres = await engineSideBySide('PostgreSQL', 4310);
  show([bare, ...(sqlite ?? []), ...(postgres ?? [])]);
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  process.stdout.write('\n');
  for (const [engine, pair] of [['SQLite', sqlite] as const, ['PostgreSQL', postgres] as const]) {
    if (!pair) continue;
    const [minimal, cowrie] = pair;
    const ratio = cowrie.rps / minimal.rps;
    process.stdout.write(
      `${`${engine}: Cowrie / minimal durable write`.padEnd(42)} ${ratio.toFixed(2)} (target >= 0.80: ${met(ratio >= 0.8)}); ` +
        `CPU ${cowrie.cpuUs?.toFixed(0)} against ${minimal.cpuUs?.toFixed(0)} us/request; ` +
        `Cowrie p99 ${cowrie.p99.toFixed(1)} ms at ${CONNECTIONS} connections (target <= 10 ms: ${met(cowrie.p99 <= 10)})\n`,
    );
  }
  process.stdout.write(
    `(bare Fastify: ${bare.rps.toFixed(0)} req/s, p99 ${bare.p99.toFixed(1)} ms, ${bare.cpuUs?.toFixed(0)} us CPU/request)\n`,
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
