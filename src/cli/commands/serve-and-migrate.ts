// `cowrie serve` runs the server; `cowrie migrate` applies the database migrations.
import cluster from 'node:cluster';
import { Option, type Command } from 'commander';
import { liveMethodsOf, loadConfig, type Config } from '../../config.js';
import { Decimal } from '../../shared/money.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { serve } from '../serve.js';
import type { CliSession, JsonOpt } from './session.js';

export function registerServeAndMigrate(program: Command, cli: CliSession): void {
  program
    .command('serve')
    .description('Run the API (live and sandbox listeners), checkout and background workers')
    .addOption(
      new Option('--role <role>', 'all, api (HTTP only) or worker (background work only); COWRIE_ROLE').choices(['all', 'api', 'worker']),
    )
    .option('--processes <n>', 'processes on this machine (PostgreSQL only); COWRIE_PROCESSES')
    .option('--json', 'log start-up as JSON only')
    .action((opts: JsonOpt & { role?: string; processes?: string }) => runServe(cli, opts));

  program
    .command('migrate')
    .description('Apply database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt) => {
      const database = openDatabase(cli.getConfig().databaseUrl);
      let outcome;
      try {
        outcome = await migrateToLatest(database, { secrets: cli.getSecrets() });
      } finally {
        await database.close();
      }
      cli.emit(opts, outcome, outcome.applied.length ? `Applied: ${outcome.applied.join(', ')}` : 'Database is up to date.');
    });
}

async function runServe(cli: CliSession, opts: JsonOpt & { role?: string; processes?: string }): Promise<void> {
  const { io } = cli;
  // A forked process takes its role from its primary, whatever the command line says.
  const overrides: Record<string, string> = {};
  if (!cluster.isWorker) {
    if (opts.role !== undefined) overrides['COWRIE_ROLE'] = opts.role;
    if (opts.processes !== undefined) overrides['COWRIE_PROCESSES'] = opts.processes;
  }
  const config = loadConfig({ ...io.env, ...overrides });
  cli.setConfig(config);
  cli.exitCode = await serve(config, {
    out: io.out,
    json: opts.json ?? false,
    announce: (r) => {
      const urls = serviceUrls(r.config);
      if (!opts.json) {
        io.out(
          [
            'Cowrie is running:',
            `  API (live):     ${urls.live_api}`,
            `  API (sandbox):  ${urls.sandbox_api}`,
            `  Checkout:       ${urls.sandbox_checkout}  and  ${urls.live_checkout}  (each intent's checkout_url)`,
            `  Docs:           ${urls.docs}`,
            `  Console:        ${urls.console}`,
            `  Live methods:   ${liveMethodsOf(r.config).join(', ') || 'none configured (see the README: live payment rails)'}`,
            `  Payouts:        ${payoutSendersOf(r.config)}`,
            '',
          ].join('\n') + '\n',
        );
      }
    },
  });
}

/** The networks whose payout sender is configured (a hot wallet key), and what goes out without approval. */
function payoutSendersOf(config: Config): string {
  const networks = config.chains.filter((c) => c.payout).map((c) => c.network.toUpperCase());
  if (networks.length === 0) return 'no payout sender (set COWRIE_CHAIN_<NETWORK>_PAYOUT_KEY); payouts wait for one';
  const auto = config.payoutAutoApprove;
  const approval = new Decimal(auto).isZero()
    ? 'every payout waits for `cowrie payouts approve`'
    : `payouts up to ${auto} go out without approval`;
  return `sent from ${networks.join(', ')}; ${approval}`;
}

/** Where an operator or a developer reaches each part of the running service. */
export function serviceUrls(config: Config) {
  const sandbox = new URL(config.sandboxUrl).origin;
  const live = new URL(config.liveUrl).origin;
  return {
    live_api: config.liveUrl,
    sandbox_api: config.sandboxUrl,
    live_checkout: `${live}/checkout/<payment intent id>`,
    sandbox_checkout: `${sandbox}/checkout/<payment intent id>`,
    docs: `${sandbox}/docs`,
    console: `${sandbox}/console`,
  };
}
