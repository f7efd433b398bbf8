// One ordered set of migrations for both engines, run at start and by `cowrie migrate`.
// Several processes starting at once migrate exactly once: on PostgreSQL Kysely's migrator takes an advisory
// lock; on SQLite (where Kysely's lock does nothing) the whole run holds the database's write lock.
import { Migrator, sql, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database } from './database.js';
import * as m0001 from './migrations/0001-foundation.js';
import * as m0002 from './migrations/0002-payment-intents.js';
import * as m0003 from './migrations/0003-webhooks.js';
import * as m0004 from './migrations/0004-ledger.js';
import * as m0005 from './migrations/0005-checkout-links.js';
import * as m0006 from './migrations/0006-rate-limit-buckets.js';
import * as m0007 from './migrations/0007-link-metadata.js';
import * as m0008 from './migrations/0008-leases.js';
import * as m0009 from './migrations/0009-intent-last-payment-error.js';
import * as m0010 from './migrations/0010-payment-link-updates.js';
import * as m0011 from './migrations/0011-mpesa-live.js';
import * as m0012 from './migrations/0012-chain-watch.js';
import * as m0013 from './migrations/0013-console.js';
import * as m0014 from './migrations/0014-console-pin-search.js';
import * as m0015 from './migrations/0015-reference-prices.js';
import * as m0016 from './migrations/0016-rail-payments-without-resolving.js';
import * as m0017 from './migrations/0017-webhook-deliveries-in-flight.js';
import { sealWebhookSecrets } from './migrations/0018-webhook-secrets-sealed.js';
import * as m0019 from './migrations/0019-card-refunds-disputes.js';
import * as m0020 from './migrations/0020-webhook-deliveries-pending-by-endpoint.js';
import * as m0021 from './migrations/0021-payouts.js';
import * as m0022 from './migrations/0022-mpesa-reversals.js';
import * as m0023 from './migrations/0023-console-shop-owner.js';
import * as m0024 from './migrations/0024-write-path-indexes.js';
import * as m0025 from './migrations/0025-payers.js';
import * as m0026 from './migrations/0026-payer-topups-chain.js';
import * as m0027 from './migrations/0027-payer-topups-mpesa.js';
import * as m0028 from './migrations/0028-payer-withdrawals.js';
import * as m0029 from './migrations/0029-partial-search-indexes.js';
import type { SecretBox } from '../shared/secret-box.js';

/** What a migration may need beyond the database. */
export interface MigrationContext {
  /** The keys that seal webhook endpoint secrets (0018 seals those stored in plain text). */
  secrets?: SecretBox;
}

/** Every migration by name, oldest first. */
export const migrationsOf = (ctx: MigrationContext): Record<string, Migration> => ({
  '0001-foundation': m0001,
  '0002-payment-intents': m0002,
  '0003-webhooks': m0003,
  '0004-ledger': m0004,
  '0005-checkout-links': m0005,
  '0006-rate-limit-buckets': m0006,
  '0007-link-metadata': m0007,
  '0008-leases': m0008,
  '0009-intent-last-payment-error': m0009,
  '0010-payment-link-updates': m0010,
  '0011-mpesa-live': m0011,
  '0012-chain-watch': m0012,
  '0013-console': m0013,
  '0014-console-pin-search': m0014,
  '0015-reference-prices': m0015,
  '0016-rail-payments-without-resolving': m0016,
  '0017-webhook-deliveries-in-flight': m0017,
  '0018-webhook-secrets-sealed': sealWebhookSecrets(ctx.secrets ?? null),
  '0019-card-refunds-disputes': m0019,
  '0020-webhook-deliveries-pending-by-endpoint': m0020,
  '0021-payouts': m0021,
  '0022-mpesa-reversals': m0022,
  '0023-console-shop-owner': m0023,
  '0024-write-path-indexes': m0024,
  '0025-payers': m0025,
  '0026-payer-topups-chain': m0026,
  '0027-payer-topups-mpesa': m0027,
  '0028-payer-withdrawals': m0028,
  '0029-partial-search-indexes': m0029,
});

class StaticProvider implements MigrationProvider {
  constructor(private readonly ctx: MigrationContext = {}) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    return migrationsOf(this.ctx);
  }
}

export interface MigrateOutcome {
  applied: string[];
}

export async function migrateToLatest(database: Database, ctx: MigrationContext = {}): Promise<MigrateOutcome> {
  const result: MigrationResultSet =
    database.engine === 'sqlite'
      ? await migrateSqlite(database, ctx)
      : await new Migrator({ db: database.db, provider: new StaticProvider(ctx) }).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${String((result.error as Error).message ?? result.error)}`, {
      cause: result.error,
    });
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/**
 * SQLite: Kysely's migration lock is a no-op and its migration transaction starts deferred, so two processes
 * migrating one file at once both see it unmigrated and the later one fails ("table already exists",
 * SQLITE_BUSY). BEGIN IMMEDIATE takes the write lock before the migrator reads its state (waiting up to
 * busy_timeout for another process), and the migrations run inside that one transaction.
 */
async function migrateSqlite(database: Database, ctx: MigrationContext): Promise<MigrationResultSet> {
  return database.db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    let result: MigrationResultSet;
    try {
      result = await new Migrator({ db: conn, provider: new StaticProvider(ctx), disableTransactions: true }).migrateToLatest();
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
    await (result.error ? sql`rollback` : sql`commit`).execute(conn);
    return result;
  });
}

/** Migrations this code knows that the database has not applied (empty when it is current). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const migrations = await new Migrator({ db: database.db, provider: new StaticProvider() }).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
