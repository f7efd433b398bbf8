// Opens the database named by COWRIE_DATABASE_URL: `sqlite:PATH` (better-sqlite3, WAL, on a thread of its
// own: sqlite-worker.ts) or `postgres://…`.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Engine } from './dialect.js';
import { serverStatementName } from './prepared.js';
import { startCheckpointer, WAL_KEPT_BYTES, WAL_RESTART_BYTES, type Checkpointer } from './sqlite-checkpointer.js';
import { SqliteWorkerDialect } from './sqlite-worker.js';
import { SQLITE_MODULE } from './sqlite-driver.js';

import type { DB } from './schema.js';

export interface Database {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** The pg pool (PostgreSQL only): shared with the rate limiter's store. */
  readonly pool: pg.Pool | null;
  /** Opens every connection of a fixed-size pool now (PostgreSQL; nothing on SQLite). */
  fill(): Promise<void>;
  close(): Promise<void>;
}

// int8 (bigint) columns hold millisecond times and counts, all far below 2^53: read them as numbers.
// numeric stays a string so amounts never pass through binary floating point.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (v: string) => Number.parseInt(v, 10);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function sqlitePath(url: string): string {
  const path = url.slice('sqlite:'.length);
  if (path === ':memory:' || path === '') return ':memory:';
  return resolve(path);
}

/** The page cache of each SQLite connection, in KiB. */
export const SQLITE_CACHE_KB = 4096;

export interface OpenOptions {
  /** PostgreSQL connections at most. */
  poolSize?: number;
  /**
   * A server's pool (HikariCP's advice): all `poolSize` connections stay open however long they idle, and
   * fill() opens them up front. Without it (commands) connections open on demand and close after 10 s
   * idle. A connection opened under load costs its first statements tens of milliseconds (the new backend
   * process loads its catalog caches), which a burst after a quiet spell would otherwise pay each time.
   */
  fixedPool?: boolean;
}

export function openDatabase(url: string, opts: OpenOptions = {}): Database {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    // busy_timeout first: switching a fresh file to WAL takes a lock another starting process may hold.
    // better-sqlite3 builds SQLite with a 16 MB page cache per connection; the operating system caches
    // the file as well, so 4 MB keeps the hot pages (the tails of the indexes being appended to) without
    // a long read (a report) growing the process by 16 MB. The connection never checkpoints by itself:
    // the checkpointer thread does (sqlite-checkpointer.ts).
    const pragmas = [
      'busy_timeout = 5000',
      'journal_mode = WAL',
      'synchronous = NORMAL',
      'foreign_keys = ON',
      `cache_size = -${SQLITE_CACHE_KB}`,
    ];
    let checkpointer: Checkpointer | null = null;
    if (path !== ':memory:') {
      // When a checkpoint lets the log start again from its beginning, the writer cuts its file back to this.
      pragmas.push('wal_autocheckpoint = 0', `journal_size_limit = ${WAL_KEPT_BYTES}`);
      checkpointer = startCheckpointer(path, SQLITE_MODULE);
    }
    const readerPragmas = ['busy_timeout = 5000', 'query_only = 1', `cache_size = -${SQLITE_CACHE_KB / 2}`];
    const walRestartBytes = path === ':memory:' ? undefined : WAL_RESTART_BYTES;
    const db = new Kysely<DB>({
      dialect: new SqliteWorkerDialect({ path, module: SQLITE_MODULE, pragmas, readerPragmas, walRestartBytes }),
    });
    return {
      db,
      engine: 'sqlite',
      pool: null,
      fill: async () => {},
      close: async () => {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const max = opts.poolSize ?? 10;
  const pool = new pg.Pool({ connectionString: url, max, min: opts.fixedPool ? max : 0, types: pgTypes });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  pool.on('connect', prepareOnServer);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const fill = async () => {
    if (!opts.fixedPool) return;
    // Checked out all at once, so that each is a connection of its own, then given back.
    const clients = await Promise.all(Array.from({ length: max - pool.totalCount + pool.idleCount }, () => pool.connect()));
    for (const c of clients) c.release();
  };
  return { db, engine: 'postgres', pool, fill, close: () => db.destroy() };
}

/**
 * The statements of the request path (prepared.ts's cached plans) run as named statements on this
 * connection: PostgreSQL parses and plans each once per connection, then only binds and runs it. Kysely
 * sends every query as `query(text, values)`; anything else (the pool's own calls, other texts) goes as it is.
 */
function prepareOnServer(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? serverStatementName(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  };
}
