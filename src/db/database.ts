// Opens the database named by COWRIE_DATABASE_URL: `sqlite:PATH` (better-sqlite3, WAL, on a thread of its
// own: sqlite-worker.ts) or `postgres://…`.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createRequire } from 'node:module';
import type { Engine } from './dialect.js';
import { startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import { SqliteWorkerDialect } from './sqlite-worker.js';

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

/** The page cache of each SQLite connection, in KiB. */
export const SQLITE_CACHE_KB = 4096;

export function openDatabase(url: string, opts: { poolSize?: number } = {}): Database {
  if (url.startsWith('sqlite:')) {
    const path = sqlitePath(url);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    // busy_timeout first: switching a fresh file to WAL takes a lock another starting process may hold.
    // better-sqlite3 builds SQLite with a 16 MB page cache per connection; the operating system caches
    // the file as well, so 4 MB keeps the hot pages (the tails of the indexes being appended to) without
    // a long read (a report) growing the process by 16 MB. The connection never checkpoints by itself:
    // the checkpointer thread does (sqlite-checkpointer.ts).
    const pragmas = ['busy_timeout = 5000', 'journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', `cache_size = -${SQLITE_CACHE_KB}`];
    let checkpointer: Checkpointer | null = null;
    if (path !== ':memory:') {
      pragmas.push('wal_autocheckpoint = 0');
      checkpointer = startCheckpointer(path, require.resolve('better-sqlite3'));
    }
    const readerPragmas = ['busy_timeout = 5000', 'query_only = 1', `cache_size = -${SQLITE_CACHE_KB / 2}`];
    const db = new Kysely<DB>({ dialect: new SqliteWorkerDialect({ path, module: require.resolve('better-sqlite3'), pragmas, readerPragmas }) });
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
