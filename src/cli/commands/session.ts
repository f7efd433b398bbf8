// What every command of the `cowrie` command line shares: its input and output, the configuration read once,
// the database and the services opened for one command, and the failures it reports.
import { pino } from 'pino';
import { loadConfig, type Config } from '../../config.js';
import { openDatabase, type Database } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { lazySecretBox } from '../../secrets-key.js';
import { buildServices, type BuiltServices } from '../../services.js';
import type { SecretBox } from '../../shared/secret-box.js';

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Stops a long-running command (`listen`) as Ctrl-C does. */
  signal?: AbortSignal;
}

export interface JsonOpt {
  json?: boolean;
}

export class CliFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A comma-separated option value, as its trimmed, non-empty parts. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** One run of the command line: the command's exit code, and what its action needs. */
export class CliSession {
  exitCode = 0;
  private config: Config | null = null;
  private secrets: SecretBox | null = null;

  constructor(readonly io: CliIo) {}

  /** The configuration, read from the environment on first use. */
  getConfig(): Config {
    return (this.config ??= loadConfig(this.io.env));
  }

  /** The configuration a command has read itself (serve, with its options' overrides). */
  setConfig(config: Config): void {
    this.config = config;
  }

  emit(opts: JsonOpt, value: unknown, human: string): void {
    this.io.out(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
  }

  /**
   * The keys that seal webhook endpoint secrets, loaded when a command first needs them (most never do):
   * COWRIE_SECRETS_KEY, or on SQLite the key file beside the database.
   */
  getSecrets(): SecretBox {
    return (this.secrets ??= lazySecretBox(this.getConfig()));
  }

  /** Opens the database (migrated), runs the command, closes it. */
  async withDb<T>(fn: (database: Database) => Promise<T>): Promise<T> {
    const database = openDatabase(this.getConfig().databaseUrl);
    try {
      await migrateToLatest(database, { secrets: this.getSecrets() });
      return await fn(database);
    } finally {
      await database.close();
    }
  }

  /** Opens the database (migrated) with every service built on it, runs the command, closes them. */
  withServices<T>(fn: (services: BuiltServices) => Promise<T>): Promise<T> {
    return this.withDb(async (database) => {
      const services = await buildServices(this.getConfig(), database, { logger: pino({ level: 'silent' }), secrets: this.getSecrets() });
      try {
        return await fn(services);
      } finally {
        await services.close();
      }
    });
  }
}
