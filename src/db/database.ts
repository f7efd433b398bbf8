// Opens the database named by COWRIE_DATABASE_URL: `sqlite:PATH` (better-sqlite3, WAL) or `postgres://…`.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { createRequire } from 'node:module';
import type { Engine } from './dialect.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';

const require = createRequire(import.meta.url);
import type { DB } from './schema.js';

export interface Database {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** The pg pool (PostgreSQL only): shared with the rate limiter's store. */
  readonly pool: pg.Pool | null;
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

/**
 * better-sqlite3 compiles a statement on every prepare(); Kysely prepares every query it runs. Keeping the
 * compiled statements of the most recent distinct SQL texts removes that cost from every request.
 */
function withStatementCache(conn: SQLite.Database, size = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => conn.close(),
    prepare(sqlText: string) {
      let stmt = cache.get(sqlText);
      if (stmt) {
        cache.delete(sqlText);
      } else {
        stmt = conn.prepare(sqlText);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sqlText, stmt);
      return stmt as never;
    },
  };
}

/** The page cache of each SQLite connection, in KiB. */
export const SQLITE_CACHE_KB = 4096;

export function openDatabase(url: string, opts: { poolSize?: number } = {}): Database {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const conn = new SQLite(path);
    // busy_timeout first: switching a fresh file to WAL takes a lock another starting process may hold.
    conn.pragma('busy_timeout = 5000');
    conn.pragma('journal_mode = WAL');
    conn.pragma('synchronous = NORMAL');
    conn.pragma('foreign_keys = ON');
    // better-sqlite3 builds SQLite with a 16 MB page cache per connection; the operating system caches
    // the file as well, so 4 MB keeps the hot pages (the tails of the indexes being appended to) without
    // a long read (a report) growing the process by 16 MB.
    conn.pragma(`cache_size = -${SQLITE_CACHE_KB}`);
    let checkpointer: Checkpointer | null = null;
    if (path !== ':memory:') {
      conn.pragma('wal_autocheckpoint = 0');
      checkpointer = startCheckpointer(path, require.resolve('better-sqlite3'));
    }
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(conn) }) });
    return {
      db,
      engine: 'sqlite',
      pool: null,
      close: async () => {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, types: pgTypes });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', pool, close: () => db.destroy() };
}
