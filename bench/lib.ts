// What every benchmark script shares: starting and stopping a server process, and a throw-away
// PostgreSQL database.
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import type { PaymentIntentRow, SettlementRow } from '../src/db/schema.js';
import { randomBase62 } from '../src/shared/ids.js';

const DAY_MS = 86_400_000;

export const PG_ADMIN =
  process.env['COWRIE_BENCH_DATABASE_URL'] ?? process.env['COWRIE_TEST_DATABASE_URL'] ?? 'postgres://root@127.0.0.1:5432/test';

/**
 * The server as `npm start` and the `cowrie` command start it (node's flag: src/cli/heap.ts);
 * BENCH_SEMI_SPACE_MB replaces the semi-space size to measure another (bench/README.md).
 */
export const SERVER = [`--max-semi-space-size=${process.env['BENCH_SEMI_SPACE_MB'] ?? 4}`, 'dist/cli/main.js'];
/**
 * The key webhook secrets are sealed with in a benchmark's server (PostgreSQL refuses to start without
 * one); COWRIE_SECRETS_KEY in the environment replaces it.
 */
const BENCH_SECRETS_KEY = process.env['COWRIE_SECRETS_KEY'] ?? Buffer.alloc(32, 7).toString('base64');

export interface Started {
  child: ChildProcess;
  output: () => string;
}

// Every server a script started is stopped when the script ends, even by a crash: a server left behind
// would hold its ports and fail the next script's start.
const started = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

/**
 * Spawns `node <args>` and resolves once its output (stdout and stderr) satisfies `ready`. The metrics
 * listener is off unless `env` sets COWRIE_METRICS_PORT (several servers, one default port).
 */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: (output: string) => boolean,
  timeoutMs = 30_000,
): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, COWRIE_METRICS_PORT: '0', COWRIE_SECRETS_KEY: BENCH_SECRETS_KEY, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.add(child);
    child.on('exit', () => started.delete(child));
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`server did not start:\n${out}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}:\n${out}`)));
  });
}

/** SIGTERM, and SIGKILL after 10 s. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** Runs `fn` on a fresh PostgreSQL database, dropped afterwards; null (saying so) when no server answers. */
export async function withPgDatabase<T>(fn: (url: string) => Promise<T>): Promise<T | null> {
  const name = `cowrie_bench_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  try {
    await admin.connect();
  } catch (err) {
    process.stdout.write(`PostgreSQL skipped: ${(err as Error).message}\n`);
    return null;
  }
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** `rows` paid intents (and their settlements) of a merchant's sandbox, paid over the last 20 days, inserted in bulk. */
export async function seedPaidPayments(databaseUrl: string, merchantId: string, rows: number): Promise<void> {
  const database = openDatabase(databaseUrl);
  const now = Date.now();
  const batch = 500;
  try {
    for (let i = 0; i < rows; i += batch) {
      const intents: PaymentIntentRow[] = [];
      const settlements: SettlementRow[] = [];
      for (let j = i; j < Math.min(rows, i + batch); j++) {
        const paidAt = now - Math.floor((j / rows) * 20 * DAY_MS) - 1000;
        const id = `pi_${randomBase62(24)}`;
        intents.push({
          id,
          merchant_id: merchantId,
          environment: 'test',
          status: 'paid',
          amount: '1500.00',
          currency: 'KES',
          settlement_currency: 'USDT',
          pay_amount: '11.607590',
          rate: '129.2258',
          description: 'Bench order',
          merchant_reference: j % 10 === 0 ? `=HYPERLINK("x",${j})` : `order-${j}, "bench"`,
          payment_methods: '["card","mpesa"]',
          // Every 100th payment names a customer, as an inline one would be kept (the console searches its email and phone).
          customer: j % 100 === 0 ? JSON.stringify({ email: `c${j}@bench.example`, phone: `+2547${String(j).padStart(8, '0')}` }) : null,
          metadata: '{}',
          return_url: null,
          payment_link: null,
          payment_method: 'card',
          amount_received: '11.607590',
          failure_code: null,
          last_payment_error: null,
          provider_reference: null,
          dispute: null,
          expires_at: paidAt + 1_800_000,
          created_at: paidAt - 60_000,
          paid_at: paidAt,
          cancelled_at: null,
          updated_at: paidAt,
        });
        settlements.push({
          id: `stl_${randomBase62(24)}`,
          merchant_id: merchantId,
          environment: 'test',
          payment_intent_id: id,
          status_before_dispute: null,
          asset: 'USDT',
          amount: '11.607590',
          status: 'available',
          available_at: paidAt,
          settled_at: paidAt,
          created_at: paidAt,
          updated_at: paidAt,
        });
      }
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto('payment_intents').values(intents).execute();
        await trx.insertInto('settlements').values(settlements).execute();
      });
    }
    // Fresh statistics after a bulk load, as PostgreSQL's autovacuum would gather shortly (SQLite's query
    // planner needs none here).
    if (databaseUrl.startsWith('postgres')) await sql`ANALYZE`.execute(database.db);
  } finally {
    await database.close();
  }
}
