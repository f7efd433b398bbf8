// What metrics cost the create-intent path: the same server on SQLite with metrics off
// (COWRIE_METRICS_PORT=0, nothing collected) and on, measured alternately (off, on, off, on) in one run;
// requests a second and p99 of each, and the difference of the means.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { SERVER, startProcess, stop } from './lib.js';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 6);
const BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order' });

async function run(metricsPort: number, port: number): Promise<{ rps: number; p99: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cowrie-metrics-bench-'));
  const env = {
    COWRIE_DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_LOG_LEVEL: 'warn',
    COWRIE_METRICS_PORT: String(metricsPort),
  };
  const { child, output } = await startProcess([...SERVER, 'serve'], env, (out) => /Cowrie is running/.test(out), 60_000);
  try {
    const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(output())![0];
    const target = {
      url: `http://127.0.0.1:${port + 1}/v1/payment-intents`,
      method: 'POST' as const,
      body: BODY,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      connections: CONNECTIONS,
    };
    await autocannon({ ...target, duration: 2 });
    const r = await autocannon({ ...target, duration: DURATION });
    return { rps: r.requests.average, p99: r.latency.p99 };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

process.stdout.write(`Metrics cost on create intent (SQLite): ${CONNECTIONS} connections, ${DURATION} s per run, off/on alternating\n`);
const off: number[] = [];
const on: number[] = [];
for (let round = 0; round < 2; round++) {
  const a = await run(0, 4500 + round * 20);
  const b = await run(9465 + round, 4510 + round * 20);
  off.push(a.rps);
  on.push(b.rps);
  process.stdout.write(
    `round ${round + 1}: metrics off ${a.rps.toFixed(0)} req/s (p99 ${a.p99} ms), on ${b.rps.toFixed(0)} req/s (p99 ${b.p99} ms)\n`,
  );
}
const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
process.stdout.write(
  `mean: off ${mean(off).toFixed(0)} req/s, on ${mean(on).toFixed(0)} req/s: metrics cost ${((1 - mean(on) / mean(off)) * 100).toFixed(1)} %\n`,
);
