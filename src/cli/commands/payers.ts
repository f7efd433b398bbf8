// `cowrie payers …`: payer accounts (the live service balance) as the operator sees them: list, show (with
// balances and movements), suspend and unsuspend, and the ledger adjustment of a balance, each audited.
import type { Command } from 'commander';
import type { PayerAccounts } from '../../modules/payers/index.js';
import { CliFailure, type CliSession, type JsonOpt } from './session.js';

interface ListOpts extends JsonOpt {
  environment?: string;
  status?: string;
  limit: string;
}

type Shown = Awaited<ReturnType<PayerAccounts['show']>>;

function describePayer(p: Shown): string {
  const lines = [
    `${p.id}  ${p.email}  ${p.livemode ? 'live' : 'sandbox'}  ${p.status}`,
    `  balances: ${(p.balances ?? []).map((b) => `${b.amount} ${b.asset}`).join(', ')}`,
  ];
  for (const m of p.movements) {
    lines.push(
      `  ${m.created_at}  ${m.kind.padEnd(10)} ${m.amount} ${m.asset}${m.payment_intent ? `  ${m.payment_intent}` : ''}${m.reason ? `  (${m.reason})` : ''}`,
    );
  }
  return lines.join('\n');
}

export function registerPayerCommands(program: Command, cli: CliSession): void {
  const payers = program.command('payers').description('Payer accounts (the live service balance): list, show, suspend, adjust');
  payers
    .command('list')
    .description('Payer accounts, newest first, with their balances')
    .option('--environment <env>', 'only live or test payers')
    .option('--status <status>', 'only active or suspended payers')
    .option('--limit <n>', 'at most this many (1 to 1000)', '100')
    .option('--json', 'machine-readable output')
    .action(async (opts: ListOpts) => {
      if (opts.environment !== undefined && opts.environment !== 'live' && opts.environment !== 'test')
        throw new CliFailure('--environment must be live or test', 'parameter_invalid');
      if (opts.status !== undefined && opts.status !== 'active' && opts.status !== 'suspended')
        throw new CliFailure('--status must be active or suspended', 'parameter_invalid');
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new CliFailure('--limit must be a whole number from 1 to 1000', 'parameter_invalid');
      const list = await cli.withServices((s) =>
        s.payerAccounts.list({
          ...(opts.environment ? { environment: opts.environment as 'live' | 'test' } : {}),
          ...(opts.status ? { status: opts.status as 'active' | 'suspended' } : {}),
          limit,
        }),
      );
      cli.emit(
        opts,
        { object: 'list', data: list },
        list.length === 0
          ? 'No payers.'
          : list
              .map(
                (p) =>
                  `${p.id}  ${p.email}  ${p.livemode ? 'live' : 'sandbox'}  ${p.status}  ${(p.balances ?? []).map((b) => `${b.amount} ${b.asset}`).join(', ')}`,
              )
              .join('\n'),
      );
    });
  payers
    .command('show <payer_id>')
    .description('One payer: status, balances and the latest movements')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const payer = await cli.withServices((s) => s.payerAccounts.show(id));
      cli.emit(opts, { payer }, describePayer(payer));
    });
  for (const [name, status, words] of [
    ['suspend', 'suspended', 'A suspended payer cannot pay or withdraw'],
    ['unsuspend', 'active', 'The payer can pay and withdraw again'],
  ] as const) {
    payers
      .command(`${name} <payer_id>`)
      .description(words)
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: JsonOpt) => {
        const payer = await cli.withServices((s) => s.payerAccounts.setStatus(id, status));
        cli.emit(opts, { payer }, `Payer ${payer.id} (${payer.email}) is ${payer.status}.`);
      });
  }
  payers
    .command('adjust <payer_id>')
    .description("A ledger adjustment of a payer's balance (audited); a negative amount debits, never below zero")
    .requiredOption('--amount <amount>', 'signed amount, e.g. 25 or -3.5')
    .requiredOption('--asset <asset>', 'USDT or USDC')
    .requiredOption('--reason <text>', 'why, kept with the movement and in the audit trail')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { amount: string; asset: string; reason: string }) => {
      const done = await cli.withServices((s) =>
        s.payerAccounts.adjust(id, { amount: opts.amount, asset: opts.asset, reason: opts.reason }),
      );
      cli.emit(
        opts,
        done,
        `Adjusted ${id} by ${opts.amount} ${opts.asset.toUpperCase()} (${done.movement}).\n${describePayer(done.payer)}`,
      );
    });
}
