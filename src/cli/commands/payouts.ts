// `cowrie payouts list|approve|cancel`: the operator's decisions on merchants' payouts and payers' withdrawals
// (payouts of purpose `payer_withdrawal`, which the same commands approve and cancel). A live payout above
// COWRIE_PAYOUT_AUTO_APPROVE waits `requested` until approved (the sender then sends it) or cancelled (its
// hold returns to the merchant's available balance). A payout that is not waiting is refused, saying why.
import type { Command } from 'commander';
import type { PayoutRow } from '../../db/schema.js';
import { PAYOUT_STATUSES, payoutView } from '../../modules/payouts/index.js';
import { CliFailure, type CliSession, type JsonOpt } from './session.js';

/** The API's record, with what only the operator sees: the merchant (or, for a withdrawal, the payer), and whether it is approved. */
function operatorView(row: PayoutRow) {
  return { ...payoutView(row), merchant: row.merchant_id, payer: row.payer_id, approved: row.approved_at !== null };
}

export function registerPayoutCommands(program: Command, cli: CliSession): void {
  const payouts = program.command('payouts').description("Operator decisions on merchants' payouts");
  payouts
    .command('list')
    .description("Payouts of every merchant and payers' withdrawals, newest first")
    .option('--status <status>', `only this status (${PAYOUT_STATUSES.join(', ')})`)
    .option('--json', 'machine-readable output')
    .action(async (opts: JsonOpt & { status?: string }) => {
      if (opts.status !== undefined && !(PAYOUT_STATUSES as readonly string[]).includes(opts.status))
        throw new CliFailure(`--status must be one of ${PAYOUT_STATUSES.join(', ')}`, 'parameter_invalid');
      const status = opts.status as (typeof PAYOUT_STATUSES)[number] | undefined;
      const rows = await cli.withServices((s) => s.payouts.listAll(status ? { status } : {}));
      const lines = rows.map(
        (r) =>
          `${r.id}  ${r.environment.padEnd(4)}  ${r.status.padEnd(9)}${r.status === 'requested' ? (r.approved_at === null ? ' (waiting)' : ' (approved)') : ''}  ${r.amount} ${r.asset} on ${r.network.toUpperCase()} to ${r.address}  ${r.merchant_id ?? r.payer_id}${r.tx_hash ? `  ${r.tx_hash}` : ''}`,
      );
      cli.emit(opts, { payouts: rows.map(operatorView) }, rows.length === 0 ? 'No payouts.' : lines.join('\n'));
    });
  payouts
    .command('approve <payout_id>')
    .description('Approve a requested payout: the sender of its network sends it')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const row = await cli.withServices((s) => s.payouts.approve(id));
      cli.emit(opts, { payout: operatorView(row) }, `Payout ${row.id} of ${row.amount} ${row.asset} is approved; the sender sends it.`);
    });
  payouts
    .command('cancel <payout_id>')
    .description("Cancel a requested payout before it is sent: its hold returns to the merchant's available balance")
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const row = await cli.withServices((s) => s.payouts.cancel(id));
      cli.emit(
        opts,
        { payout: operatorView(row) },
        `Payout ${row.id} is cancelled; ${row.amount} ${row.asset} is ${row.payer_id ? `back in payer ${row.payer_id}'s balance` : 'available again'}.`,
      );
    });
}
