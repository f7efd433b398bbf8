// SQLite's writing connection, on a worker thread of its own (started by sqlite-worker.ts, which explains
// why): it runs each statement or script it is sent, in order, and answers with the results.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Failure, Reply, Request, Result, SqliteThreadData } from './sqlite-protocol.js';

const data = workerData as SqliteThreadData;
const port = parentPort!;
const Database = createRequire(data.module)(data.module) as typeof BetterSqlite3;
const db = new Database(data.path);
for (const p of data.pragmas) db.pragma(p);

// better-sqlite3 compiles a statement on every prepare(): keep the most recent distinct texts compiled.
const STATEMENT_CACHE = 500;
const statements = new Map<string, BetterSqlite3.Statement>();

function prepare(sql: string): BetterSqlite3.Statement {
  let stmt = statements.get(sql);
  if (stmt) {
    statements.delete(sql);
  } else {
    stmt = db.prepare(sql);
    if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
  }
  statements.set(sql, stmt);
  return stmt;
}

function run(sql: string, params: readonly unknown[]): Result {
  const stmt = prepare(sql);
  if (stmt.reader) return { rows: stmt.all(params as unknown[]) };
  const r = stmt.run(params as unknown[]);
  return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
}

function failure(err: unknown, at?: number): Failure {
  const e = err as { message?: unknown; code?: unknown } | null;
  return { message: String(e?.message), code: typeof e?.code === 'string' ? e.code : undefined, at };
}

const answer = (reply: Reply) => port.postMessage(reply);

// Between its own transactions, at most every CHECKPOINT_MS, the writer copies the log's new frames back
// into the database (a PASSIVE checkpoint: a few milliseconds for what 10 ms of writes left). A checkpoint
// that copied every frame lets the next write start the log again from its beginning, so under sustained
// writes the log stays at a few megabytes and no write ever waits for a big copy. (A RESTART checkpoint of
// 16 MB took 17 to 26 ms, seven times a second under load: every request arriving meanwhile waited, the
// p99 of create intent at 32 connections was 21 ms, and 9 ms with this.) A reader that keeps an old
// snapshot (a long report) holds the log's frames back; once the log's file passes its limit anyway, a
// RESTART checkpoint waits for that reader and starts the log again.
const CHECKPOINT_MS = 10;
let checkpointedAt = 0;

function keepWalSmall(): void {
  if (data.walRestartBytes === undefined || db.inTransaction) return;
  const now = Date.now();
  if (now - checkpointedAt < CHECKPOINT_MS) return;
  checkpointedAt = now;
  try {
    if (statSync(`${data.path}-wal`).size >= data.walRestartBytes) db.pragma('wal_checkpoint(RESTART)');
    else db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // no log yet, or the checkpoint thread or a reader kept it busy: the next look will do
  }
}

port.on('message', (m: Request | { close: true }) => {
  if ('close' in m) {
    statements.clear();
    try {
      db.close();
    } catch {
      // closing is best effort
    }
    answer({ id: 0, closed: true });
    return;
  }
  if ('script' in m) {
    // Statements run in order; the first failure stops the script. An atomic script is a transaction of
    // its own: BEGIN first, COMMIT last, and ROLLBACK on any failure, so it never leaves one open. IMMEDIATE,
    // as every transaction here: the write lock is taken at BEGIN (waiting busy_timeout for another process,
    // such as a CLI command beside the server), never at a transaction's first write, where a snapshot that
    // another process wrote past fails at once with SQLITE_BUSY.
    const results: Result[] = [];
    let i = 0;
    try {
      if (m.atomic) prepare('begin immediate').run();
      for (; i < m.script.length; i++) results.push(run(m.script[i]!.sql, m.script[i]!.params));
      if (m.atomic) prepare('commit').run();
    } catch (err) {
      if (m.atomic && db.inTransaction) prepare('rollback').run();
      answer({ id: m.id, results, error: failure(err, i), inTx: db.inTransaction });
      return;
    }
    answer({ id: m.id, results, inTx: db.inTransaction });
    keepWalSmall();
    return;
  }
  try {
    answer({ id: m.id, ...run(m.sql, m.params), inTx: db.inTransaction });
  } catch (err) {
    answer({ id: m.id, error: failure(err), inTx: db.inTransaction });
  }
  keepWalSmall();
});

answer({ id: 0, ready: true });
