// The newcomer's first start: the real server process, started as `npm start` starts it (`cowrie serve`, here
// from the TypeScript sources), on an empty database prints a demo merchant and its sandbox secret key once;
// that key works at once; SIGTERM shuts the server down cleanly; a second start, or two processes starting
// together, never make a second demo merchant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { seedDemoMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { spawnServer, type ServerProcess } from './helpers/server-process.js';

const KEY_RE = /cwk_test_sk_[0-9A-Za-z]{32,}/g;

type Proc = ServerProcess;
const started: Proc[] = [];

/** The real server process on its own free ports; every one started is stopped after the file. */
async function startServer(databaseUrl: string): Promise<Proc> {
  const proc = await spawnServer(databaseUrl);
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
      db = await createTestDatabase({ empty: true });
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

      // The banner names the payout senders: none on a first start without chain keys.
      expect(p.stdout()).toContain('Payouts:        no payout sender (set COWRIE_CHAIN_<NETWORK>_PAYOUT_KEY); payouts wait for one');
      // Beside the key: the console's URL, the demo owner's email and a generated password, which signs in.
      expect(p.stdout()).toContain(`console:               http://localhost:${p.sandboxPort}/console`);
      expect(p.stdout()).toContain('console owner:         owner@demo.cowrie.local');
      const password = /console password:\s+([A-Za-z0-9]{20})/.exec(p.stdout())?.[1];
      expect(password).toBeDefined();
      const signIn = await fetch(`http://127.0.0.1:${p.sandboxPort}/console/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: 'owner@demo.cowrie.local', password: password! }).toString(),
        redirect: 'manual',
      });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('set-cookie')).toMatch(/^cowrie_console=/);

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
      expect(p.stdout()).not.toMatch(/console password/);
      expect(await merchants(db.url)).toHaveLength(1);
      // The key printed on the first start still works.
      const verify = await get(p.sandboxPort, '/v1/auth/verify', demoKey);
      expect(verify.status).toBe(200);
      await stopGracefully(p);
      expect(await merchants(db.url)).toHaveLength(1);
    });
  });

  it('two processes starting together on an empty database make exactly one demo merchant', async () => {
    const db = await createTestDatabase({ empty: true });
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
    const db = await createTestDatabase({ empty: true });
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
