// Memory allocated per create-intent request, and the garbage collector's time per request, build against
// build: `node --import tsx bench/alloc.ts DIR_A DIR_B …` (each DIR a checkout with a built dist/, as for
// bench/compare.ts). The server runs with node's --trace-gc; between two collections the heap grows by
// what was allocated, so the growth from each collection's end to the next one's start, summed over the
// measured run, is what the run allocated (objects that die young included), and the pauses it prints are
// the collector's time. SQLite, 32 connections, BENCH_SECONDS (8) after a 3 s warm-up, BENCH_ROUNDS (2).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { startProcess, stop } from './lib.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order', merchant_reference: 'bench-1' });
// `[pid:0x…]  1234 ms: Scavenge 10.2 (12.3) -> 9.8 (12.3) MB, 0.51 / 0.00 ms  …` (main thread and workers alike)
const GC_LINE =
  /\[(\d+):(0x[0-9a-f]+)\]\s+\d+ ms: (?:Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Compact|Minor Mark-Sweep)[^\d]*([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \//;

interface Round {
  requests: number;
  kbPerRequest: number;
  gcUsPerRequest: number;
}

/** Allocated MB and pause ms in the GC lines of `text`, per isolate (the main thread's and each worker's). */
function gcTotals(text: string): { allocatedMb: number; pauseMs: number } {
  const lastAfter = new Map<string, number>();
  let allocatedMb = 0;
  let pauseMs = 0;
  for (const line of text.split('\n')) {
    const m = GC_LINE.exec(line);
    if (!m) continue;
    const isolate = m[2]!;
    const before = Number(m[3]);
    const after = Number(m[4]);
    const previous = lastAfter.get(isolate);
    if (previous !== undefined) allocatedMb += Math.max(0, before - previous);
    lastAfter.set(isolate, after);
    pauseMs += Number(m[5]);
  }
  return { allocatedMb, pauseMs };
}

async function oneRound(build: string, port: number): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), 'cowrie-alloc-'));
  const env = {
    COWRIE_DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_LOG_LEVEL: 'warn',
  };
  const main = join(build, 'dist', 'cli', 'main.js');
  const { child, output } = await startProcess(['--max-semi-space-size=4', '--trace-gc', main, 'serve'], env, (out) =>
    /cwk_test_sk_\w+/.test(out),
  );
  try {
    const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(output())![0];
    const opts = {
      url: `http://127.0.0.1:${port + 1}/v1/payment-intents`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: BODY,
      connections: 32,
    };
    await autocannon({ ...opts, duration: 3 });
    const mark = output().length;
    const r = await autocannon({ ...opts, duration: SECONDS });
    const { allocatedMb, pauseMs } = gcTotals(output().slice(mark));
    const requests = r.requests.total;
    return { requests, kbPerRequest: (allocatedMb * 1024) / requests, gcUsPerRequest: (pauseMs * 1000) / requests };
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const builds = process.argv.slice(2).map((d) => resolve(d));
if (builds.length === 0) builds.push(process.cwd());
if (builds.some((b) => !existsSync(join(b, 'dist', 'cli', 'main.js'))))
  throw new Error('usage: bench/alloc.ts [DIR …], each with a built dist/');
const results = new Map<string, Round[]>(builds.map((b) => [b, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const [i, build] of builds.entries()) {
    const r = await oneRound(build, 4500 + i * 10);
    results.get(build)!.push(r);
    process.stdout.write(
      `round ${round} ${build}: ${r.requests} requests, ${r.kbPerRequest.toFixed(1)} KB allocated and ${r.gcUsPerRequest.toFixed(1)} us of GC pauses per request\n`,
    );
  }
}
for (const build of builds) {
  const rs = results.get(build)!;
  process.stdout.write(
    `median ${build}: ${median(rs.map((r) => r.kbPerRequest)).toFixed(1)} KB and ${median(rs.map((r) => r.gcUsPerRequest)).toFixed(1)} us GC per request\n`,
  );
}
