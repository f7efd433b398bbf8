// The database layer under the services: the batcher (coalescing and group commit), statements compiled
// once per shape, transactions sent as one message, reads outside a transaction, and ids. On SQLite the
// writes go through the writer thread and reads through the request thread's connection, so these are
// also the tests of that split.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batcher } from '../src/db/batcher.js';
import { insertStatement, prepared, preparedShapes } from '../src/db/prepared.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { forUpdate, isUniqueViolation } from '../src/db/dialect.js';
import { WriteBatch, runAtomic } from '../src/db/transaction.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { newId, timeBase62 } from '../src/shared/ids.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('batcher', () => {
  it('answers the calls of one event-loop turn with one batch, each with its own value', async () => {
    const batches: number[][] = [];
    const double = batcher<number, number>(
      async (keys) => {
        batches.push([...keys]);
        return keys.map((k) => k * 2);
      },
      { maxBatchSize: 10 },
    );
    expect(await Promise.all([1, 2, 3].map(double))).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('splits at maxBatchSize', async () => {
    const batches: number[][] = [];
    const echo = batcher<number, number>(
      async (keys) => {
        batches.push([...keys]);
        return keys;
      },
      { maxBatchSize: 2 },
    );
    await Promise.all([1, 2, 3, 4, 5].map(echo));
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('with maxRunning, calls made while batches run wait and go together in the next batch', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batches: number[][] = [];
    const echo = batcher<number, number>(
      async (keys) => {
        batches.push([...keys]);
        if (batches.length === 1) await gate;
        return keys;
      },
      { maxBatchSize: 100, maxRunning: 1 },
    );
    const first = echo(1);
    await turn();
    const later = [echo(2), echo(3)];
    await turn();
    await turn();
    const more = echo(4);
    await turn();
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all([first, ...later, more])).toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('an Error answered for one call rejects that call only; a failed batch rejects all of its calls', async () => {
    const check = batcher<number, number>(async (keys) => keys.map((k) => (k < 0 ? new Error(`negative ${k}`) : k)), { maxBatchSize: 10 });
    const results = await Promise.allSettled([check(1), check(-2), check(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('negative -2');

    const broken = batcher<number, number>(async () => Promise.reject(new Error('down')), { maxBatchSize: 10 });
    const all = await Promise.allSettled([broken(1), broken(2)]);
    expect(all.every((r) => r.status === 'rejected' && r.reason.message === 'down')).toBe(true);
  });
});

describe('ids', () => {
  it('are the kind prefix, 8 base62 digits of the creation time and 16 random base62 characters', async () => {
    const a = newId('payment_intent');
    expect(a).toMatch(/^pi_[0-9A-Za-z]{24}$/);
    const madeAt = Date.now();
    const before = timeBase62(madeAt - 1);
    // The next id is made in a later millisecond: its time part alone orders it after the first.
    await waitFor(
      'a later millisecond',
      () => Date.now(),
      (now) => now > madeAt,
      { intervalMs: 1 },
    );
    const b = newId('payment_intent');
    const after = timeBase62(Date.now() + 1);
    // Later ids sort after earlier ones (byte order), and the time part is the creation time.
    expect(b > a).toBe(true);
    expect(b.slice(3, 11) >= before && b.slice(3, 11) <= after).toBe(true);
    // The random parts differ.
    const many = new Set(Array.from({ length: 2000 }, () => newId('event').slice(12)));
    expect(many.size).toBe(2000);
  });

  it('time digits keep numeric order across digit carries', () => {
    const times = [0, 61, 62, 3843, 3844, Date.UTC(2026, 0, 1), Date.UTC(2099, 11, 31)];
    const texts = times.map(timeBase62);
    expect([...texts].sort()).toEqual(texts);
    expect(texts.every((t) => t.length === 8)).toBe(true);
  });
});

describe(`database layer (${ENGINE})`, () => {
  let tdb: TestDatabase;
  let d: Database;
  let db: Kysely<DB>;
  const merchant = (id: string) => ({
    id,
    name: `Merchant ${id}`,
    kyb_status: 'verified' as const,
    status: 'active' as const,
    limit_per_payment: null,
    limit_daily: null,
    limit_monthly: null,
    created_at: 0,
  });
  const countMerchants = async (...ids: string[]) =>
    Number(
      (
        await db
          .selectFrom('merchants')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('id', 'in', ids)
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    tdb = await createTestDatabase();
    d = openDatabase(tdb.url);
    db = d.db;
    await migrateToLatest(d);
  });
  afterAll(async () => {
    await d.close();
    await tdb.drop();
  });

  it('runAtomic: every statement or none, and a unique violation keeps its code', async () => {
    const a = newId('merchant');
    const b = newId('merchant');
    const err = await runAtomic(
      db,
      new WriteBatch()
        .add(insertStatement(db, 'merchants', [merchant(a)]))
        .add(insertStatement(db, 'merchants', [merchant(b)]))
        .add(insertStatement(db, 'merchants', [merchant(a)])),
    ).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(await countMerchants(a, b)).toBe(0);

    const results = await runAtomic(
      db,
      new WriteBatch()
        .add(insertStatement(db, 'merchants', [merchant(a)]))
        .add(db.selectFrom('merchants').select('id').where('id', '=', a).compile()),
    );
    expect(results).toHaveLength(2);
    expect(Number(results[0]!.numAffectedRows)).toBe(1);
    expect(results[1]!.rows).toEqual([{ id: a }]);
    // The connection is free again: the next transaction runs.
    await db.transaction().execute((trx) => trx.updateTable('merchants').set({ name: 'renamed' }).where('id', '=', a).execute());
    expect((await db.selectFrom('merchants').select('name').where('id', '=', a).executeTakeFirstOrThrow()).name).toBe('renamed');
  });

  it('a read outside a transaction sees what is committed, never what an open transaction wrote', async () => {
    const id = newId('merchant');
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('merchants').values(merchant(id)).execute();
      expect(await trx.selectFrom('merchants').select('id').where('id', '=', id).execute()).toHaveLength(1);
      expect(await db.selectFrom('merchants').select('id').where('id', '=', id).execute()).toHaveLength(0);
    });
    expect(await countMerchants(id)).toBe(1);
  });

  it('a failed transaction leaves nothing behind and the next one runs', async () => {
    const id = newId('merchant');
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('merchants').values(merchant(id)).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await countMerchants(id)).toBe(0);
    await db.insertInto('merchants').values(merchant(id)).execute();
    expect(await countMerchants(id)).toBe(1);
  });

  it('20 concurrent read-then-write transactions lose no update', async () => {
    const id = newId('merchant');
    await db
      .insertInto('merchants')
      .values({ ...merchant(id), created_at: 0 })
      .execute();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction().execute(async (trx) => {
          const row = await forUpdate(trx, trx.selectFrom('merchants').select('created_at').where('id', '=', id)).executeTakeFirstOrThrow();
          await trx
            .updateTable('merchants')
            .set({ created_at: Number(row.created_at) + 1 })
            .where('id', '=', id)
            .execute();
        }),
      ),
    );
    expect(Number((await db.selectFrom('merchants').select('created_at').where('id', '=', id).executeTakeFirstOrThrow()).created_at)).toBe(
      20,
    );
  });

  it('a statement that begins WITH but writes (WITH ... UPDATE), outside any transaction, writes', async () => {
    const id = newId('merchant');
    await db.insertInto('merchants').values(merchant(id)).execute();
    await sql`with v(id, name) as (values (${id}, 'Renamed')) update merchants set name = v.name from v where merchants.id = v.id`.execute(
      db,
    );
    expect((await db.selectFrom('merchants').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name).toBe('Renamed');
  });

  it('a table created by one statement is readable at once, outside any transaction', async () => {
    const table = `probe_${Date.now()}`;
    await sql`create table ${sql.table(table)} (id integer primary key)`.execute(db);
    await sql`insert into ${sql.table(table)} (id) values (7)`.execute(db);
    const { rows } = await sql<{ id: number }>`select id from ${sql.table(table)}`.execute(db);
    expect(rows.map((r) => Number(r.id))).toEqual([7]);
    await sql`drop table ${sql.table(table)}`.execute(db);
  });

  it("statements of one shape are compiled once and bind each call's own values; a builder that looks at a value is never cached", async () => {
    const one = [merchant(newId('merchant'))];
    const two = [merchant(newId('merchant')), merchant(newId('merchant'))];
    await db.executeQuery(insertStatement(db, 'merchants', one));
    await db.executeQuery(insertStatement(db, 'merchants', two));
    const third = merchant(newId('merchant'));
    await db.executeQuery(insertStatement(db, 'merchants', [third]));
    const shapes = preparedShapes();
    expect(shapes.cached.filter((k) => k.includes(':insert:merchants:'))).toHaveLength(2);
    // The cached text bound the third call's own row, not the first's.
    expect(await db.selectFrom('merchants').select(['id', 'name']).where('id', '=', third.id).executeTakeFirst()).toEqual({
      id: third.id,
      name: third.name,
    });
    expect(await countMerchants(one[0]!.id, third.id)).toBe(2);

    // The SQL depends on a value (another column for a merchant id than for any other text): the two compiles of the first call
    // disagree, the shape is refused for good, and every call still runs its own statement.
    const byId = prepared('test:value-dependent', (q, id: string) =>
      q
        .selectFrom('merchants')
        .select(id.startsWith('mer_') ? 'id' : 'name')
        .where('id', '=', id),
    );
    const id = newId('merchant');
    await db.insertInto('merchants').values(merchant(id)).execute();
    expect((await db.executeQuery(byId(db, id))).rows).toHaveLength(1);
    expect((await db.executeQuery(byId(db, id))).rows).toHaveLength(1);
    expect(preparedShapes().uncachable.some((k) => k.includes(':test:value-dependent:'))).toBe(true);
  });

  it.runIf(ENGINE === 'postgres')("a fixed pool opens all its connections at fill, and a command's pool only those it uses", async () => {
    const sessions = async (probe: Database) =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`.execute(
            probe.db,
          )
        ).rows[0]!.n,
      );
    const fixed = openDatabase(tdb.url, { poolSize: 4, fixedPool: true });
    const onDemand = openDatabase(tdb.url, { poolSize: 4 });
    try {
      const before = await sessions(d);
      await onDemand.fill();
      expect(onDemand.pool!.totalCount).toBe(0);
      await fixed.fill();
      expect(fixed.pool!.totalCount).toBe(4);
      expect(fixed.pool!.idleCount).toBe(4);
      expect(await sessions(d)).toBe(before + 4);
      // Filling again opens nothing more.
      await fixed.fill();
      expect(fixed.pool!.totalCount).toBe(4);
    } finally {
      await fixed.close();
      await onDemand.close();
    }
  });
});
