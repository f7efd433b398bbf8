// SQLite on a thread of its own. better-sqlite3 is synchronous: on the request thread every statement,
// and every write the operating system makes it wait for, would stop the event loop. Here one worker
// thread owns the connection; a Kysely dialect sends it each compiled query and awaits the answer, so the
// event loop keeps serving HTTP while SQLite works (on the other core, where there is one).
//
// Writes still go through one connection, used by one transaction at a time (a mutex, as in Kysely's own
// SQLite driver), so everything the rest of the code relies on holds: a transaction sees no other writer,
// and row locks are not needed. Reads outside a transaction use a second, reading connection, so they
// never queue behind a transaction.
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

const WORKER_SOURCE = `
// Evaluated as a script or as a module depending on the parent's loader: reach modules without require.
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const Database = process.getBuiltinModule('node:module').createRequire(workerData.module)(workerData.module);
const writer = new Database(workerData.path);
for (const p of workerData.pragmas) writer.pragma(p);
// Reads outside a transaction use a second connection: in WAL mode it sees the last commit and never
// waits for the writer's open transaction.
const reader = workerData.path === ':memory:' ? writer : new Database(workerData.path);
if (reader !== writer) for (const p of workerData.readerPragmas) reader.pragma(p);
// better-sqlite3 compiles a statement on every prepare(): keep the most recent distinct texts compiled.
function statementCache(db) {
  const statements = new Map();
  return (sql) => {
    let stmt = statements.get(sql);
    if (stmt) {
      statements.delete(sql);
    } else {
      stmt = db.prepare(sql);
      if (statements.size >= 500) statements.delete(statements.keys().next().value);
    }
    statements.set(sql, stmt);
    return stmt;
  };
}
const prepare = { w: statementCache(writer), r: statementCache(reader) };
// A connection only rereads the schema when a statement it runs notices the change: after the writer
// creates, alters or drops, the reader is made to look before it prepares anything new.
const SCHEMA_CHANGE = /^\\s*(create|alter|drop)\\b/i;
let readerStale = false;
function run(conn, sql, params) {
  const result = execute(conn, sql, params);
  if (conn === 'w') result.inTx = writer.inTransaction;
  return result;
}
function execute(conn, sql, params) {
  if (conn === 'r' && readerStale && reader !== writer) {
    readerStale = false;
    prepare.r = statementCache(reader);
    reader.prepare('select count(*) from sqlite_master').get();
  }
  if (conn === 'w' && SCHEMA_CHANGE.test(sql)) readerStale = true;
  const stmt = prepare[conn](sql);
  if (stmt.reader) return { rows: stmt.all(params) };
  const r = stmt.run(params);
  return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
}
function failure(err, at) {
  return { message: String(err && err.message), code: err && err.code, at };
}
parentPort.on('message', (m) => {
  if (m.close) {
    try { if (reader !== writer) reader.close(); writer.close(); } catch {}
    parentPort.postMessage({ closed: true });
    return;
  }
  if (m.script) {
    // Statements run in order; the first failure stops the script (the caller rolls back).
    const results = [];
    for (let i = 0; i < m.script.length; i++) {
      try {
        results.push(run('w', m.script[i].sql, m.script[i].params));
      } catch (err) {
        parentPort.postMessage({ id: m.id, results, error: failure(err, i), inTx: writer.inTransaction });
        return;
      }
    }
    parentPort.postMessage({ id: m.id, results, inTx: writer.inTransaction });
    return;
  }
  try {
    parentPort.postMessage({ id: m.id, ...run(m.conn, m.sql, m.params) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: failure(err), inTx: m.conn === 'w' ? writer.inTransaction : undefined });
  }
});
`;

interface Result {
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
}

interface Reply extends Result {
  id: number;
  /** After a statement on the writing connection: whether a transaction is open on it. */
  inTx?: boolean;
  results?: Result[];
  error?: { message: string; code?: string; at?: number };
  closed?: boolean;
}

export interface SqliteWorkerOptions {
  path: string;
  /** Resolved path of the better-sqlite3 module, loaded by the worker. */
  module: string;
  /** PRAGMA statements run on the writing connection first, in order. */
  pragmas: string[];
  /** PRAGMA statements of the reading connection. */
  readerPragmas: string[];
}

/** An error raised by SQLite in the worker, with its code (SQLITE_CONSTRAINT_UNIQUE, ...). */
export class SqliteWorkerError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

class SqliteThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private next = 1;
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;

  constructor(opts: SqliteWorkerOptions) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: opts });
    this.worker.on('message', (reply: Reply) => {
      const settle = this.pending.get(reply.id);
      if (!settle) return;
      this.pending.delete(reply.id);
      settle(reply);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const settle of this.pending.values()) settle({ id: 0, error: { message: err.message } });
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the SQLite thread stopped (exit code ${code})`)));
  }

  send(message: { sql: string; params: readonly unknown[]; conn: 'w' | 'r' } | { script: Array<{ sql: string; params: readonly unknown[] }> }): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise<Reply>((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...message });
    });
  }

  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const done = () => resolve();
      this.worker.once('exit', done);
      this.worker.once('message', (m: Reply) => {
        if (m.closed) void this.worker.terminate().then(done, done);
      });
      this.worker.postMessage({ close: true });
      setTimeout(() => void this.worker.terminate().then(done, done), 5000).unref();
    });
    return this.closing;
  }
}

function queryResult<R>(r: Result): QueryResult<R> {
  if (r.rows) return { rows: r.rows as R[] };
  return {
    rows: [],
    numAffectedRows: r.changes === undefined ? undefined : BigInt(r.changes),
    insertId: r.lastInsertRowid === undefined ? undefined : BigInt(r.lastInsertRowid),
  };
}

/** A statement that only reads (SQLite has no writing CTEs, so WITH ... SELECT reads too). */
const READ_ONLY = /^\s*(select|with)\b/i;

/**
 * What Kysely calls a connection. A handle that opens a transaction (Kysely's, or a raw BEGIN on a
 * connection it pinned) holds the writing connection until SQLite says the transaction is over; otherwise
 * reads go to the reading connection and writes to the writing one between transactions.
 */
class WorkerConnection implements DatabaseConnection {
  /** True while this handle holds the write lock: SQLite reported a transaction open on the writer. */
  holdsLock = false;

  constructor(
    private readonly thread: SqliteThread,
    private readonly writeLock: ConnectionMutex,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    const reply =
      !this.holdsLock && READ_ONLY.test(sql)
        ? await this.thread.send({ sql, params: parameters, conn: 'r' })
        : await this.onWriter({ sql, params: parameters, conn: 'w' });
    if (reply.error) throw new SqliteWorkerError(reply.error.message, reply.error.code);
    return queryResult<R>(reply);
  }

  /**
   * Several statements in one message to the SQLite thread (one wake-up instead of one each), on the
   * writing connection. Meant for a transaction: the first failure stops the rest and is thrown.
   */
  async executeScript(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
    const reply = await this.onWriter({ script: queries.map((q) => ({ sql: q.sql, params: q.parameters })) });
    if (reply.error) throw new SqliteWorkerError(reply.error.message, reply.error.code);
    return (reply.results ?? []).map((r) => queryResult(r));
  }

  /**
   * Sends to the writing connection, taking the write lock first unless this handle holds it, and keeps
   * the lock exactly while SQLite says a transaction is open there.
   */
  private async onWriter(message: Parameters<SqliteThread['send']>[0]): Promise<Reply> {
    if (!this.holdsLock) {
      await this.writeLock.lock();
      this.holdsLock = true;
    }
    let reply: Reply;
    try {
      reply = await this.thread.send(message);
    } catch (err) {
      this.unlock();
      throw err;
    }
    if (!reply.inTx) this.unlock();
    return reply;
  }

  unlock(): void {
    if (!this.holdsLock) return;
    this.holdsLock = false;
    this.writeLock.unlock();
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }
}

/** One transaction at a time on the writing connection: callers queue here (as in Kysely's SQLite driver). */
class ConnectionMutex {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  async lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

class WorkerDriver implements Driver {
  private thread: SqliteThread | null = null;
  /** Held by a transaction, or by a write outside one, for its whole length. */
  private readonly writeLock = new ConnectionMutex();

  constructor(private readonly opts: SqliteWorkerOptions) {}

  async init(): Promise<void> {
    this.thread = new SqliteThread(this.opts);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WorkerConnection(this.thread!, this.writeLock);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A COMMIT that fails leaves the transaction open (and the lock held): Kysely then rolls it back.
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    } catch (err) {
      // SQLite already rolled back by itself after some errors; anything else is worth knowing.
      if (!/no transaction is active/.test((err as Error).message)) throw err;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name.replace(/"/g, '""')}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name.replace(/"/g, '""')}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${name.replace(/"/g, '""')}"`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as WorkerConnection;
    if (!c.holdsLock) return;
    // A transaction left open (a raw BEGIN never ended) would block every writer: roll it back.
    await c.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
    c.unlock();
  }

  async destroy(): Promise<void> {
    await this.thread?.close();
  }
}

/** Kysely's SQLite dialect, with the connection on a worker thread. */
export class SqliteWorkerDialect implements Dialect {
  constructor(private readonly opts: SqliteWorkerOptions) {}

  createDriver(): Driver {
    return new WorkerDriver(this.opts);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): SqliteAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<any>): SqliteIntrospector {
    return new SqliteIntrospector(db);
  }
}
