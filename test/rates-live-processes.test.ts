// Live reference prices in two real server processes on one PostgreSQL database: one process fetches (it
// holds the `rates-refresh` lease), the other only reads; both answer the same prices
// and updated_at, and a new price reaches both; when the fetching process dies, the other takes the lease
// over and fetches. SQLite serves one process, so this runs on PostgreSQL only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RatesPeer } from '../peers/rates/peer.js';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { liveRatesEnv, startRatesPeers } from './helpers/rates.js';
import { api, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

const FETCHED = '"msg":"reference prices refreshed"';

describe.skipIf(ENGINE !== 'postgres')('live reference prices in two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let peer: RatesPeer;
  const procs: ServerProcess[] = [];
  let key = '';

  const fetchedBy = (p: ServerProcess) =>
    p
      .stdout()
      .split('\n')
      .filter((l) => l.includes(FETCHED)).length;
  const usdtKes = async (p: ServerProcess) => {
    const r = await api(p.sandboxPort, key, 'GET', '/rates');
    const usdt = (r.json.data as Array<{ asset: string; prices: Record<string, string>; updated_at: string }>).find(
      (d) => d.asset === 'USDT',
    );
    return usdt ? `${usdt.prices['KES']} at ${usdt.updated_at}` : 'none';
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    [peer] = (await startRatesPeers(1)) as [RatesPeer];
    const env = { ...liveRatesEnv([peer]), COWRIE_ROLE: 'all' };
    const first = await spawnServer(db.url, env);
    procs.push(first);
    await first.ready;
    key = first.demoKey()!;
    const second = await spawnServer(db.url, env);
    procs.push(second);
    await second.ready;
  });
  afterAll(async () => {
    for (const p of procs) await killHard(p);
    await peer?.close();
    await db?.drop();
  });

  it('one process fetches, the other reads; both answer the same prices, and a new price reaches both', async () => {
    peer.setPrice('USDT', 'KES', '128.5');
    const [a, b] = procs as [ServerProcess, ServerProcess];
    await waitFor(
      'both processes to show 128.5',
      async () => [await usdtKes(a), await usdtKes(b)],
      ([x, y]) => x === y && x!.startsWith('128.5 at'),
    );
    // Several refreshes later, still one process fetching: the one holding the lease.
    await waitFor(
      'three more refreshes',
      () => [fetchedBy(a), fetchedBy(b)],
      ([x, y]) => x! + y! >= 3,
    );
    const fetchers = [a, b].filter((p) => fetchedBy(p) > 0);
    expect(fetchers.length).toBe(1);
    const holder = await holderOf(db.url);
    expect(holder).toContain(`:${fetchers[0]!.child.pid}:`);

    peer.setPrice('USDT', 'KES', '128.75');
    await waitFor(
      'both processes to show 128.75 with the same updated_at',
      async () => [await usdtKes(a), await usdtKes(b)],
      ([x, y]) => x === y && x!.startsWith('128.75 at'),
    );
  });

  it('when the fetching process dies, the other takes the lease over and fetches', { timeout: 60_000 }, async () => {
    const fetcher = procs.find((p) => fetchedBy(p) > 0)!;
    const reader = procs.find((p) => p !== fetcher)!;
    expect(fetchedBy(reader)).toBe(0);
    await killHard(fetcher);
    peer.setPrice('USDT', 'KES', '127.25');
    // The lease runs out two refreshes and 10 s after its last renewal.
    await waitFor(
      'the other process to fetch',
      () => fetchedBy(reader),
      (n) => n > 0,
      { timeoutMs: 30_000 },
    );
    await waitFor(
      'the new price',
      () => usdtKes(reader),
      (x) => x.startsWith('127.25 at'),
    );
  });
});

/** Who holds the refresh lease, read from the database. */
async function holderOf(url: string): Promise<string | undefined> {
  const database = openDatabase(url, { poolSize: 1 });
  try {
    const row = await database.db.selectFrom('leases').select('holder').where('name', '=', 'rates-refresh').executeTakeFirst();
    return row?.holder;
  } finally {
    await database.close();
  }
}
