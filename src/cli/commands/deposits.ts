// `cowrie deposits …`: the on-chain deposits the chain watchers have seen, and crediting an unmatched one.
import type { Command } from 'commander';
import { CliFailure, type CliSession, type JsonOpt } from './session.js';

interface ListDepositsOpts extends JsonOpt {
  network?: string;
  outcome?: string;
  state?: string;
  limit: string;
}

export function registerDepositCommands(program: Command, cli: CliSession): void {
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
    .action((opts: ListDepositsOpts) => listDeposits(cli, opts));
  deposits
    .command('claim <tx_hash>')
    .description('Credit an unmatched, confirmed deposit to a live payment intent that can still be paid')
    .requiredOption('--intent <payment_intent_id>', 'the payment intent to credit')
    .option('--index <event_index>', 'which transfer of the transaction, when it holds several')
    .option('--json', 'machine-readable output')
    .action(async (txHash: string, opts: JsonOpt & { intent: string; index?: string }) => {
      const deposit = await cli.withServices((s) => s.chainDeposits.claim(txHash, opts.intent, { eventIndex: opts.index }));
      cli.emit(opts, { deposit }, `Deposit ${deposit.tx_hash} (${deposit.amount} ${deposit.asset}) credited to ${deposit.payment_intent}.`);
    });
}

/** An option's value when it is one of `allowed` (or absent). */
function pick<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new CliFailure(`--${name} must be one of ${allowed.join(', ')}`, 'parameter_invalid');
  return value as T;
}

async function listDeposits(cli: CliSession, opts: ListDepositsOpts): Promise<void> {
  const network = pick('network', opts.network, ['base', 'polygon', 'tron', 'solana'] as const);
  const outcome = pick('outcome', opts.outcome, ['credited', 'duplicate', 'unmatched', 'claimed'] as const);
  const state = pick('state', opts.state, ['pending', 'confirmed', 'removed'] as const);
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new CliFailure('--limit must be a whole number from 1 to 1000', 'parameter_invalid');
  const list = await cli.withServices((s) => s.chainDeposits.list({ network, outcome, state }, limit));
  cli.emit(
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
}
