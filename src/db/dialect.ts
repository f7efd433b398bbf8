// Every difference between SQLite and PostgreSQL lives here. Queries elsewhere are written once.
import { PostgresAdapter, sql, type Kysely, type RawBuilder, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { DB } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export function engineOf(db: Kysely<DB> | Transaction<DB>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Row lock for a read inside a transaction. PostgreSQL takes FOR UPDATE; SQLite needs nothing because a
 * connection holds the whole database while its transaction writes, and this process has one connection.
 */
export function forUpdate<O>(trx: Transaction<DB>, qb: SelectQueryBuilder<DB, keyof DB, O>): SelectQueryBuilder<DB, keyof DB, O> {
  return engineOf(trx) === 'postgres' ? qb.forUpdate() : qb;
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

/** Adds an auto-incrementing integer primary key column named `name`. */
export function addSerialPrimaryKey<T extends { addColumn: (...args: any[]) => T }>(table: T, engine: Engine, name: string): T {
  return engine === 'postgres'
    ? table.addColumn(name, 'bigserial', (c: any) => c.primaryKey())
    : table.addColumn(name, 'integer', (c: any) => c.primaryKey().autoIncrement());
}
