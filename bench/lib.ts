// What every benchmark script shares: starting and stopping a server process, and a throw-away
// PostgreSQL database.
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { randomBase62 } from '../src/shared/ids.js';

export const PG_ADMIN =
  process.env['COWRIE_BENCH_DATABASE_URL'] ?? process.env['COWRIE_TEST_DATABASE_URL'] ?? 'postgres://root@127.0.0.1:5432/test';

export interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Spawns `node <args>` and resolves once its output (stdout and stderr) satisfies `ready`. */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: (output: string) => boolean,
  timeoutMs = 30_000,
): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), timeoutMs);
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
