// Create-intent against 1 and 2 API processes on one PostgreSQL database: the same load
// offered to `cowrie serve --role api --processes 1` and `--processes 2`, side by side in one run, with
// requests a second, p50 and p99 of each. The load generator runs here, on the same machine.
import autocannon from 'autocannon';
import { SERVER, startProcess, stop, withPgDatabase } from './lib.js';

const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 8);
const BODY = JSON.stringify({ amount: '1500.00', currency: 'KES', description: 'Bench order' });

interface Row {
  processes: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function run(processes: number, port: number): Promise<Row | null> {
  return withPgDatabase(async (url) => {
    const env = {
      COWRIE_DATABASE_URL: url,
      COWRIE_HOST: '127.0.0.1',
      COWRIE_LIVE_PORT: String(port),
      COWRIE_SANDBOX_PORT: String(port + 1),
      COWRIE_RATE_LIMIT_TEST: '1000000',
      COWRIE_LOG_LEVEL: 'warn',
      COWRIE_METRICS_PORT: '0',
      COWRIE_ROLE: 'api',
      COWRIE_PROCESSES: String(processes),
    };
    const { child, output } = await startProcess([...SERVER, 'serve'], env, (out) => /Cowrie is running/.test(out), 60_000);
    try {
      const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(output())?.[0];
      if (!key) throw new Error(`no demo key in output:\n${output()}`);
      const target = { url: `http://127.0.0.1:${port + 1}/v1/payment-intents`, method: 'POST' as const, body: BODY };
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      await autocannon({ ...target, headers, connections: CONNECTIONS, duration: 2 });
      const r = await autocannon({ ...target, headers, connections: CONNECTIONS, duration: DURATION });
      return { processes, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
    } finally {
      await stop(child);
    }
  });
}

process.stdout.write(
  `Create intent on PostgreSQL, api processes side by side: ${CONNECTIONS} connections, ${DURATION} s each, node ${process.version}\n`,
);
const rows: Row[] = [];
for (const [i, n] of [1, 2].entries()) {
  const row = await run(n, 4400 + i * 10);
  if (row) rows.push(row);
}
for (const r of rows) {
  process.stdout.write(
    `${`${r.processes} api process${r.processes === 1 ? '' : 'es'}`.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50
      .toFixed(2)
      .padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   errors ${r.errors}\n`,
  );
}
if (rows.length === 2) process.stdout.write(`2 processes / 1 process throughput: ${(rows[1]!.rps / rows[0]!.rps).toFixed(2)}\n`);
