// The newcomer's first start (DECISIONS "Running it"): the real server process, started as `npm start`
// starts it (`cowrie serve`, here from the TypeScript sources), on an empty database prints a demo merchant
// and its sandbox secret key once; that key works at once; SIGTERM shuts the server down cleanly; a second
// start, or two processes starting together, never make a second demo merchant.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { seedDemoMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const KEY_RE = /cwk_test_sk_[0-9A-Za-z]{32,}/g;

/** Distinct ports that were free a moment ago (held together while chosen, so they differ). */
async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve());
      });
      ports.push((s.address() as AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

interface Proc {
  child: ChildProcessWithoutNullStreams;
  livePort: number;
  sandboxPort: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once both listeners logged that they listen. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const started: Proc[] = [];

async function startServer(databaseUrl: string): Promise<Proc> {
  const [livePort, sandboxPort] = (await freePorts(2)) as [number, number];
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COWRIE_')) env[k] = v;
  Object.assign(env, {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(livePort),
    COWRIE_SANDBOX_PORT: String(sandboxPort),
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { cwd: ROOT, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s: string) => (stderr += s));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    const listening = new Set<string>();
    const timer = setTimeout(() => reject(new Error(`server not ready after 30 s\n${stdout}\n${stderr}`)), 30_000);
    child.stdout.on('data', (s: string) => {
      stdout += s;
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const log = JSON.parse(line) as { msg?: string; environment?: string; port?: number };
          if (log.msg === 'listening' && log.environment) listening.add(`${log.environment}:${log.port}`);
        } catch {
          // a partial line; the rest comes with the next chunk
        }
      }
      if (listening.has(`live:${livePort}`) && listening.has(`test:${sandboxPort}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready\n${stdout}\n${stderr}`));
    });
  });
  ready.catch(() => {});
  const proc: Proc = { child, livePort, sandboxPort, stdout: () => stdout, stderr: () => stderr, ready, exited };
  started.push(proc);
  return proc;
}

/** SIGTERM, then the process must exit by itself with code 0, promptly. */
async function stopGracefully(p: Proc): Promise<void> {
  expect(p.child.exitCode, `exited early: ${p.stderr()}`).toBeNull();
  const t0 = Date.now();
  p.child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 10_000).unref());
  const result = await Promise.race([p.exited, timeout]);
  expect(result, `no exit within 10 s of SIGTERM\n${p.stderr()}`).not.toBe('timeout');
  expect(result, p.stderr()).toEqual({ code: 0, signal: null });
  expect(Date.now() - t0).toBeLessThan(5_000);
}

async function get(port: number, path: string, key: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, json: await res.json() };
}

async function merchants(url: string): Promise<Array<{ id: string; name: string }>> {
  const d = openDatabase(url);
  try {
    return await d.db.selectFrom('merchants').select(['id', 'name']).execute();
  } finally {
    await d.close();
  }
}

const bannerKeys = (p: Proc) => [...p.stdout().matchAll(KEY_RE)].map((m) => m[0]);

describe(`first start of the server process (${ENGINE})`, () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(started.map((p) => p.exited));
    for (const d of databases) await d.drop();
  });

  describe('on an empty database, then again', () => {
    let db: TestDatabase;
    let demoKey: string;
    beforeAll(async () => {
      db = await createTestDatabase();
      databases.push(db);
    });

    it('creates a demo merchant and prints its sandbox secret key, which works at once', async () => {
      const p = await startServer(db.url);
      await p.ready;
      const keys = bannerKeys(p);
      expect(keys.length, p.stdout()).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(1);
      demoKey = keys[0]!;

      const rows = await merchants(db.url);
      expect(rows).toHaveLength(1);
      expect(p.stdout()).toContain(rows[0]!.id);

      const verify = await get(p.sandboxPort, '/v1/auth/verify', demoKey);
      expect(verify.status, JSON.stringify(verify.json)).toBe(200);
      expect(verify.json).toMatchObject({
        object: 'auth_verification',
        livemode: false,
        environment: 'test',
        merchant_id: rows[0]!.id,
        key_type: 'secret',
        status: 'active',
      });

      const customers = await get(p.sandboxPort, '/v1/customers', demoKey);
      expect(customers.status, JSON.stringify(customers.json)).toBe(200);
      expect(customers.json).toMatchObject({ object: 'list', data: [], has_more: false });

      // The live listener is up too, and answers a sandbox key as the wrong environment.
      const onLive = await get(p.livePort, '/v1/auth/verify', demoKey);
      expect(onLive.status).toBe(400);
      expect(onLive.json.error.code).toBe('environment_mismatch');

      await stopGracefully(p);
    });

    it('a second start on the same database prints no banner and creates no second merchant', async () => {
      expect(demoKey).toBeDefined();
      const p = await startServer(db.url);
      await p.ready;
      expect(p.stdout()).not.toMatch(/cwk_(test|live)_/);
      expect(p.stdout()).not.toMatch(/demo merchant/i);
      expect(await merchants(db.url)).toHaveLength(1);
      // The key printed on the first start still works.
      const verify = await get(p.sandboxPort, '/v1/auth/verify', demoKey);
      expect(verify.status).toBe(200);
      await stopGracefully(p);
      expect(await merchants(db.url)).toHaveLength(1);
    });
  });

  it('two processes starting together on an empty database make exactly one demo merchant', async () => {
    const db = await createTestDatabase();
    databases.push(db);
    const [a, b] = await Promise.all([startServer(db.url), startServer(db.url)]);
    await Promise.all([a!.ready, b!.ready]);

    const rows = await merchants(db.url);
    expect(rows).toHaveLength(1);
    const printed = [...bannerKeys(a!), ...bannerKeys(b!)];
    expect(new Set(printed).size, `${a!.stdout()}\n${b!.stdout()}`).toBe(1);
    expect([bannerKeys(a!).length > 0, bannerKeys(b!).length > 0].filter(Boolean)).toHaveLength(1);

    // Both serve the one demo merchant.
    for (const p of [a!, b!]) {
      const verify = await get(p.sandboxPort, '/v1/auth/verify', printed[0]!);
      expect(verify.status).toBe(200);
      expect(verify.json.merchant_id).toBe(rows[0]!.id);
    }
    await Promise.all([stopGracefully(a!), stopGracefully(b!)]);
  }, 60_000);

  it('seeding from many connections at the same moment makes exactly one demo merchant', async () => {
    // Deterministic companion of the test above: the seeding calls overlap for certain. PostgreSQL gets one
    // pool per caller, as separate processes would have; SQLite shares one connection, as a process does.
    const db = await createTestDatabase();
    databases.push(db);
    const N = 6;
    const handles: Database[] = ENGINE === 'postgres' ? Array.from({ length: N }, () => openDatabase(db.url)) : [openDatabase(db.url)];
    try {
      await migrateToLatest(handles[0]!);
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) => seedDemoMerchant(handles[i % handles.length]!.db, systemClock)),
      );
      const created = results.filter((r) => r !== null);
      expect(created).toHaveLength(1);
      const rows = await merchants(db.url);
      expect(rows.map((r) => r.id)).toEqual([created[0]!.merchant.id]);
      expect(await seedDemoMerchant(handles[0]!.db, systemClock)).toBeNull();
    } finally {
      for (const h of handles) await h.close();
    }
  });
});
