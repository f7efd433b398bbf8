// Every difference between SQLite and PostgreSQL lives here. Queries elsewhere are written once.
import { CompiledQuery, PostgresAdapter, sql, type Expression, type QueryResult, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export function engineOf(db: Kysely<DB> | Transaction<DB>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Row lock for a read inside a transaction. PostgreSQL takes FOR UPDATE; SQLite needs nothing because a
 * connection holds the whole database while its transaction writes, and this process has one connection.
 */
export function forUpdate<O>(trx: Transaction<DB>, qb: SelectQueryBuilder<DB, keyof DB, O>): SelectQueryBuilder<DB, keyof DB, O> {
  return engineOf(trx) === 'postgres' ? qb.forUpdate() : qb;
}

/**
 * The keyset condition "(time, id) comes before (at, atId)" for a list ordered newest first. Each engine
 * gets the form its planner turns into an index range, so that a page deep in a list reads only its own
 * rows: PostgreSQL bounds an index scan by a row comparison but only filters an OR; SQLite bounds it by
 * the OR and scans from the top of the range for a row comparison.
 */
export function keysetBefore(
  engine: Engine,
  time: string,
  id: string,
  at: number,
  atId: string,
): (eb: ExpressionBuilder<any, any>) => Expression<SqlBool> {
  return engine === 'postgres'
    ? (eb) => eb(eb.refTuple(time, id), '<', eb.tuple(at, atId))
    : (eb) => eb.or([eb(time, '<', at), eb.and([eb(time, '=', at), eb(id, '<', atId)])]);
}

/** Column type for a big integer (times in ms, counts). */
export function bigintType(engine: Engine): 'bigint' | 'integer' {
  return engine === 'postgres' ? 'bigint' : 'integer';
}

/** Column type for an exact decimal amount: numeric on PostgreSQL, text on SQLite (summed in decimal.js). */
export function decimalType(engine: Engine): RawBuilder<unknown> {
  return engine === 'postgres' ? sql`numeric(38, 18)` : sql`text`;
}

/** True when the error is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Adds an auto-incrementing integer primary key column named `name`. */
export function addSerialPrimaryKey<T extends { addColumn: (...args: any[]) => T }>(table: T, engine: Engine, name: string): T {
  return engine === 'postgres'
    ? table.addColumn(name, 'bigserial', (c: any) => c.primaryKey())
    : table.addColumn(name, 'integer', (c: any) => c.primaryKey().autoIncrement());
}

/**
 * Row locks for a claim: FOR UPDATE SKIP LOCKED on PostgreSQL, so concurrent workers take disjoint rows.
 * SQLite needs nothing: the claim is one UPDATE statement and SQLite runs one writer at a time.
 */
export function skipLocked<O>(engine: Engine, qb: SelectQueryBuilder<DB, any, O>): SelectQueryBuilder<DB, any, O> {
  return engine === 'postgres' ? qb.forUpdate().skipLocked() : qb;
}

/** Default of `events.txid`: the writing transaction's id on PostgreSQL; 0 on SQLite (writes are serialized). */
export function currentTxidDefault(engine: Engine): RawBuilder<unknown> {
  return engine === 'postgres' ? sql`(pg_current_xact_id()::text::bigint)` : sql`0`;
}

/**
 * The oldest transaction id still in flight (PostgreSQL): every row whose txid is below it was written by
 * a transaction that has finished, so no row with a smaller txid can appear later. null on SQLite, where a
 * committed row is final and seq order is commit order.
 */
export function finishedTxidHorizon(engine: Engine): RawBuilder<number> | null {
  return engine === 'postgres' ? sql<number>`(pg_snapshot_xmin(pg_current_snapshot())::text::bigint)` : null;
}

/**
 * Signals `channel` when the transaction commits. PostgreSQL: NOTIFY, delivered to listeners at commit and
 * dropped on rollback; answers true. SQLite: answers false; the caller wakes its own process (a second
 * process on one SQLite file finds the work by polling).
 */
export async function notifyOnCommit(trx: Transaction<DB> | Kysely<DB>, channel: string): Promise<boolean> {
  if (engineOf(trx) !== 'postgres') return false;
  await sql`select pg_notify(${channel}, '')`.execute(trx);
  return true;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * PostgreSQL LISTEN on a connection of its own (outside the pool), re-established a second after it
 * breaks; `onNotify` also runs after each (re)connect, since notifications sent meanwhile are lost.
 * null on SQLite.
 */
export async function listenChannel(
  pool: pg.Pool | null,
  channel: string,
  onNotify: () => void,
  onError: (err: unknown) => void,
): Promise<Listener | null> {
  if (!pool) return null;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;
  const drop = (c: pg.Client) => {
    c.removeAllListeners();
    c.on('error', () => {});
    void c.end().catch(() => {});
    if (client === c) client = null;
  };
  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, 1000);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const c = new pg.Client((pool as unknown as { options: pg.ClientConfig }).options);
    const broken = (err?: unknown) => {
      if (err) onError(err);
      drop(c);
      scheduleRetry();
    };
    c.on('error', broken);
    c.on('end', () => broken());
    c.on('notification', () => onNotify());
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      broken(err);
      return;
    }
    if (closed) return drop(c);
    client = c;
    onNotify();
  };
  await connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}

