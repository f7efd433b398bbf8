// Per-key rate limits: the budget, the 429 and its headers, independence of keys and environments, the reset,
// and — on PostgreSQL — one budget shared by several server processes, kept in PostgreSQL and, when
// COWRIE_TEST_REDIS_URL names a Redis server (CI sets it), in Redis (COWRIE_REDIS_URL).
import { sql } from 'kysely';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINE, startTestServer, type ApiResponse, type TestDatabase, type TestServer } from './helpers/harness.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey, createMerchant, type CreatedMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { spawnServer, type ServerProcess } from './helpers/server-process.js';

type Env = 'test' | 'live';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectRateLimited(r: ApiResponse, env: Env, limit: number, label: string): void {
  const where = `${label}: ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBe(429);
  const body = r.json;
  expect(Object.keys(body ?? {}).sort(), where).toEqual(['environment', 'error', 'livemode', 'request_id']);
  expect(body.error.code, where).toBe('rate_limit_exceeded');
  expect(body.error.type, where).toBe('rate_limit_error');
  expect(body.error.param, where).toBeNull();
  expect(body.error.message, where).toContain(String(limit));
  const requestId = r.headers.get('service-request-id');
  expect(requestId, where).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(body.request_id, where).toBe(requestId);
  expect(body.error.request_id, where).toBe(requestId);
  expect(body.environment, where).toBe(env);
  expect(body.livemode, where).toBe(env === 'live');
  expect(body.error.docs_url.endsWith('/docs/errors#rate_limit_exceeded'), where).toBe(true);
  const retryAfter = r.headers.get('retry-after');
  expect(retryAfter, where).toMatch(/^\d+$/);
  // The budget refills every second: at least 1 whole second, never a longer wait than the window.
  expect(Number(retryAfter), where).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter), where).toBeLessThanOrEqual(1);
  expect(r.headers.get('service-ratelimit-limit'), where).toBe(String(limit));
  expect(r.headers.get('service-ratelimit-remaining'), where).toBe('0');
  expect(r.headers.get('service-ratelimit-reset'), where).toMatch(/^[1-9]\d*$/);
  expect(r.headers.get('service-environment'), where).toBe(env);
}

function expectAllowed(r: ApiResponse, env: Env, limit: number, remaining: number | null, label: string): void {
  const where = `${label}: ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBe(200);
  expect(r.headers.get('service-ratelimit-limit'), where).toBe(String(limit));
  if (remaining !== null) expect(r.headers.get('service-ratelimit-remaining'), where).toBe(String(remaining));
  expect(r.headers.get('service-ratelimit-reset'), where).toMatch(/^\d+$/);
  expect(Number(r.headers.get('service-ratelimit-reset')), where).toBeLessThanOrEqual(1);
  expect(r.headers.get('service-environment'), where).toBe(env);
}

/**
 * Runs `fn` with a fresh key until one run fits inside a single one-second window (a fresh key's window
 * starts at its first request). A run that took longer proves nothing either way, so it is repeated.
 */
async function withinOneWindow<T>(newKey: () => Promise<string>, fn: (key: string) => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const key = await newKey();
    const started = performance.now();
    const result = await fn(key);
    if (performance.now() - started < 900) return result;
  }
  throw new Error('eight attempts each took longer than the one-second window; the machine is too slow to judge');
}

