// Test harness: a real server (both listeners on ephemeral ports) over a fresh database of the engine
// under test — a new SQLite file, or a new PostgreSQL database dropped afterwards, each cloned from a migrated
// template.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.js';
import { startCowrie, type Running } from '../../src/main.js';
import { createKey, createMerchant, type CreatedMerchant } from '../../src/modules/merchants/index.js';
import type { IssuedKey } from '../../src/modules/keys/index.js';
import { randomBase62 } from '../../src/shared/ids.js';
import type { Clock } from '../../src/shared/clock.js';
import { LiveStandInRail } from './live-rail.js';
import { TEST_SERVER_ENV } from './test-env.js';
import { requestLogSerializers } from '../../src/http/request-log.js';
import { logMixin } from '../../src/shared/log-context.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINE: Engine = process.env['COWRIE_TEST_ENGINE'] === 'postgres' ? 'postgres' : 'sqlite';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database of the engine under test, of its own (drop() removes it). By default a clone of the
 * migrated template that test/global-setup.ts made once per run (a file copy on SQLite, `CREATE DATABASE …
 * TEMPLATE` on PostgreSQL); `{ empty: true }` for a database no migration has touched.
 */
export async function createTestDatabase(opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  // Files share a worker's modules (vitest.config.ts): a worker never serves both projects, which this checks.
  if ((process.env['COWRIE_TEST_ENGINE'] ?? 'sqlite') !== ENGINE) throw new Error(`a ${ENGINE} worker runs a file of another engine`);
  const template = opts.empty ? null : inject('migratedTemplate');
  if (ENGINE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cowrie-test-'));
    const path = join(dir, 'cowrie.db');
    if (template) {
      const from = template.slice('sqlite:'.length);
      copyFileSync(from, path);
      if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${path}-wal`);
    }
    return { url: `sqlite:${path}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = process.env['COWRIE_TEST_DATABASE_URL'];
  if (!admin) throw new Error('COWRIE_TEST_DATABASE_URL is not set');
  const name = `cowrie_t_${randomBase62(12).toLowerCase()}`;
  const templateName = template ? new URL(template).pathname.slice(1) : null;
  await adminQuery(admin, templateName ? `CREATE DATABASE ${name} TEMPLATE ${templateName}` : `CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function adminQuery(admin: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestServer {
  running: Running;
  config: Config;
  /** Lines the server logged (JSON objects). */
  logs: Array<Record<string, unknown>>;
  url(env: 'live' | 'test', path?: string): string;
  call<T = any>(env: 'live' | 'test', method: string, path: string, opts?: CallOptions): Promise<ApiResponse<T>>;
  /** Shortcut: sandbox call with the default merchant's sandbox secret key. */
  sandbox<T = any>(method: string, path: string, opts?: CallOptions): Promise<ApiResponse<T>>;
  newMerchant(opts?: { verified?: boolean; name?: string }): Promise<CreatedMerchant>;
  newKey(input: Parameters<typeof createKey>[2]): Promise<IssuedKey>;
  merchant: CreatedMerchant;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Use this database instead of a fresh one (not dropped by stop()). */
  databaseUrl?: string;
  /** Register extra routes on the app before it starts (test-only faults). */
  configureApp?: (app: FastifyInstance) => void | Promise<void>;
  /** Leave the live environment without rails, as a fresh install is (default: a stand-in carries every method). */
  noLiveRails?: boolean;
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const database = opts.databaseUrl ? null : await createTestDatabase();
  const config = loadConfig({
    COWRIE_DATABASE_URL: opts.databaseUrl ?? database!.url,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: '0',
    COWRIE_SANDBOX_PORT: '0',
    COWRIE_LOG_LEVEL: 'info',
    COWRIE_RATE_LIMIT_LIVE: '100000',
    COWRIE_RATE_LIMIT_TEST: '100000',
    COWRIE_METRICS_PORT: '0',
    ...TEST_SERVER_ENV,
    ...opts.env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino(
    // As the server's own logger (src/main.ts createLogger): role and pid on every line, the request id by the mixin.
    { level: config.logLevel, base: { pid: process.pid, role: config.role }, mixin: logMixin, serializers: requestLogSerializers },
    new Writable({
      write(chunk, _enc, cb) {
        for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
        cb();
      },
    }),
  );
  const running = await startCowrie(config, { logger, clock: opts.clock, seedDemo: false, configureApp: opts.configureApp });
  if (!opts.noLiveRails) running.services.rails.register('live', new LiveStandInRail());
  const livePort = running.listeners.portOf('live');
  const testPort = running.listeners.portOf('test');
  const url = (env: 'live' | 'test', path = '') => `http://127.0.0.1:${env === 'live' ? livePort : testPort}${path}`;

  const call = async <T>(env: 'live' | 'test', method: string, path: string, o: CallOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers['authorization'] = `Bearer ${o.key}`;
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) body = o.raw;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url(env, path.startsWith('/v1') || path.startsWith('/docs') ? path : `/v1${path}`), {
      method,
      headers,
      // A copy as a plain Uint8Array: the DOM's fetch types (which the pages' JSX types bring) take no Buffer.
      body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body),
    });
    const text = await res.text();
    let json: any = undefined;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };

  const clock = running.clock;
  const merchant = await createMerchant(running.database.db, clock, { name: 'Test merchant', verified: true });
  return {
    running,
    config,
    logs,
    url,
    call,
    sandbox: (method, path, o = {}) => call('test', method, path, { key: merchant.keys.test_secret, ...o }),
    newMerchant: (o = {}) =>
      createMerchant(running.database.db, clock, { name: o.name ?? 'Another merchant', verified: o.verified ?? false }),
    newKey: (input) => createKey(running.database.db, clock, input),
    merchant,
    async stop() {
      await running.stop();
      await database?.drop();
    },
  };
}
