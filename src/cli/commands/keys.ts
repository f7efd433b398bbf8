// `cowrie keys …`: list, create, revoke and rotate a merchant's API keys.
import { Option, type Command } from 'commander';
import { listKeys, revokeKey, rotateKey } from '../../modules/keys/index.js';
import { createKey, findMerchant } from '../../modules/merchants/index.js';
import { systemClock } from '../../shared/clock.js';
import { CliFailure, commaList, type CliSession, type JsonOpt } from './session.js';

interface CreateKeyOpts extends JsonOpt {
  merchant: string;
  env: 'test' | 'live';
  type: 'secret' | 'restricted' | 'publishable';
  scopes?: string[];
  allowIp?: string[];
}

export function registerKeyCommands(program: Command, cli: CliSession): void {
  const keys = program.command('keys').description('List, create, revoke and rotate API keys');
  registerListAndCreate(keys, cli);
  registerRevokeAndRotate(keys, cli);
}

function registerListAndCreate(keys: Command, cli: CliSession): void {
  keys
    .command('list')
    .description("List a merchant's keys (never their secrets)")
    .requiredOption('--merchant <merchant_id>', 'owning merchant')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { merchant: string }) => {
      const found = await cli.withDb(async (d) => {
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
      cli.emit(opts, { object: 'list', data: found }, table);
    });
  keys
    .command('create')
    .description('Create an API key (shown once)')
    .requiredOption('--merchant <merchant_id>', 'owning merchant')
    .addOption(new Option('--env <env>', 'environment').choices(['test', 'live']).makeOptionMandatory())
    .addOption(new Option('--type <type>', 'key type').choices(['secret', 'restricted', 'publishable']).default('secret'))
    .option('--scopes <list>', 'comma-separated scopes (restricted keys)', commaList)
    .option('--allow-ip <list>', 'comma-separated addresses or CIDR ranges (live keys)', commaList)
    .option('--json', 'machine-readable output')
    .action(async (opts: CreateKeyOpts) => {
      const issued = await cli.withDb((d) =>
        createKey(d.db, systemClock, {
          merchantId: opts.merchant,
          environment: opts.env,
          type: opts.type,
          scopes: opts.scopes,
          allowedIps: opts.allowIp,
        }),
      );
      cli.emit(opts, issued, `Key ${issued.id} (${issued.environment} ${issued.type}): ${issued.key}\nShown once; store it now.`);
    });
}

function registerRevokeAndRotate(keys: Command, cli: CliSession): void {
  keys
    .command('revoke <key_id>')
    .description('Revoke a key at once')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const k = await cli.withDb((d) => revokeKey(d.db, systemClock, id));
      cli.emit(
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
      const r = await cli.withDb((d) => rotateKey(d.db, systemClock, id, hours));
      cli.emit(
        opts,
        r,
        `New key ${r.new_key.id}: ${r.new_key.key}\nShown once. The old key ${r.old_key.id} works until ${r.old_key.expires_at}.`,
      );
    });
}