describe(`rate limits (${ENGINE})`, () => {
  let s: TestServer;
  let merchantId: string;
  const newKey = (env: Env) => async () => (await s.newKey({ merchantId, environment: env, type: 'secret' })).key;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_RATE_LIMIT_TEST: '5', COWRIE_RATE_LIMIT_LIVE: '8' } });
    merchantId = s.merchant.merchant.id;
  });
  afterAll(async () => s?.stop());

  it('the 6th sandbox request within a second: 429 rate_limit_exceeded with Retry-After', async () => {
    const results = await withinOneWindow(newKey('test'), async (key) => {
      const out: ApiResponse[] = [];
      for (let i = 0; i < 7; i++) out.push(await s.call('test', 'GET', '/auth/verify', { key }));
      // The budget is the key's, whatever the route.
      out.push(await s.call('test', 'GET', '/customers', { key }));
      return out;
    });
    for (let i = 0; i < 5; i++) expectAllowed(results[i]!, 'test', 5, 4 - i, `request ${i + 1}`);
    expectRateLimited(results[5]!, 'test', 5, 'request 6');
    expectRateLimited(results[6]!, 'test', 5, 'request 7');
    expectRateLimited(results[7]!, 'test', 5, 'GET /customers');
  });

  it('limits are per key: another key of the same merchant is unaffected', async () => {
    const other = await s.newKey({ merchantId, environment: 'test', type: 'restricted', scopes: ['customers:read'] });
    await withinOneWindow(newKey('test'), async (key) => {
      for (let i = 0; i < 5; i++) expectAllowed(await s.call('test', 'GET', '/auth/verify', { key }), 'test', 5, 4 - i, `#${i + 1}`);
      expectRateLimited(await s.call('test', 'GET', '/auth/verify', { key }), 'test', 5, 'exhausted key');
      const fresh = await s.call('test', 'GET', '/customers', { key: other.key });
      expectAllowed(fresh, 'test', 5, null, 'other key');
      expect(Number(fresh.headers.get('service-ratelimit-remaining'))).toBeGreaterThanOrEqual(4);
      expect((await s.call('test', 'GET', '/auth/verify', { key: s.merchant.keys.test_secret })).status).toBe(200);
      expectRateLimited(await s.call('test', 'GET', '/auth/verify', { key }), 'test', 5, 'still exhausted');
    });
  });

  it('after waiting Retry-After seconds the key works again with a full budget', async () => {
    const { key, retryAfter } = await withinOneWindow(newKey('test'), async (k) => {
      for (let i = 0; i < 5; i++) expect((await s.call('test', 'GET', '/auth/verify', { key: k })).status).toBe(200);
      const limited = await s.call('test', 'GET', '/auth/verify', { key: k });
      expectRateLimited(limited, 'test', 5, 'limited');
      return { key: k, retryAfter: Number(limited.headers.get('retry-after')) };
    });
    // The wait under test: a client waits what Retry-After says, in real time (the limiter's own clock).
    await sleep(retryAfter * 1000 + 50);
    expectAllowed(await s.call('test', 'GET', '/auth/verify', { key }), 'test', 5, 4, 'after the reset');
  });

  it('concurrent requests: exactly the budget succeeds', async () => {
    const results = await withinOneWindow(newKey('test'), (key) =>
      Promise.all(Array.from({ length: 12 }, () => s.call('test', 'GET', '/auth/verify', { key }))),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBe(5);
    expect(ok.map((r) => Number(r.headers.get('service-ratelimit-remaining'))).sort()).toEqual([0, 1, 2, 3, 4]);
    for (const r of results.filter((x) => x.status !== 200)) expectRateLimited(r, 'test', 5, 'concurrent');
  });

  it('the live limit is its own (8 a second) and exhausting it leaves sandbox keys alone', async () => {
    await withinOneWindow(newKey('live'), async (key) => {
      for (let i = 0; i < 8; i++) expectAllowed(await s.call('live', 'GET', '/auth/verify', { key }), 'live', 8, 7 - i, `live #${i + 1}`);
      expectRateLimited(await s.call('live', 'GET', '/auth/verify', { key }), 'live', 8, 'live #9');
      expectRateLimited(await s.call('live', 'GET', '/customers', { key }), 'live', 8, 'live #10');
      expectAllowed(await s.call('test', 'GET', '/auth/verify', { key: s.merchant.keys.test_secret }), 'test', 5, null, 'sandbox');
    });
  });

  it('publishable keys are metered too', async () => {
    const results = await withinOneWindow(
      async () => (await s.newKey({ merchantId, environment: 'test', type: 'publishable' })).key,
      async (key) => {
        const out: ApiResponse[] = [];
        for (let i = 0; i < 6; i++) out.push(await s.call('test', 'GET', '/auth/verify', { key }));
        return out;
      },
    );
    for (let i = 0; i < 5; i++) expectAllowed(results[i]!, 'test', 5, 4 - i, `pk #${i + 1}`);
    expectRateLimited(results[5]!, 'test', 5, 'pk #6');
  });
});

