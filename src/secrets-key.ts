// Where a process gets the keys that seal webhook endpoint secrets (src/shared/secret-box.ts):
// - COWRIE_SECRETS_KEY, when set: one key, or several separated by commas during a rotation;
// - otherwise, on SQLite, a key file beside the database (`<database dir>/cowrie-secrets.key`), made with
//   a fresh key and mode 0600 at first start: one key per line, the sealing key first;
// - otherwise (PostgreSQL) none: every process and machine sharing the database must read the secrets
//   with the same key, and a key made on one machine would be missing on the others, so the operator
//   provides it; the process refuses to start without it.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.js';
import { sqlitePath } from './db/database.js';
import { SecretBox, SecretsKeyError, newSecretsKey, parseSecretsKey } from './shared/secret-box.js';

export const KEY_FILE_NAME = 'cowrie-secrets.key';

/** Where the keys came from: the variable, the key file (and whether this start made it), or memory. */
export type SecretsKeySource =
  | { kind: 'env' }
  /** `exposed`: other users may read the file (its mode is not 0600). */
  | { kind: 'file'; path: string; created: boolean; exposed: boolean }
  | { kind: 'memory' };

export interface SecretsKeys {
  keys: Buffer[];
  source: SecretsKeySource;
}

export const MISSING_KEY_MESSAGE =
  'Invalid configuration:\n  COWRIE_SECRETS_KEY is not set. With PostgreSQL it is required: webhook endpoint secrets are ' +
  'stored encrypted with it, and every process and machine sharing the database must use the same key. Make ' +
  'one with `openssl rand -base64 32` and set it for every `cowrie` process.';

/** The key file of a SQLite database, or null for an in-memory one (or PostgreSQL). */
export function keyFilePath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  const path = sqlitePath(databaseUrl);
  return path === ':memory:' ? null : join(dirname(path), KEY_FILE_NAME);
}

/** The keys of this configuration, making the SQLite key file when there is none yet. */
export function loadSecretsKeys(config: Config): SecretsKeys {
  if (config.secretsKeys.length > 0) return { keys: [...config.secretsKeys], source: { kind: 'env' } };
  if (!config.databaseUrl.startsWith('sqlite:')) throw new ConfigError(MISSING_KEY_MESSAGE);
  const path = keyFilePath(config.databaseUrl);
  // An in-memory database keeps nothing past the process, so neither need its key.
  if (path === null) return { keys: [parseSecretsKey(newSecretsKey())], source: { kind: 'memory' } };
  const created = createKeyFile(path);
  const exposed = process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0;
  return { keys: readKeyFile(path), source: { kind: 'file', path, created, exposed } };
}

/** A box of this configuration's keys, loaded when a secret is first sealed or opened. */
export function lazySecretBox(config: Config): SecretBox {
  return new SecretBox(() => loadSecretsKeys(config).keys);
}

/** Makes the key file with one fresh key unless it exists (another process may make it at once): true when made here. */
function createKeyFile(path: string): boolean {
  if (existsSync(path)) return false;
  // Its folder is the database's, which openDatabase makes too; the key is read first (a fresh checkout's
  // `npm start` has no data/ folder yet).
  mkdirSync(dirname(path), { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeFileSync(fd, `${newSecretsKey()}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The keys of a key file, in order. */
export function readKeyFile(path: string): Buffer[] {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) throw new SecretsKeyError(`the secrets key file ${path} holds no key`);
  return lines.map((line, i) => {
    try {
      return parseSecretsKey(line);
    } catch (err) {
      throw new SecretsKeyError(`the secrets key file ${path}, key ${i + 1}: ${(err as Error).message}`);
    }
  });
}

/** Replaces the key file's keys at once (a new file renamed over it), keeping mode 0600. */
export function writeKeyFile(path: string, keys: readonly Buffer[]): void {
  const next = `${path}.next`;
  writeFileSync(next, keys.map((k) => `${k.toString('base64')}\n`).join(''), { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, path);
}

/**
 * The box of a server process: its keys loaded now, so that a start without them fails at once, and
 * where they came from in the start-up log (the key file by its path, never a key).
 */
export function openSecretBox(config: Config, logger: Logger): SecretBox {
  const { keys, source } = loadSecretsKeys(config);
  const box = SecretBox.of(keys);
  const key_ids = box.keyIds();
  if (source.kind === 'file') {
    logger.info(
      { key_file: source.path, key_ids },
      source.created
        ? 'created the webhook secrets key file: back it up with the database, whose webhook secrets cannot be read without it'
        : 'webhook secrets key read from its file',
    );
    if (source.exposed) logger.warn({ key_file: source.path }, 'other users can read the webhook secrets key file: chmod 600 it');
  } else if (source.kind === 'env') {
    logger.info({ key_ids }, 'webhook secrets key from COWRIE_SECRETS_KEY');
  } else {
    logger.info({ key_ids }, 'webhook secrets key made for this in-memory database');
  }
  return box;
}
