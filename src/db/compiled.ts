// Statements of the request path, compiled once per shape. Kysely builds an operation tree and compiles it
// to SQL on every call; for a statement run on every request (or every batch) that is most of its cost.
// Here the SQL text Kysely compiled the first time is kept under a key naming the statement's shape, and
// later calls run it with their own parameters. The first compile checks that the parameters the caller
// lists are exactly those Kysely bound, in order; a shape that fails the check is never cached.
import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { engineOf } from './dialect.js';
import type { DB } from './schema.js';
import type { Q } from './transaction.js';


const texts = new Map<string, string>();
/** Shapes whose parameters did not match: always compiled afresh. */
const uncachable = new Set<string>();

/** The shapes compiled so far: cached, and refused because their parameters did not match (tests). */
export function compiledShapes(): { cached: string[]; uncachable: string[] } {
  return { cached: [...texts.keys()], uncachable: [...uncachable] };
}

function sameParameters(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

/**
 * The query `build` makes, whose bound parameters are `parameters` in order, reusing the SQL text of an
 * earlier call with the same `shape`. `build` runs only when the text is not known yet.
 */
export function compiled<R>(db: Q, shape: string, parameters: readonly unknown[], build: () => Compilable<R>): CompiledQuery<R> {
  const key = `${engineOf(db)}:${shape}`;
  const text = texts.get(key);
  if (text !== undefined) return CompiledQuery.raw(text, parameters as unknown[]) as CompiledQuery<R>;
  const fresh = build().compile();
  if (!uncachable.has(key)) {
    if (sameParameters(fresh.parameters, parameters)) texts.set(key, fresh.sql);
    else uncachable.add(key);
  }
  return fresh;
}

/** Runs `compiled(...)`. */
export async function executeCompiled<R>(db: Q, shape: string, parameters: readonly unknown[], build: () => Compilable<R>): Promise<QueryResult<R>> {
  return db.executeQuery<R>(compiled(db, shape, parameters, build));
}

/**
 * INSERT of several rows with one statement. Every row must have the same columns, in the same order, and
 * no undefined value (null for SQL NULL).
 */
export function insertStatement<T extends keyof DB & string>(db: Q, table: T, rows: readonly Record<string, unknown>[]): CompiledQuery {
  const columns = Object.keys(rows[0]!);
  const parameters: unknown[] = [];
  for (const row of rows) for (const c of columns) parameters.push(row[c]);
  return compiled(db, `insert:${table}:${columns.join(',')}:${rows.length}`, parameters, () => db.insertInto(table).values(rows as never));
}

/** Runs `insertStatement(...)`. */
export async function insertRows<T extends keyof DB & string>(db: Q, table: T, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.executeQuery(insertStatement(db, table, rows));
}
