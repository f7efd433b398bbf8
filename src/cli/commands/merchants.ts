// `cowrie merchants …`: create merchants and administer their verification, limits and status.
import type { Command } from 'commander';
import {
  createMerchant,
  listMerchants,
  merchantView,
  setMerchantLimits,
  setMerchantStatus,
  verifyMerchant,
  rejectMerchant,
} from '../../modules/merchants/index.js';
import { userView } from '../../modules/console/index.js';
import { systemClock } from '../../shared/clock.js';
import type { CliSession, JsonOpt } from './session.js';

export function registerMerchantCommands(program: Command, cli: CliSession): void {
  const merchants = program.command('merchants').description('Create and administer merchants');
  registerListAndCreate(merchants, cli);
  registerVerification(merchants, cli);
  registerLimits(merchants, cli);
  registerStatus(merchants, cli);
}

function registerListAndCreate(merchants: Command, cli: CliSession): void {
  merchants
    .command('list')
    .description('List every merchant')
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt) => {
      const all = (await cli.withDb((d) => listMerchants(d.db))).map(merchantView);
      const table = all.length
        ? all.map((m) => `${m.id}  ${m.kyb_status.padEnd(8)}  ${m.status.padEnd(9)}  ${m.created_at}  ${m.name}`).join('\n')
        : 'No merchants yet.';
      cli.emit(opts, { object: 'list', data: all }, table);
    });
  merchants
    .command('create')
    .description('Create a merchant with its default app and sandbox keys (and a live key when --verified)')
    .requiredOption('--name <name>', 'business name')
    .option('--verified', 'mark business verification (KYB) as passed')
    .option('--owner-email <email>', "the console owner's email: the owner user is made with a one-time password (shown once)")
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { name: string; verified?: boolean; ownerEmail?: string }) => {
      const { created, owner } = await cli.withServices(async (s) => {
        // The email is checked before anything is made: a refused email makes no merchant.
        if (opts.ownerEmail !== undefined) await s.console.checkNewEmail(opts.ownerEmail);
        const created = await createMerchant(s.db, systemClock, { name: opts.name, verified: opts.verified ?? false });
        const owner = opts.ownerEmail === undefined ? null : await s.console.createUser(created.merchant.id, opts.ownerEmail, 'owner');
        return { created, owner };
      });
      cli.emit(
        opts,
        {
          merchant: { id: created.merchant.id, name: created.merchant.name, kyb_status: created.merchant.kyb_status },
          keys: created.keys,
          ...(owner ? { owner: { user: userView(owner.user), password: owner.password } } : {}),
        },
        [
          `Merchant ${created.merchant.id} (${created.merchant.name}), KYB ${created.merchant.kyb_status}`,
          `  sandbox secret key:  ${created.keys.test_secret}`,
          `  sandbox publishable: ${created.keys.test_publishable}`,
          ...(created.keys.live_secret ? [`  live secret key:     ${created.keys.live_secret}`] : []),
          ...(owner ? [`  console owner:       ${owner.user.email}`, `  console password:    ${owner.password}`] : []),
          owner ? 'Keys and the password are shown once.' : 'Keys are shown once.',
        ].join('\n'),
      );
    });
}

function registerVerification(merchants: Command, cli: CliSession): void {
  merchants
    .command('verify <merchant_id>')
    .description('Mark a merchant as verified (KYB), allowing live keys')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const m = await cli.withDb((d) => verifyMerchant(d.db, id));
      cli.emit(opts, { merchant: m }, `Merchant ${m.id} is verified.`);
    });
  merchants
    .command('reject <merchant_id>')
    .description("Refuse a merchant's business verification (KYB); the owner sees the reason and may submit again")
    .requiredOption('--reason <text>', 'why, in words the owner reads in the console')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { reason: string }) => {
      const m = await cli.withDb((d) => rejectMerchant(d.db, id, opts.reason));
      cli.emit(opts, { merchant: m }, `Merchant ${m.id}'s verification is rejected.`);
    });
}

function registerLimits(merchants: Command, cli: CliSession): void {
  merchants
    .command('limits <merchant_id>')
    .description("Set receiving caps in fiat value (decimal, or 'none' to remove one)")
    .option('--per-payment <amount>', 'cap on one payment')
    .option('--daily <amount>', 'cap over a rolling 24 hours')
    .option('--monthly <amount>', 'cap over a rolling 30 days')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { perPayment?: string; daily?: string; monthly?: string }) => {
      const m = await cli.withDb((d) => setMerchantLimits(d.db, id, opts));
      cli.emit(
        opts,
        { merchant: m },
        `Limits of ${m.id}: per payment ${m.limits.per_payment ?? 'none'}, daily ${m.limits.daily ?? 'none'}, monthly ${m.limits.monthly ?? 'none'}`,
      );
    });
}

function registerStatus(merchants: Command, cli: CliSession): void {
  for (const [name, status, text] of [
    ['suspend', 'suspended', 'Suspend a merchant: its live keys answer 403 account_inactive'],
    ['reactivate', 'active', 'Reactivate a suspended merchant'],
  ] as const) {
    merchants
      .command(`${name} <merchant_id>`)
      .description(text)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: JsonOpt) => {
        const m = await cli.withDb((d) => setMerchantStatus(d.db, id, status));
        cli.emit(opts, { merchant: m }, `Merchant ${m.id} is ${m.status}.`);
      });
  }
}
