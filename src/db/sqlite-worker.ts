// SQLite's writes on a thread of their own. better-sqlite3 is synchronous: on the request thread every
// write, and every wait on the disk it brings (WAL writes, the fsync when the log restarts), would stop
// the event loop. Here a worker thread owns the writing connection; a Kysely dialect sends it each
// compiled statement and awaits the answer, so the event loop keeps serving HTTP while SQLite writes (on
// the other core, where there is one).
//
// Writes go through that one connection, used by one transaction at a time (a mutex, as in Kysely's own
// SQLite driver), so everything the rest of the code relies on holds: a transaction sees no other writer,
// and row locks are not needed. Reads outside a transaction run at once on a reading connection of the
// request thread: in WAL mode a reader sees the last commit and never waits for the writer, and a small
// indexed read costs less than a message to another thread and back.
import type { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { SQLite } from './sqlite-driver.js';
import type { Message, Reply, Result, SqliteThreadData } from './sqlite-protocol.js';
import { startThread } from './threads.js';
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

export interface SqliteWorkerOptions {
  path: string;
  /** Resolved path of the better-sqlite3 module, loaded by the worker. */
  module: string;
  /** PRAGMA statements run on the writing connection first, in order. */
  pragmas: string[];
  /** PRAGMA statements of the reading connection. */
  readerPragmas: string[];
  /** Past this log size the writer restarts the log between transactions (sqlite-protocol.ts). */
  walRestartBytes?: number;
}

/** A statement that may only read: the reader checks (WITH ... UPDATE begins the same way). */
const MAY_READ_ONLY = /^\s*(select|with)\b/i;
/** A statement after which other connections must reread the schema. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/** The reading connection of the request thread, with compiled statements kept like the worker's. */
class MainReader {
  private readonly db: BetterSqlite3.Database;
  private statements = new Map<string, BetterSqlite3.Statement>();
  /** The writer changed the schema: reread it before preparing anything. */
  stale = false;

  constructor(path: string, pragmas: readonly string[]) {
    this.db = new SQLite(path);
    for (const p of pragmas) this.db.pragma(p);
  }

  /** The rows of a statement that only reads; null for one that writes, which the writer must run. */
  all(sql: string, params: readonly unknown[]): unknown[] | null {
    if (this.stale) {
      this.stale = false;
      this.statements = new Map();
      // A statement that opens a read transaction compares the schema cookie and drops a stale schema.
      this.db.prepare('select count(*) from sqlite_master').get();
    }
    let stmt = this.statements.get(sql);
    if (stmt) {
      this.statements.delete(sql);
    } else {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= 200) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, stmt);
    return stmt.readonly ? stmt.all(params as unknown[]) : null;
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
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

  /** Settles when the connection is open and its pragmas are set. */
  readonly ready: Promise<void>;

  constructor(opts: SqliteWorkerOptions) {
    const workerData: SqliteThreadData = {
      path: opts.path,
      module: opts.module,
      pragmas: opts.pragmas,
      walRestartBytes: opts.walRestartBytes,
    };
    this.worker = startThread('sqlite-writer-thread', { workerData });
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        if (!m.ready) return;
        this.worker.off('message', onMessage);
        resolve();
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
      this.worker.once('exit', (code) => reject(new Error(`the SQLite thread stopped (exit code ${code})`)));
    });
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

  send(message: Message): Promise<Reply> {
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

/**
 * What Kysely calls a connection. A handle that opens a transaction (Kysely's, or a raw BEGIN on a
 * connection it pinned) holds the writing connection until SQLite says the transaction is over; otherwise
 * reads run on the request thread's reading connection and writes go to the writer between transactions.
 */
export class WorkerConnection implements DatabaseConnection {
  /** True while this handle holds the write lock: SQLite reported a transaction open on the writer. */
  holdsLock = false;

  constructor(
    private readonly thread: SqliteThread,
    private readonly writeLock: ConnectionMutex,
    private readonly reader: MainReader | null,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    if (!this.holdsLock && this.reader && MAY_READ_ONLY.test(sql)) {
      const rows = this.reader.all(sql, parameters);
      if (rows) return { rows: rows as R[] };
    }
    const reply = await this.onWriter({ sql, params: parameters });
    if (reply.error) throw new SqliteWorkerError(reply.error.message, reply.error.code);
    return queryResult<R>(reply);
  }

  /**
   * Several statements in one message to the SQLite thread (one wake-up instead of one each), inside
   * the transaction this handle holds. The first failure stops the rest and is thrown.
   */
  async executeScript(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
    const reply = await this.onWriter(script(queries, false));
    if (reply.error) throw new SqliteWorkerError(reply.error.message, reply.error.code);
    return (reply.results ?? []).map((r) => queryResult(r));
  }

  /**
   * Statements as one transaction of their own, in one message: the SQLite thread runs BEGIN, them and
   * COMMIT, or rolls back on the first failure (which is thrown). The write lock is held only while the
   * message is sent: the thread runs messages in order, so a transaction that begins later begins after
   * this one has ended.
   */
  async executeAtomic(queries: readonly CompiledQuery[]): Promise<QueryResult<unknown>[]> {
    if (this.holdsLock) throw new Error('executeAtomic inside a transaction');
    await this.writeLock.lock();
    let sent: Promise<Reply>;
    try {
      sent = this.thread.send(script(queries, true));
    } finally {
      this.writeLock.unlock();
    }
    const reply = await sent;
    this.markSchema(queries);
    if (reply.error) throw new SqliteWorkerError(reply.error.message, reply.error.code);
    return (reply.results ?? []).map((r) => queryResult(r));
  }

  /**
   * Sends to the writing connection, taking the write lock first unless this handle holds it, and keeps
   * the lock exactly while SQLite says a transaction is open there.
   */
  private async onWriter(message: Message): Promise<Reply> {
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
    this.markSchema('sql' in message ? [message] : message.script);
    if (!reply.inTx) this.unlock();
    return reply;
  }

  /** After the writer changed the schema (its answer is in), the reader must reread it. */
  private markSchema(statements: ReadonlyArray<{ sql: string }>): void {
    if (this.reader && statements.some((q) => SCHEMA_CHANGE.test(q.sql))) this.reader.stale = true;
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

function script(queries: readonly CompiledQuery[], atomic: boolean): Message {
  return { script: queries.map((q) => ({ sql: q.sql, params: q.parameters })), atomic };
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

  private reader: MainReader | null = null;

  async init(): Promise<void> {
    this.thread = new SqliteThread(this.opts);
    // The writer creates the file and sets WAL mode first; then the reading connection opens it.
    await this.thread.ready;
    if (this.opts.path !== ':memory:') this.reader = new MainReader(this.opts.path, this.opts.readerPragmas);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WorkerConnection(this.thread!, this.writeLock, this.reader);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // The write lock at BEGIN (see sqlite-writer-thread.ts): another process's writes make it wait, not fail.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
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
    this.reader?.close();
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
