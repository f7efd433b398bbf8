// Every difference between SQLite and PostgreSQL lives here. Queries elsewhere are written once.
import {
  PostgresAdapter,
  sql,
  type Compilable,
  type Expression,
  type InsertQueryBuilder,
  type Kysely,
  type ExpressionBuilder,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type Transaction,
} from 'kysely';
import type { DB, Q } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export function engineOf(db: Q): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Row lock for a read inside a transaction. PostgreSQL takes FOR UPDATE; SQLite needs nothing because a
 * connection holds the whole database while its transaction writes, and this process has one connection.
 */
export function forUpdate<D, TB extends keyof D, O>(
  trx: Transaction<DB>,
  qb: SelectQueryBuilder<D, TB, O>,
  /** The tables (aliases) whose rows are locked, when the query joins others (an outer join's cannot be). */
  of?: ReadonlyArray<TB & string>,
): SelectQueryBuilder<D, TB, O> {
  if (engineOf(trx) !== 'postgres') return qb;
  return of ? qb.forUpdate([...of]) : qb.forUpdate();
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

/**
 * True when PostgreSQL gave up a transaction that may simply be run again: a deadlock (40P01) between
 * transactions locking the same rows in different orders, or a serialization failure (40001).
 */
export function isTransientConflict(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  return code === '40P01' || code === '40001';
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

/**
 * `insert`, which on PostgreSQL also NOTIFYs `channel` when it wrote any row, as one statement of the
 * transaction (a data-modifying WITH; PostgreSQL delivers the NOTIFY at commit) whose one row says how many
 * rows it `written`. On SQLite, which has no NOTIFY, the insert as it is (src/db/notify.ts rings
 * in-process instead).
 */
export function insertNotifying(
  db: Kysely<DB> | Transaction<DB>,
  insert: InsertQueryBuilder<DB, keyof DB, unknown>,
  channel: string,
): Compilable<unknown> {
  if (engineOf(db) !== 'postgres') return insert;
  return {
    compile: () =>
      sql`with written as (${insert.returning(sql.lit(1).as('w'))}),
    signal as (select pg_notify(${channel}, '') where exists (select 1 from written))
    select (select count(*) from written) as written, (select count(*) from signal) as signalled`.compile(db),
  };
}

/**
 * For a prefix search: PostgreSQL uses a btree index for `LIKE 'prefix%'` only when it is built with
 * text_pattern_ops (unless the database's collation is C); SQLite's GLOB uses an ordinary index. The
 * indexed expression for PostgreSQL, null for SQLite (which needs none beyond the ordinary ones).
 */
export function prefixIndexColumn(engine: Engine): ((column: string) => RawBuilder<unknown>) | null {
  return engine === 'postgres' ? (column) => sql`${sql.ref(column)} text_pattern_ops` : null;
}

/** `column` starts with `prefix` (case-sensitive, wildcards in the prefix taken literally), in a form each engine's index serves. */
export function startsWith(engine: Engine, column: string, prefix: string): RawBuilder<SqlBool> {
  if (engine === 'postgres') {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return sql<SqlBool>`${sql.ref(column)} like ${`${escaped}%`}`;
  }
  const escaped = prefix.replace(/[*?[]/g, (c) => `[${c}]`);
  return sql<SqlBool>`${sql.ref(column)} glob ${`${escaped}*`}`;
}

/** A text field of a JSON object stored as text (`column`), in the same form for a query and an index on it. */
export function jsonTextField(engine: Engine, column: string, field: string): RawBuilder<string | null> {
  if (!/^[a-z_]+$/.test(field)) throw new Error(`jsonTextField: bad field ${field}`);
  return engine === 'postgres'
    ? sql<string | null>`(${sql.ref(column)}::jsonb ->> ${sql.lit(field)})`
    : sql<string | null>`json_extract(${sql.ref(column)}, ${sql.lit(`$.${field}`)})`;
}

/**
 * PostgreSQL only: each of `first` (INSERTs, with RETURNING when read) as the CTE of its name, in order,
 * then `insert` (which may select from them) NOTIFYing `channel` when it wrote any row, all one statement
 * answering as insertNotifying's does. Every CTE of one statement sees the same snapshot, so `insert` reads
 * the rows `first` wrote from their CTEs, not from their tables.
 */
export function insertNotifyingAfter(
  db: Kysely<DB> | Transaction<DB>,
  first: ReadonlyArray<{ name: string; insert: InsertQueryBuilder<DB, keyof DB, unknown> }>,
  insert: InsertQueryBuilder<DB, keyof DB, unknown>,
  channel: string,
): Compilable<unknown> {
  if (engineOf(db) !== 'postgres') throw new Error('insertNotifyingAfter is for PostgreSQL');
  const ctes = sql.join(first.map((f) => sql`${sql.id(f.name)} as (${f.insert})`));
  return {
    compile: () =>
      sql`with ${ctes},
    written as (${insert.returning(sql.lit(1).as('w'))}),
    signal as (select pg_notify(${channel}, '') where exists (select 1 from written))
    select (select count(*) from written) as written, (select count(*) from signal) as signalled`.compile(db),
  };
}
