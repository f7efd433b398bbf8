// Transactions and batches of statements: the one way domain code writes more than one statement.
//
// - `transaction(db, work)`: a transaction whose `afterCommit` hooks run once it has committed.
// - A `WriteBatch` is statements that need no answer from one another, each with an optional hook that
//   runs after commit with that statement's result. `runInTransaction` runs one inside a transaction;
//   `runAtomic` runs one as a transaction of its own. On SQLite a batch is one message to the writing
//   thread (src/db/sqlite-worker.ts) instead of one per statement; on PostgreSQL its statements run in
//   order on one connection.
import type { CompiledQuery, QueryResult } from 'kysely';
import { engineOf } from './dialect.js';
import type { Db, Tx } from './schema.js';
import { WorkerConnection } from './sqlite-worker.js';

export type { Db, Tx, Q } from './schema.js';

const commitHooks = new WeakMap<Tx, Array<() => void>>();

/** Runs `work` in a transaction; the hooks it registers with afterCommit run once the transaction committed. */
export async function transaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const hooks: Array<() => void> = [];
  const result = await db.transaction().execute((tx) => {
    commitHooks.set(tx, hooks);
    return work(tx);
  });
  for (const hook of hooks) hook();
  return result;
}

/** Runs `hook` once `tx` has committed (never, if it rolls back). */
export function afterCommit(tx: Tx, hook: () => void): void {
  const hooks = commitHooks.get(tx);
  if (!hooks) throw new Error('afterCommit needs a transaction opened by transaction()');
  hooks.push(hook);
}

/** As afterCommit, or at once when `tx` was not opened by transaction() (a bookkeeping hook such as a metric). */
export function afterCommitOrNow(tx: Tx, hook: () => void): void {
  const hooks = commitHooks.get(tx);
  if (hooks) hooks.push(hook);
  else hook();
}

type CommitHook = (result: QueryResult<unknown>) => void;

/** Statements run together, in order, in one transaction. */
export class WriteBatch {
  readonly statements: CompiledQuery[] = [];
  private readonly hooks: Array<{ index: number; hook: CommitHook }> = [];

  /** Adds a statement; `onCommit` runs after commit with its result. */
  add(statement: CompiledQuery, onCommit?: CommitHook): this {
    if (onCommit) this.hooks.push({ index: this.statements.length, hook: onCommit });
    this.statements.push(statement);
    return this;
  }

  /** Runs the commit hooks with the batch's results. */
  committed(results: readonly QueryResult<unknown>[]): void {
    for (const { index, hook } of this.hooks) hook(results[index]!);
  }
}

/** Runs the batch inside `tx`; its hooks run when `tx` commits. Answers the statements' results. */
export async function runInTransaction(tx: Tx, batch: WriteBatch): Promise<QueryResult<unknown>[]> {
  const results = await inOrder(tx, batch.statements);
  afterCommit(tx, () => batch.committed(results));
  return results;
}

/**
 * Runs the batch as a transaction of its own: all of it commits, or a failure rolls all of it back and is
 * thrown. Its hooks run after commit. Answers the statements' results.
 */
export async function runAtomic(db: Db, batch: WriteBatch): Promise<QueryResult<unknown>[]> {
  let results: QueryResult<unknown>[];
  if (engineOf(db) !== 'postgres') {
    results = await db.getExecutor().provideConnection((connection) => (connection as WorkerConnection).executeAtomic(batch.statements));
  } else if (batch.statements.length === 1) {
    // One statement is atomic by itself: no BEGIN and COMMIT round trips around it.
    results = [await db.executeQuery(batch.statements[0]!)];
  } else {
    results = await db.transaction().execute((tx) => inOrder(tx, batch.statements));
  }
  batch.committed(results);
  return results;
}

/** Statements in order on the transaction's connection: one message on SQLite, one by one on PostgreSQL. */
function inOrder(tx: Tx, queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
  return tx.getExecutor().provideConnection(async (connection) => {
    if (connection instanceof WorkerConnection) return connection.executeScript(queries);
    const results: QueryResult<unknown>[] = [];
    for (const q of queries) results.push(await connection.executeQuery(q));
    return results;
  });
}

/**
 * Writes that must commit with a record, in the record's own transaction (an idempotent request's saved
 * response, so that a crash can never leave one without the other): a service that writes the record
 * calls `inTransaction` inside its transaction, or `addTo` the batch that writes it.
 */
export interface CommitWith<T> {
  inTransaction(tx: Tx, result: T): Promise<void>;
  addTo(batch: WriteBatch, db: Db | Tx, result: T): void;
}
