// Leases (src/db/leases.ts): one holder at a time among every process sharing the database; a lease that
// runs out is taken over; a holder renews its own and lets go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { Lease } from '../src/db/leases.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { ManualClock } from '../src/shared/clock.js';
import { ENGINE, createTestDatabase, type TestDatabase } from './helpers/harness.js';

describe(`leases (${ENGINE})`, () => {
  let tdb: TestDatabase;
  let d: Database;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    d = openDatabase(tdb.url);
    await migrateToLatest(d);
  });
  afterAll(async () => {
    await d.close();
    await tdb.drop();
  });

  it('one holder at a time; the holder renews; another takes over only once it has run out', async () => {
    const clock = new ManualClock();
    const a = new Lease(d.db, 'watch:base', 'holder-a', 10_000, clock);
    const b = new Lease(d.db, 'watch:base', 'holder-b', 10_000, clock);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    clock.advance(9_000);
    expect(await a.acquire()).toBe(true); // renewed until 19 s
    clock.advance(9_000);
    expect(await b.acquire()).toBe(false);
    clock.advance(1_000);
    expect(await b.acquire()).toBe(true);
    expect(await a.acquire()).toBe(false);
  });

  it('a release frees it at once, and only the holder can release', async () => {
    const clock = new ManualClock();
    const a = new Lease(d.db, 'watch:polygon', 'holder-a', 60_000, clock);
    const b = new Lease(d.db, 'watch:polygon', 'holder-b', 60_000, clock);
    expect(await a.acquire()).toBe(true);
    await b.release();
    expect(await b.acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
  });

  it('of many contenders at the same moment exactly one wins', async () => {
    const clock = new ManualClock();
    const contenders = Array.from({ length: 20 }, (_, i) => new Lease(d.db, 'watch:tron', `holder-${i}`, 60_000, clock));
    const won = await Promise.all(contenders.map((l) => l.acquire()));
    expect(won.filter(Boolean)).toHaveLength(1);
  });
});
