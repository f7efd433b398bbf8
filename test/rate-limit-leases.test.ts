// The shared rate limit's leases (src/http/rate-limit-leases.ts): processes lease tokens from the shared
// store ahead of need. Here two limiters (two processes) share a fixed-window store kept in memory, the
// store's contract as rate-limiter-flexible's PostgreSQL store keeps it (every consume counted, refused
// ones included; the window starts at a key's first consume); test/rate-limit.test.ts and the process
// test below run the real store on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_SHARE, leasedLimiter, type RateDecision, type StoreConsume } from '../src/http/rate-limit-leases.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createKey, createMerchant, type CreatedMerchant } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { spawnServer, type ServerProcess } from './helpers/server-process.js';

/** A fixed one-second window per key, every consume counted; `calls` counts the round trips. */
function memoryStore(): StoreConsume & { calls: number } {
  const windows = new Map<string, { consumed: number; end: number }>();
  const store = Object.assign(
    async (key: string, points: number) => {
      store.calls++;
      await new Promise((r) => setImmediate(r));
      const now = Date.now();
      let w = windows.get(key);
      if (!w || w.end <= now) {
        w = { consumed: 0, end: now + 1000 };
        windows.set(key, w);
      }
      w.consumed += points;
      return { consumed: w.consumed, msBeforeNext: w.end - now };
    },
    { calls: 0 },
  );
  return store;
}

describe('rate-limit leases', () => {
  it('a key used slowly, or with a small limit, is consumed request by request: exact across processes', async () => {
    const store = memoryStore();
    const [a, b] = [leasedLimiter(() => 10, store), leasedLimiter(() => 10, store)];
    const out: RateDecision[] = [];
    for (let i = 0; i < 12; i++) out.push(await (i % 2 === 0 ? a : b)('test:k'));
    expect(out.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false, false]);
    expect(out.slice(0, 10).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // The 10th answer (on b) said the window is spent: b refused the 12th without asking; a asked for the 11th.
    expect(store.calls).toBe(11);
    expect((await a('test:k')).allowed).toBe(false);
    expect((await b('test:k')).allowed).toBe(false);
    expect(store.calls).toBe(11);
  });

  it('requests that arrive together are consumed together: exactly the budget, remaining counting down', async () => {
    const store = memoryStore();
    const limiter = leasedLimiter(() => 5, store);
    const out = await Promise.all(Array.from({ length: 12 }, () => limiter('test:k')));
    expect(out.filter((d) => d.allowed).map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(store.calls).toBe(1);
  });

  it('a store that answers out of order never makes remaining repeat: one lease is in flight at a time', async () => {
    // The store counts each consume when it arrives but answers the first one last (as a busy database may).
    const inner = memoryStore();
    const delays = [40, 0, 0];
    const store: StoreConsume = async (key, points) => {
      const answer = await inner(key, points);
      await new Promise((r) => setTimeout(r, delays.shift() ?? 0));
      return answer;
    };
    const limiter = leasedLimiter(() => 5, store);
    const first = [limiter('test:k'), limiter('test:k')];
    await new Promise((r) => setTimeout(r, 5));
    const later = [limiter('test:k'), limiter('test:k'), limiter('test:k'), limiter('test:k')];
    const out = await Promise.all([...first, ...later]);
    const remaining = out.filter((d) => d.allowed).map((d) => d.remaining);
    expect(remaining).toHaveLength(5);
    expect(new Set(remaining).size, `remaining ${remaining.join(',')}`).toBe(5);
  });

  it('a busy key costs a round trip per lease, not per request, and two processes never admit more than the limit', async () => {
    const limit = 4000;
    const store = memoryStore();
    const limiters = [leasedLimiter(() => limit, store), leasedLimiter(() => limit, store)];
    let allowed = 0;
    let sent = 0;
    const started = Date.now();
    // Both processes serve the key as fast as they can, in rounds of 8 requests each, until the limit is
    // spent; judged only within the first window.
    while (sent < 2 * limit && Date.now() - started < 800) {
      const round = await Promise.all(limiters.flatMap((l) => Array.from({ length: 8 }, () => l('test:busy'))));
      sent += round.length;
      allowed += round.filter((d) => d.allowed).length;
    }
    expect(Date.now() - started, 'the machine is too slow to judge within one window').toBeLessThan(1000);
    expect(allowed).toBeLessThanOrEqual(limit);
    if (sent >= 2 * limit) {
      // What leases can cost: at most one lease per process left unspent.
      expect(allowed).toBeGreaterThanOrEqual(limit - 2 * Math.floor(limit * LEASE_SHARE));
    }
    expect(store.calls, `${store.calls} round trips for ${sent} requests`).toBeLessThan(sent / 10);
  });
});

// Two real server processes on one PostgreSQL database, a key with a limit large enough to lease.
describe.skipIf(ENGINE !== 'postgres')('rate-limit leases across two server processes on one PostgreSQL', () => {
  const LIMIT = 160;
  let database: TestDatabase | null = null;
  let db: Database | null = null;
  let merchant: CreatedMerchant;
  const procs: Array<{ server: ServerProcess; base: string }> = [];

  async function startServer(url: string): Promise<void> {
    const server = await spawnServer(url, { COWRIE_RATE_LIMIT_TEST: String(LIMIT), COWRIE_LOG_LEVEL: 'info' });
    procs.push({ server, base: `http://127.0.0.1:${server.sandboxPort}` });
    await server.ready;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    db = openDatabase(database.url);
    await migrateToLatest(db);
    merchant = await createMerchant(db.db, systemClock, { name: 'Leased-limit merchant' });
    await Promise.all([startServer(database.url), startServer(database.url)]);
  });

  afterAll(async () => {
    for (const { server } of procs) server.child.kill('SIGTERM');
    await Promise.all(procs.map(({ server }) => server.exited));
    await db?.close();
    await database?.drop();
  });

  it(`a burst of ${3 * LIMIT} requests split across both processes admits at most the limit of ${LIMIT}`, async () => {
    let elapsedMs = Infinity;
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 8 && elapsedMs >= 800; attempt++) {
      const { key } = await createKey(db!.db, systemClock, { merchantId: merchant.merchant.id, environment: 'test', type: 'secret' });
      // A fresh key: the processes learn its pace from the burst itself, lease by lease.
      const started = performance.now();
      statuses = await Promise.all(
        Array.from({ length: 3 * LIMIT }, (_, i) =>
          fetch(`${procs[i % 2]!.base}/v1/auth/verify`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      elapsedMs = performance.now() - started;
    }
    expect(elapsedMs, 'eight bursts each took 800 ms or more; the machine is too slow to judge').toBeLessThan(800);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeLessThanOrEqual(LIMIT);
    expect(ok).toBeGreaterThanOrEqual(LIMIT - 2 * Math.floor(LIMIT * LEASE_SHARE));
  });
});
