// Opens the database named by COWRIE_DATABASE_URL: `sqlite:PATH` (better-sqlite3, WAL) or `postgres://…`.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Engine } from './dialect.js';
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
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: conn }) });
    return { db, engine: 'sqlite', pool: null, close: () => db.destroy() };
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, types: pgTypes });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', pool, close: () => db.destroy() };
}
