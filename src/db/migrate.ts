// One ordered set of migrations for both engines, run at start and by `cowrie migrate`.
// Kysely's migrator takes a lock, so several processes starting at once migrate exactly once.
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database } from './database.js';
import * as m0001 from './migrations/0001-foundation.js';
import * as m0002 from './migrations/0002-payment-intents.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-payment-intents': m0002,
};

class StaticProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export interface MigrateOutcome {
  applied: string[];
}

export async function migrateToLatest(database: Database): Promise<MigrateOutcome> {
  const migrator = new Migrator({ db: database.db, provider: new StaticProvider() });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${String((result.error as Error).message ?? result.error)}`, {
      cause: result.error,
    });
  }
  return { applied: (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
