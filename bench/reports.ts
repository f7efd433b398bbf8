// npm run bench (via bench/run.ts), or on its own: `npm run build && node --import tsx bench/reports.ts`.
// Seeds 100,000 paid payments (bulk inserts straight into the tables), then streams the CSV payments
// report from a real server process and prints the time and that process's peak resident memory
// (VmHWM from /proc/<pid>/status; target under 150 MB). SQLite always; PostgreSQL too when
// COWRIE_BENCH_DATABASE_URL (or COWRIE_TEST_DATABASE_URL, or the local default) answers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPaidPayments, SERVER, type Started, startProcess, stop, withPgDatabase } from './lib.js';

const ROWS = Number(process.env['BENCH_REPORT_ROWS'] ?? 100_000);

function startServer(databaseUrl: string, port: number): Promise<Started> {
  const env = {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_LOG_LEVEL: 'info',
  };
  return startProcess([...SERVER, 'serve'], env, (out) => /listening/.test(out) && /"environment":"test"/.test(out), 60_000);
}

function memoryKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

interface Result {
  engine: string;
  rows: number;
  bytes: number;
  seconds: number;
  baselineMb: number;
  peakMb: number;
}

async function benchEngine(engine: string, databaseUrl: string, port: number): Promise<Result> {
  // First start: migrates and prints the demo merchant's sandbox key.
  const first = await startServer(databaseUrl, port);
  const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(first.output())?.[0];
  const merchantId = /(mer_[0-9A-Za-z]+)/.exec(first.output())?.[1];
  await stop(first.child);
  if (!key || !merchantId) throw new Error(`no demo merchant in output:\n${first.output()}`);
  const t0 = performance.now();
  await seedPaidPayments(databaseUrl, merchantId, ROWS);
  process.stdout.write(`${engine}: seeded ${ROWS} paid payments in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

  // A fresh process, so that its peak memory is the report's and start-up's only.
  const server = await startServer(databaseUrl, port);
  try {
    const pid = server.child.pid!;
    const baseline = memoryKb(pid, 'VmHWM');
    const start = performance.now();
    const res = await fetch(`http://127.0.0.1:${port + 1}/v1/reports/payments?format=csv`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`report answered ${res.status}: ${await res.text()}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      for (const b of chunk) if (b === 0x0a) lines++;
    }
    const seconds = (performance.now() - start) / 1000;
    // Quoted cells hold no newlines here, so lines = rows + the header.
    return { engine, rows: lines - 1, bytes, seconds, baselineMb: baseline / 1024, peakMb: memoryKb(pid, 'VmHWM') / 1024 };
  } finally {
    await stop(server.child);
  }
}

const results: Result[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cowrie-bench-reports-'));
try {
  results.push(await benchEngine('SQLite', `sqlite:${join(dir, 'bench.db')}`, 4400));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const pgResult = await withPgDatabase((url) => benchEngine('PostgreSQL', url, 4410));
if (pgResult) results.push(pgResult);

process.stdout.write(`\nCSV payments report of ${ROWS} paid payments, streamed from a server process (node ${process.version}):\n`);
let ok = true;
for (const r of results) {
  const met = r.peakMb < 150 && r.rows === ROWS;
  ok &&= met;
  process.stdout.write(
    `${r.engine.padEnd(11)} ${r.rows} rows, ${(r.bytes / 1e6).toFixed(1)} MB in ${r.seconds.toFixed(2)} s ` +
      `(${Math.round(r.rows / r.seconds)} rows/s); server peak RSS ${r.peakMb.toFixed(0)} MB (after start-up ${r.baselineMb.toFixed(0)} MB) ` +
      `- target < 150 MB ${met ? 'met' : 'NOT met'}\n`,
  );
}
if (!ok) process.exitCode = 1;