interface ScriptConnection {
  executeScript?: (queries: readonly CompiledQuery[]) => Promise<QueryResult<unknown>[]>;
  executeAtomic?: (queries: readonly CompiledQuery[]) => Promise<QueryResult<unknown>[]>;
}

/**
 * Runs statements in order in the caller's transaction and answers their results. SQLite's thread takes
 * them as one message (one wake-up instead of one per statement); PostgreSQL runs them one by one.
 */
export async function executeInOrder(trx: Transaction<DB>, queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
  return trx.getExecutor().provideConnection(async (connection) => {
    const script = (connection as ScriptConnection).executeScript;
    if (script) return script.call(connection, queries);
    const results: QueryResult<unknown>[] = [];
    for (const q of queries) results.push(await connection.executeQuery(q));
    return results;
  });
}

/**
 * Runs statements in order as one transaction of their own and answers their results: SQLite's thread
 * takes BEGIN, the statements and COMMIT as one message; PostgreSQL runs them in a transaction one by
 * one. Any failure rolls the whole transaction back and is thrown.
 */
export async function executeTransaction(db: Kysely<DB>, queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
  if (engineOf(db) === 'postgres') return db.transaction().execute((trx) => executeInOrder(trx, queries));
  return db.getExecutor().provideConnection(async (connection) => {
    const atomic = (connection as ScriptConnection).executeAtomic;
    if (atomic) return atomic.call(connection, queries);
    return db.transaction().execute((trx) => executeInOrder(trx, queries));
  });
}

/** SQL for 16 random hexadecimal characters (64 bits from the database's random source). */
export function randomHexSql(engine: Engine): RawBuilder<string> {
  return engine === 'postgres' ? sql<string>`substr(md5(gen_random_uuid()::text), 1, 16)` : sql<string>`lower(hex(randomblob(8)))`;
}

/** SQL that is true when the JSON array of text in `column` is empty or contains `value`. */
export function jsonListAdmits(engine: Engine, column: string, value: string): RawBuilder<boolean> {
  const list = sql.ref(column);
  const item = sql.ref(value);
  return engine === 'postgres'
    ? sql<boolean>`(jsonb_array_length(${list}::jsonb) = 0 or exists (select 1 from jsonb_array_elements_text(${list}::jsonb) as t(v) where t.v = ${item}))`
    : sql<boolean>`(json_array_length(${list}) = 0 or exists (select 1 from json_each(${list}) as t where t.value = ${item}))`;
}
