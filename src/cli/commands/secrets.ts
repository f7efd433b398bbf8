// `cowrie secrets rotate`: seals every stored webhook endpoint secret with a new key, in one transaction.
// The keys in use are COWRIE_SECRETS_KEY (several, comma-separated, the sealing key first), or on SQLite
// without it the key file beside the database (src/secrets-key.ts).
import type { Command } from 'commander';
import { resealEndpointSecrets } from '../../modules/webhooks/index.js';
import { loadSecretsKeys, writeKeyFile, type SecretsKeys } from '../../secrets-key.js';
import { SecretBox, SecretsKeyError, keyIdOf, newSecretsKey, parseSecretsKey } from '../../shared/secret-box.js';
import { CliFailure, type CliSession, type JsonOpt } from './session.js';

type RotateOpts = JsonOpt & { newKey?: string };

export function registerSecretsCommands(program: Command, cli: CliSession): void {
  program
    .command('secrets')
    .description('The key that seals webhook endpoint secrets in the database')
    .command('rotate')
    .description('Seal every webhook endpoint secret with a new key, in one transaction (nothing changes if one does not open)')
    .option(
      '--new-key <key>',
      '32 random bytes as base64 or hex (openssl rand -base64 32); default: a fresh key written to the key file, ' +
        'or with COWRIE_SECRETS_KEY its first key',
    )
    .option('--json', 'machine-readable output')
    .action((opts: RotateOpts) => rotate(cli, opts));
}

/** The key to seal with: the one given, or a fresh one for the key file, or the first of COWRIE_SECRETS_KEY. */
function targetKey(current: SecretsKeys, given: string | undefined): Buffer {
  if (given !== undefined) {
    try {
      return parseSecretsKey(given);
    } catch (err) {
      throw new CliFailure(`--new-key: ${(err as Error).message}`, 'parameter_invalid');
    }
  }
  return current.source.kind === 'file' ? parseSecretsKey(newSecretsKey()) : current.keys[0]!;
}

async function rotate(cli: CliSession, opts: RotateOpts): Promise<void> {
  const current = loadSecretsKeys(cli.getConfig());
  if (current.source.kind === 'memory') throw new CliFailure('an in-memory database keeps no secrets to rotate', 'parameter_invalid');
  const target = targetKey(current, opts.newKey);
  const others = current.keys.filter((k) => !k.equals(target));
  const file = current.source.kind === 'file' ? current.source.path : null;
  // The key file holds the new key before any secret is sealed with it, and the old ones until every
  // secret is: whenever this stops, the file opens what the database holds.
  if (file) writeKeyFile(file, [target, ...others]);
  let outcome: { resealed: number; plain: number };
  try {
    outcome = await cli.withDb((d) => resealEndpointSecrets(d.db, SecretBox.of([target, ...others]), SecretBox.of([target])));
  } catch (err) {
    if (file) writeKeyFile(file, current.keys);
    throw err instanceof SecretsKeyError ? new CliFailure(`nothing was changed: ${err.message}`, 'secrets_key_invalid') : err;
  }
  if (file) writeKeyFile(file, [target]);
  const keyId = keyIdOf(target);
  const configured = current.keys.some((k) => k.equals(target));
  const next = file
    ? `The key file ${file} now holds only the new key. Restart the server: until then it cannot read the resealed secrets.`
    : configured
      ? 'Once every process runs with this key first in COWRIE_SECRETS_KEY, the other keys can be removed from it.'
      : 'Now set COWRIE_SECRETS_KEY to the new key on every process (the old keys may follow it, comma-separated) and ' +
        'restart them: until then they cannot read the resealed secrets.';
  cli.emit(
    opts,
    { object: 'secrets_rotation', key_id: keyId, resealed: outcome.resealed, sealed_from_plain_text: outcome.plain, key_file: file },
    `Sealed ${outcome.resealed} webhook endpoint secrets with key ${keyId}. ${next}`,
  );
}
