// The operator's `cowrie` command line (DECISIONS "Running it"). Every command takes --json.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { pino } from 'pino';
import { listKeys, revokeKey, rotateKey } from '../modules/keys/index.js';
import {
  createKey,
  createMerchant,
  findMerchant,
  listMerchants,
  merchantView,
  setMerchantLimits,
  setMerchantStatus,
  verifyMerchant,
  rejectMerchant,
} from '../modules/merchants/index.js';
import { userView } from '../modules/console/index.js';
import { serve } from './serve.js';
import { listen, trigger } from './listen.js';
import { refundView } from '../modules/refunds/index.js';
import { buildServices, type BuiltServices } from '../services.js';
import { systemClock } from '../shared/clock.js';
import { AppError, OperatorError } from '../shared/errors.js';

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Stops a long-running command (`listen`) as Ctrl-C does. */
  signal?: AbortSignal;
}

interface JsonOpt {
  json?: boolean;
}

class CliFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const wantJson = argv.includes('--json');
  let config: Config | null = null;
  const getConfig = () => (config ??= loadConfig(io.env));

  const emit = (opts: JsonOpt, value: unknown, human: string) => {
    io.out(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
  };

  /** Opens the database (migrated), runs the command, closes it. */
  const withDb = async <T>(fn: (database: Database) => Promise<T>): Promise<T> => {
    const database = openDatabase(getConfig().databaseUrl);
    try {
      await migrateToLatest(database);
      return await fn(database);
    } finally {
      await database.close();
    }
  };

  /** Opens the database (migrated) with every service built on it, runs the command, closes them. */
  const withServices = <T>(fn: (services: BuiltServices) => Promise<T>): Promise<T> =>
    withDb(async (database) => {
      const services = await buildServices(getConfig(), database, { logger: pino({ level: 'silent' }) });
      try {
        return await fn(services);
      } finally {
        await services.close();
      }
    });

  const program = new Command('cowrie')
    .description('Cowrie payment-acceptance server: run it, administer merchants and keys, and (listen, trigger) try webhooks against it.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError();

  program
    .command('serve')
    .description('Run the API (live and sandbox listeners), checkout and background workers')
    .addOption(
      new Option('--role <role>', 'all, api (HTTP only) or worker (background work only); COWRIE_ROLE').choices(['all', 'api', 'worker']),
    )
    .option('--processes <n>', 'processes on this machine (PostgreSQL only); COWRIE_PROCESSES')
    .option('--json', 'log start-up as JSON only')
    .action(async (opts: JsonOpt & { role?: string; processes?: string }) => {
      // A forked process takes its role from its primary, whatever the command line says.
      const overrides: Record<string, string> = {};
      if (!cluster.isWorker) {
        if (opts.role !== undefined) overrides['COWRIE_ROLE'] = opts.role;
        if (opts.processes !== undefined) overrides['COWRIE_PROCESSES'] = opts.processes;
      }
      config = loadConfig({ ...io.env, ...overrides });
      exitCode = await serve(config, {
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
                '',
              ].join('\n') + '\n',
            );
          }
        },
      });
    });

  program
    .command('migrate')
    .description('Apply database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt) => {
      const database = openDatabase(getConfig().databaseUrl);
      let outcome;
      try {
        outcome = await migrateToLatest(database);
      } finally {
        await database.close();
      }
      emit(opts, outcome, outcome.applied.length ? `Applied: ${outcome.applied.join(', ')}` : 'Database is up to date.');
    });

  const merchants = program.command('merchants').description('Create and administer merchants');
  merchants
    .command('list')
    .description('List every merchant')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt) => {
      const all = (await withDb((d) => listMerchants(d.db))).map(merchantView);
      const table = all.length
        ? all.map((m) => `${m.id}  ${m.kyb_status.padEnd(8)}  ${m.status.padEnd(9)}  ${m.created_at}  ${m.name}`).join('\n')
        : 'No merchants yet.';
      emit(opts, { object: 'list', data: all }, table);
    });
  merchants
    .command('create')
    .description('Create a merchant with its default app and sandbox keys (and a live key when --verified)')
    .requiredOption('--name <name>', 'business name')
    .option('--verified', 'mark business verification (KYB) as passed')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { name: string; verified?: boolean }) => {
      const created = await withDb((d) => createMerchant(d.db, systemClock, { name: opts.name, verified: opts.verified ?? false }));
      emit(
        opts,
        { merchant: { id: created.merchant.id, name: created.merchant.name, kyb_status: created.merchant.kyb_status }, keys: created.keys },
        [
          `Merchant ${created.merchant.id} (${created.merchant.name}), KYB ${created.merchant.kyb_status}`,
          `  sandbox secret key:  ${created.keys.test_secret}`,
          `  sandbox publishable: ${created.keys.test_publishable}`,
          ...(created.keys.live_secret ? [`  live secret key:     ${created.keys.live_secret}`] : []),
          'Keys are shown once.',
        ].join('\n'),
      );
    });
  merchants
    .command('verify <merchant_id>')
    .description('Mark a merchant as verified (KYB), allowing live keys')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const m = await withDb((d) => verifyMerchant(d.db, id));
      emit(opts, { merchant: m }, `Merchant ${m.id} is verified.`);
    });
  merchants
    .command('reject <merchant_id>')
    .description("Refuse a merchant's business verification (KYB); the owner sees the reason and may submit again")
    .requiredOption('--reason <text>', 'why, in words the owner reads in the console')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { reason: string }) => {
      const m = await withDb((d) => rejectMerchant(d.db, id, opts.reason));
      emit(opts, { merchant: m }, `Merchant ${m.id}'s verification is rejected.`);
    });
  merchants
    .command('limits <merchant_id>')
    .description("Set receiving caps in fiat value (decimal, or 'none' to remove one)")
    .option('--per-payment <amount>', 'cap on one payment')
    .option('--daily <amount>', 'cap over a rolling 24 hours')
    .option('--monthly <amount>', 'cap over a rolling 30 days')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { perPayment?: string; daily?: string; monthly?: string }) => {
      const m = await withDb((d) => setMerchantLimits(d.db, id, opts));
      emit(
        opts,
        { merchant: m },
        `Limits of ${m.id}: per payment ${m.limits.per_payment ?? 'none'}, daily ${m.limits.daily ?? 'none'}, monthly ${m.limits.monthly ?? 'none'}`,
      );
    });
  for (const [name, status, text] of [
    ['suspend', 'suspended', 'Suspend a merchant: its live keys answer 403 account_inactive'],
    ['reactivate', 'active', 'Reactivate a suspended merchant'],
  ] as const) {
    merchants
      .command(`${name} <merchant_id>`)
      .description(text)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: JsonOpt) => {
        const m = await withDb((d) => setMerchantStatus(d.db, id, status));
        emit(opts, { merchant: m }, `Merchant ${m.id} is ${m.status}.`);
      });
  }

  const keys = program.command('keys').description('List, create, revoke and rotate API keys');
  keys
    .command('list')
    .description("List a merchant's keys (never their secrets)")
    .requiredOption('--merchant <merchant_id>', 'owning merchant')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { merchant: string }) => {
      const found = await withDb(async (d) => {
        if (!(await findMerchant(d.db, opts.merchant))) return null;
        return listKeys(d.db, opts.merchant, systemClock.nowMs());
      });
      if (found === null) throw new CliFailure(`No such merchant: ${opts.merchant}`, 'resource_missing');
      const table = found.length
        ? found
            .map(
              (k) =>
                `${k.id}  ${k.environment.padEnd(4)}  ${k.type.padEnd(11)}  ${k.status.padEnd(7)}  ${k.hint}${k.scopes.length ? `  scopes: ${k.scopes.join(',')}` : ''}`,
            )
            .join('\n')
        : 'No keys.';
      emit(opts, { object: 'list', data: found }, table);
    });
  keys
    .command('create')
    .description('Create an API key (shown once)')
    .requiredOption('--merchant <merchant_id>', 'owning merchant')
    .addOption(new Option('--env <env>', 'environment').choices(['test', 'live']).makeOptionMandatory())
    .addOption(new Option('--type <type>', 'key type').choices(['secret', 'restricted', 'publishable']).default('secret'))
    .option('--scopes <list>', 'comma-separated scopes (restricted keys)', list)
    .option('--allow-ip <list>', 'comma-separated addresses or CIDR ranges (live keys)', list)
    .option('--json', 'machine-readable output')
    .action(
      async (
        opts: JsonOpt & {
          merchant: string;
          env: 'test' | 'live';
          type: 'secret' | 'restricted' | 'publishable';
          scopes?: string[];
          allowIp?: string[];
        },
      ) => {
        const issued = await withDb((d) =>
          createKey(d.db, systemClock, {
            merchantId: opts.merchant,
            environment: opts.env,
            type: opts.type,
            scopes: opts.scopes,
            allowedIps: opts.allowIp,
          }),
        );
        emit(opts, issued, `Key ${issued.id} (${issued.environment} ${issued.type}): ${issued.key}\nShown once; store it now.`);
      },
    );
  keys
    .command('revoke <key_id>')
    .description('Revoke a key at once')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const k = await withDb((d) => revokeKey(d.db, systemClock, id));
      emit(
        opts,
        { id: k.id, object: 'api_key', revoked: true, revoked_at: new Date(k.revoked_at!).toISOString() },
        `Key ${k.id} is revoked.`,
      );
    });
  keys
    .command('rotate <key_id>')
    .description('Issue a replacement key; the old one keeps working until it expires')
    .option('--expires-in-hours <hours>', 'grace period of the old key (0 ends it at once)', '24')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { expiresInHours: string }) => {
      const hours = Number(opts.expiresInHours);
      if (!/^\d+(\.\d+)?$/.test(opts.expiresInHours))
        throw new CliFailure('--expires-in-hours must be a number of hours', 'parameter_invalid');
      const r = await withDb((d) => rotateKey(d.db, systemClock, id, hours));
      emit(
        opts,
        r,
        `New key ${r.new_key.id}: ${r.new_key.key}\nShown once. The old key ${r.old_key.id} works until ${r.old_key.expires_at}.`,
      );
    });

  program
    .command('refunds')
    .description('Operator decisions on refunds')
    .command('review <refund_id>')
    .description('Mark a requested (live provider-rail) refund as succeeded or failed')
    .option('--succeed', 'the refund was paid out: the payment intent becomes refunded')
    .option('--fail', 'the refund failed: its funds return to the available balance; it can be asked for again')
    .option('--reference <ref>', "the provider's reference of the reversal you made (the M-Pesa transaction id)")
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { succeed?: boolean; fail?: boolean; reference?: string }) => {
      if (Boolean(opts.succeed) === Boolean(opts.fail))
        throw new CliFailure('give exactly one of --succeed and --fail', 'parameter_invalid');
      if (opts.reference !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(opts.reference))
        throw new CliFailure('--reference must be 1 to 64 letters, digits, dots, dashes or underscores', 'parameter_invalid');
      const refund = await withServices((s) => s.refunds.review(id, opts.succeed ? 'succeeded' : 'failed', opts.reference));
      emit(opts, { refund: refundView(refund) }, `Refund ${refund.id} of ${refund.payment_intent_id} is ${refund.status}.`);
    });

  const users = program.command('users').description('Console users: create them and reset their passwords');
  users
    .command('create')
    .description('A console user of a merchant, with a generated password (shown once)')
    .requiredOption('--merchant <merchant_id>', 'the merchant the user belongs to')
    .requiredOption('--email <email>', 'the email the user signs in with')
    .requiredOption('--role <role>', 'owner, developer or viewer')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { merchant: string; email: string; role: string }) => {
      const created = await withServices((s) => s.console.createUser(opts.merchant, opts.email, opts.role));
      emit(
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
      const reset = await withServices((s) => s.console.resetPassword(email));
      emit(
        opts,
        { user: userView(reset.user), password: reset.password },
        `New password of ${reset.user.email}: ${reset.password}\nShown once.`,
      );
    });

  const deposits = program
    .command('deposits')
    .description('On-chain deposits the chain watchers have seen (live external-wallet payments)');
  deposits
    .command('list')
    .description('Deposits seen on the watched networks, newest first')
    .option('--network <network>', 'only this network: base, polygon, tron or solana')
    .option('--outcome <outcome>', 'only deposits that came to this: credited, duplicate, unmatched or claimed')
    .option('--state <state>', 'only deposits in this state: pending, confirmed or removed')
    .option('--limit <n>', 'at most this many (1 to 1000)', '100')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { network?: string; outcome?: string; state?: string; limit: string }) => {
      const pick = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
        if (value === undefined) return undefined;
        if (!(allowed as readonly string[]).includes(value))
          throw new CliFailure(`--${name} must be one of ${allowed.join(', ')}`, 'parameter_invalid');
        return value as T;
      };
      const network = pick('network', opts.network, ['base', 'polygon', 'tron', 'solana'] as const);
      const outcome = pick('outcome', opts.outcome, ['credited', 'duplicate', 'unmatched', 'claimed'] as const);
      const state = pick('state', opts.state, ['pending', 'confirmed', 'removed'] as const);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new CliFailure('--limit must be a whole number from 1 to 1000', 'parameter_invalid');
      const list = await withServices((s) => s.chainDeposits.list({ network, outcome, state }, limit));
      emit(
        opts,
        { object: 'list', data: list },
        list.length === 0
          ? 'No deposits seen.'
          : list
              .map(
                (d) =>
                  `${d.id}  ${d.network.padEnd(7)} ${d.amount} ${d.asset}  ${d.state}${d.outcome ? `/${d.outcome}` : ''}${d.reason ? ` (${d.reason})` : ''}  ${d.tx_hash}  from ${d.sender}${d.payment_intent ? `  ${d.payment_intent}` : ''}`,
              )
              .join('\n'),
      );
    });
  deposits
    .command('claim <tx_hash>')
    .description('Credit an unmatched, confirmed deposit to a live payment intent that can still be paid')
    .requiredOption('--intent <payment_intent_id>', 'the payment intent to credit')
    .option('--index <event_index>', 'which transfer of the transaction, when it holds several')
    .option('--json', 'machine-readable output')
    .action(async (txHash: string, opts: JsonOpt & { intent: string; index?: string }) => {
      const deposit = await withServices((s) => s.chainDeposits.claim(txHash, opts.intent, { eventIndex: opts.index }));
      emit(opts, { deposit }, `Deposit ${deposit.tx_hash} (${deposit.amount} ${deposit.asset}) credited to ${deposit.payment_intent}.`);
    });

  // The merchant developer's commands: they talk to a running server through the SDK, never to the database.
  const clientOptions = (cmd: Command) =>
    cmd
      .option('--api-key <key>', 'a secret or restricted API key; COWRIE_API_KEY')
      .option('--base-url <url>', 'the API base URL (default COWRIE_SANDBOX_URL or http://localhost:4001/v1)');
  clientOptions(
    program
      .command('listen')
      .description('Forward every new event of the feed to a local URL, signed like a webhook delivery, until Ctrl-C')
      .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks')
      .option('--events <types>', 'only these event types, comma-separated', list)
      .option('--secret <secret>', 'sign with this cwk_whsec_ secret instead of a new one')
      .option('--json', 'one JSON object per line'),
  ).action(async (opts: JsonOpt & { forwardTo: string; events?: string[]; secret?: string; apiKey?: string; baseUrl?: string }) => {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    io.signal?.addEventListener('abort', onSignal, { once: true });
    try {
      exitCode = await listen(opts, io, stop.signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
  clientOptions(
    program
      .command('trigger')
      .description('Send a sample event of TYPE to your subscribed sandbox webhook endpoints (sandbox keys only)')
      .argument('[type]', 'an event type', 'payment_intent.paid')
      .option('--json', 'machine-readable output'),
  ).action(async (type: string, opts: JsonOpt & { apiKey?: string; baseUrl?: string }) => {
    await trigger(type, opts, io);
  });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    exitCode = reportFailure(err, wantJson, io);
  }
  return exitCode;
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
  if (json) io.out(`${JSON.stringify({ error: { code, message } })}\n`);
  else io.err(`cowrie: ${message}\n`);
  return 1;
}

/** The package's version, read from package.json at the package root (the same depth from src/ and dist/). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
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
