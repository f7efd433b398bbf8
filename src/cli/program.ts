// The operator's `cowrie` command line. Every command takes --json. Each area's commands live in commands/;
// this file builds the program, registers them in the order `cowrie --help` lists them, and reports a
// failure.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { AppError, OperatorError } from '../shared/errors.js';
import { SecretsKeyError } from '../shared/secret-box.js';
import { registerDepositCommands } from './commands/deposits.js';
import { registerDeveloperCommands } from './commands/developer.js';
import { registerKeyCommands } from './commands/keys.js';
import { registerMerchantCommands } from './commands/merchants.js';
import { registerPayerCommands } from './commands/payers.js';
import { registerRefundCommands } from './commands/refunds.js';
import { registerPayoutCommands } from './commands/payouts.js';
import { registerSecretsCommands } from './commands/secrets.js';
import { registerServeAndMigrate } from './commands/serve-and-migrate.js';
import { CliFailure, CliSession, type CliIo } from './commands/session.js';
import { registerUserCommands } from './commands/users.js';

export type { CliIo } from './commands/session.js';
export { serviceUrls } from './commands/serve-and-migrate.js';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const wantJson = argv.includes('--json');
  const cli = new CliSession(io);
  const program = new Command('cowrie')
    .description('Cowrie payment-acceptance server: run it, administer merchants and keys, and (listen, trigger) try webhooks against it.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError();

  registerServeAndMigrate(program, cli);
  registerMerchantCommands(program, cli);
  registerKeyCommands(program, cli);
  registerRefundCommands(program, cli);
  registerPayoutCommands(program, cli);
  registerUserCommands(program, cli);
  registerDepositCommands(program, cli);
  registerPayerCommands(program, cli);
  registerDeveloperCommands(program, cli);
  registerSecretsCommands(program, cli);

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    cli.exitCode = reportFailure(err, wantJson, io);
  }
  return cli.exitCode;
}

function reportFailure(err: unknown, json: boolean, io: CliIo): number {
  if (err instanceof CommanderError) {
    // Help and version exit 0; usage errors have been printed by commander.
    return err.exitCode === 0 ? 0 : 2;
  }
  let code = 'error';
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof AppError || err instanceof CliFailure || err instanceof OperatorError) code = err.code;
  else if (err instanceof ConfigError) code = 'config_invalid';
  else if (err instanceof SecretsKeyError) code = 'secrets_key_invalid';
  if (json) io.out(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.err(`cowrie: ${message}\n`);
  return 1;
}

/** The package's version, read from package.json at the package root (the same depth from src/ and dist/). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