// When several server processes share a database, the limit holds across all of them.
const REDIS_URL = process.env['COWRIE_TEST_REDIS_URL'];
const SHARED_STORES: Array<{ store: string; env: Record<string, string>; skip: boolean }> = [
  { store: 'PostgreSQL', env: {}, skip: false },
  { store: 'Redis', env: REDIS_URL ? { COWRIE_REDIS_URL: REDIS_URL } : {}, skip: !REDIS_URL },
];
if (ENGINE === 'postgres' && !REDIS_URL)
  process.stdout.write('rate-limit.test.ts: the Redis store SKIPPED (set COWRIE_TEST_REDIS_URL=redis://…)\n');

describe.skipIf(ENGINE !== 'postgres').each(SHARED_STORES.filter((s) => !s.skip))(
  'rate limit shared by two server processes on one PostgreSQL, buckets in $store',
  ({ store, env: storeEnv }) => {
    const LIMIT = 10;
    let database: TestDatabase | null = null;
    let db: Database | null = null;
    let merchant: CreatedMerchant;
    const procs: Array<{ server: ServerProcess; base: string }> = [];

    async function startServer(url: string): Promise<void> {
      const server = await spawnServer(url, {
        COWRIE_RATE_LIMIT_TEST: String(LIMIT),
        COWRIE_RATE_LIMIT_LIVE: String(LIMIT),
        COWRIE_LOG_LEVEL: 'info',
        ...storeEnv,
      });
      procs.push({ server, base: `http://127.0.0.1:${server.sandboxPort}` });
      await server.ready;
    }

    async function verify(proc: { base: string }, key: string) {
      const r = await fetch(`${proc.base}/v1/auth/verify`, { headers: { authorization: `Bearer ${key}` } });
      const text = await r.text();
      return { status: r.status, headers: r.headers, text, json: JSON.parse(text) as any } satisfies ApiResponse;
    }

    const freshKey = async () =>
      (await createKey(db!.db, systemClock, { merchantId: merchant.merchant.id, environment: 'test', type: 'secret' })).key;

    beforeAll(async () => {
      database = await createTestDatabase();
      db = openDatabase(database.url);
      await migrateToLatest(db);
      merchant = await createMerchant(db.db, systemClock, { name: 'Shared-limit merchant' });
      await Promise.all([startServer(database.url), startServer(database.url)]);
      // Warm both processes up (module loading, first database connections) with a key of its own.
      for (const proc of procs) for (let i = 0; i < 3; i++) expect((await verify(proc, merchant.keys.test_secret)).status).toBe(200);
    });

    afterAll(async () => {
      await Promise.all(
        procs.map(
          ({ server: { child } }) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
              child.once('exit', () => {
                clearTimeout(kill);
                resolve();
              });
              child.kill('SIGTERM');
            }),
        ),
      );
      await db?.close();
      await database?.drop();
    });

    it('two processes are running on distinct ports', () => {
      expect(procs.length).toBe(2);
      expect(procs[0]!.base).not.toBe(procs[1]!.base);
    });

    it('requests alternating between the processes share one budget', async () => {
      const [a, b] = [procs[0]!, procs[1]!];
      const results = await withinOneWindow(freshKey, async (key) => {
        const out: ApiResponse[] = [];
        for (let i = 0; i < LIMIT + 2; i++) out.push(await verify(i % 2 === 0 ? a : b, key));
        return out;
      });
      // Each process saw only 6 of the 12 requests: limiting on its own it would have let them all through.
      for (let i = 0; i < LIMIT; i++) expectAllowed(results[i]!, 'test', LIMIT, LIMIT - 1 - i, `#${i + 1} on ${i % 2 ? 'B' : 'A'}`);
      expectRateLimited(results[LIMIT]!, 'test', LIMIT, 'A over the shared budget');
      expectRateLimited(results[LIMIT + 1]!, 'test', LIMIT, 'B over the shared budget');
    });

    it('a burst of 40 concurrent requests split across both processes: one budget of 10, not one per process', async () => {
      // A fresh key's budget starts with its first request. The burst is judged only when it fits in 800 ms:
      // then a limiter shared by both processes lets through 10 (plus at most the tokens a continuously
      // refilling bucket could regain meanwhile, 8 at the very most), while two limiters of their own would
      // let through 20.
      let elapsedMs = Infinity;
      let results: Array<ApiResponse & { proc: number }> = [];
      for (let attempt = 0; attempt < 8 && elapsedMs >= 800; attempt++) {
        const key = await freshKey();
        const started = performance.now();
        results = await Promise.all(Array.from({ length: 40 }, (_, i) => verify(procs[i % 2]!, key).then((r) => ({ ...r, proc: i % 2 }))));
        elapsedMs = performance.now() - started;
      }
      expect(elapsedMs, 'eight bursts each took 800 ms or more; the machine is too slow to judge').toBeLessThan(800);
      expect(
        results.every((r) => r.status === 200 || r.status === 429),
        results.map((r) => r.status).join(','),
      ).toBe(true);
      const ok = results.filter((r) => r.status === 200);
      const allowance = Math.ceil((LIMIT * elapsedMs) / 1000);
      expect(ok.length, `${ok.length} successes in ${Math.round(elapsedMs)} ms`).toBeGreaterThanOrEqual(LIMIT);
      expect(ok.length, `${ok.length} successes in ${Math.round(elapsedMs)} ms`).toBeLessThanOrEqual(LIMIT + allowance);
      expect(LIMIT + allowance).toBeLessThan(2 * LIMIT);
      for (const proc of [0, 1]) {
        const limited = results.filter((r) => r.proc === proc && r.status === 429);
        expect(limited.length, `process ${proc}`).toBeGreaterThan(0);
        for (const r of limited) expectRateLimited(r, 'test', LIMIT, `process ${proc}`);
      }
    });

    it.runIf(store === 'Redis')('the buckets are in Redis, not in the database', async () => {
      const redis = createClient({ url: REDIS_URL! });
      await redis.connect();
      try {
        const before = new Set(await redis.keys('cowrie:test:*'));
        const key = await freshKey();
        expect((await verify(procs[0]!, key)).status).toBe(200);
        const added = (await redis.keys('cowrie:test:*')).filter((k) => !before.has(k));
        expect(added.length, 'one new bucket in Redis').toBe(1);
        const rows = await sql<{
          n: number;
        }>`select count(*)::int as n from rate_limit_buckets where key like ${`%${added[0]!.slice('cowrie:test:'.length)}`}`.execute(
          db!.db,
        );
        expect(rows.rows[0]!.n, 'no bucket of that key in PostgreSQL').toBe(0);
      } finally {
        await redis.close();
      }
    });

    it('after the reset both processes serve the key again', async () => {
      const { key, retryAfter } = await withinOneWindow(freshKey, async (k) => {
        for (let i = 0; i < LIMIT; i++) expect((await verify(procs[i % 2]!, k)).status).toBe(200);
        const limited = await verify(procs[0]!, k);
        expectRateLimited(limited, 'test', LIMIT, 'exhausted');
        return { key: k, retryAfter: Number(limited.headers.get('retry-after')) };
      });
      // The wait under test: a client waits what Retry-After says, in real time (the limiter's own clock).
      await sleep(retryAfter * 1000 + 50);
      expectAllowed(await verify(procs[1]!, key), 'test', LIMIT, LIMIT - 1, 'B after the reset');
      expectAllowed(await verify(procs[0]!, key), 'test', LIMIT, LIMIT - 2, 'A after the reset');
    });
  },
);
