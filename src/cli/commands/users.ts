// `cowrie users …`: console users, created with a generated password, and password resets.
import type { Command } from 'commander';
import { userView } from '../../modules/console/index.js';
import type { CliSession, JsonOpt } from './session.js';

export function registerUserCommands(program: Command, cli: CliSession): void {
  const users = program.command('users').description('Console users: create them and reset their passwords');
  users
    .command('create')
    .description('A console user of a merchant, with a generated password (shown once)')
    .requiredOption('--merchant <merchant_id>', 'the merchant the user belongs to')
    .requiredOption('--email <email>', 'the email the user signs in with')
    .requiredOption('--role <role>', 'owner, developer or viewer')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { merchant: string; email: string; role: string }) => {
      const created = await cli.withServices((s) => s.console.createUser(opts.merchant, opts.email, opts.role));
      cli.emit(
        opts,
        { user: userView(created.user), password: created.password },
        `Console user ${created.user.email} (${created.user.role}) of ${created.user.merchant_id}.\n  password: ${created.password}\nShown once.`,
      );
    });
  users
    .command('reset-password <email>')
    .description('A new generated password (shown once); signs the user out everywhere and lifts a lock')
    .option('--json', 'machine-readable output')
    .action(async (email: string, opts: JsonOpt) => {
      const reset = await cli.withServices((s) => s.console.resetPassword(email));
      cli.emit(
        opts,
        { user: userView(reset.user), password: reset.password },
        `New password of ${reset.user.email}: ${reset.password}\nShown once.`,
      );
    });
}
