// Create intent, build against build: `node --import tsx bench/compare.ts DIR_A DIR_B …` where each DIR is a
// checkout whose dist/ is built (for an older commit: `git worktree add /tmp/a <commit>`, a node_modules
// link to this checkout's, `npm run build` there). The builds are interleaved round by round (the machine's
// speed moves by tens of percent within minutes, so only interleaved rounds compare), each round a fresh
// database per build, SQLite and PostgreSQL; it prints each round and the medians, with the server's CPU
// per request and how busy its main thread (the event loop) was. BENCH_ROUNDS (default 3), BENCH_SECONDS (8), BENCH_CONNECTIONS (32) and BENCH_ENGINES
// (`sqlite,postgres`) change the run.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { startProcess, stop, withPgDatabase } from './lib.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 8);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order', merchant_reference: 'bench-1' });

interface Round {
  rps: number;
  cpuUs: number;
  /** The share of the wall time the server's main thread (the event loop) was on a CPU. */
  mainBusy: number;
}

/** utime + stime in clock ticks of a process (all its threads), or of its main thread with `mainOnly`. */
function cpuTicks(pid: number, mainOnly = false): number {
  const path = mainOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function oneRound(build: string, databaseUrl: string, port: number): Promise<Round> {
  const env = {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_LOG_LEVEL: 'warn',
  };
  const main = join(build, 'dist', 'cli', 'main.js');
  const { child, output } = await startProcess(['--max-semi-space-size=4', main, 'serve'], env, (out) => /cwk_test_sk_\w+/.test(out));
  try {
    const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(output())![0];
    const opts = {
      url: `http://127.0.0.1:${port + 1}/v1/payment-intents`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: BODY,
      connections: CONNECTIONS,
    };
    await autocannon({ ...opts, duration: 3 });
    const before = cpuTicks(child.pid!);
    const mainBefore = cpuTicks(child.pid!, true);
    const started = performance.now();
    const r = await autocannon({ ...opts, duration: SECONDS });
    const cpuUs = ((cpuTicks(child.pid!) - before) * 10_000) / r.requests.total;
    const mainBusy = ((cpuTicks(child.pid!, true) - mainBefore) * 10) / (performance.now() - started);
    if (r.non2xx + r.errors > 0) throw new Error(`${build}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    return { rps: r.requests.average, cpuUs, mainBusy };
  } finally {
    await stop(child);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const builds = process.argv.slice(2).map((d) => resolve(d));
  if (builds.length < 1 || builds.some((b) => !existsSync(join(b, 'dist', 'cli', 'main.js')))) {
    throw new Error('usage: bench/compare.ts DIR [DIR …], each with a built dist/');
  }
  const engines = (process.env['BENCH_ENGINES'] ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
  for (const engine of engines) {
    const results = new Map<string, Round[]>(builds.map((b) => [b, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [i, build] of builds.entries()) {
        const port = 4400 + i * 10;
        let r: Round | null;
        if (engine === 'sqlite') {
          const dir = mkdtempSync(join(tmpdir(), 'cowrie-compare-'));
          try {
            r = await oneRound(build, `sqlite:${join(dir, 'bench.db')}`, port);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        } else {
          r = await withPgDatabase((url) => oneRound(build, url, port));
        }
        if (!r) continue;
        results.get(build)!.push(r);
        process.stdout.write(
          `${engine} round ${round} ${build}: ${r.rps.toFixed(0)} req/s, ${r.cpuUs.toFixed(0)} us CPU/request, main thread busy ${(r.mainBusy * 100).toFixed(0)} %\n`,
        );
      }
    }
    for (const build of builds) {
      const rs = results.get(build)!;
      if (rs.length === 0) continue;
      process.stdout.write(
        `${engine} median ${build}: ${median(rs.map((r) => r.rps)).toFixed(0)} req/s, ${median(rs.map((r) => r.cpuUs)).toFixed(0)} us CPU/request, main thread busy ${(median(rs.map((r) => r.mainBusy)) * 100).toFixed(0)} %\n`,
      );
    }
  }
}

await main();
