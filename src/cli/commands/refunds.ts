// `cowrie refunds approve|reject|review`: the operator's decisions on live provider-rail refunds: approve sends
// one through the payment's own rail, reject fails it with a reason, review records one made outside Cowrie.
import type { Command } from 'commander';
import { refundView } from '../../modules/refunds/index.js';
import { CliFailure, type CliSession, type JsonOpt } from './session.js';

export function registerRefundCommands(program: Command, cli: CliSession): void {
  const refunds = program.command('refunds').description('Operator decisions on refunds');
  refunds
    .command('approve <refund_id>')
    .description("Send a requested live refund through the payment's own rail (card: Paystack); it becomes pending")
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt) => {
      const refund = await cli.withServices((s) => s.refundDecisions.approve(id));
      cli.emit(opts, { refund: refundView(refund) }, `Refund ${refund.id} of ${refund.payment_intent_id} is ${refund.status}.`);
    });
  refunds
    .command('reject <refund_id>')
    .description('Refuse a requested refund: it becomes failed with the reason, and its funds return to the balance')
    .requiredOption('--reason <text>', "why (shown to the merchant as the refund's failure_reason)")
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: JsonOpt & { reason: string }) => {
      const reason = opts.reason.trim();
      if (reason.length === 0 || reason.length > 500) throw new CliFailure('--reason must be 1 to 500 characters', 'parameter_invalid');
      const refund = await cli.withServices((s) => s.refundDecisions.reject(id, reason));
      cli.emit(opts, { refund: refundView(refund) }, `Refund ${refund.id} of ${refund.payment_intent_id} is ${refund.status}: ${reason}`);
    });
  refunds
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
      const refund = await cli.withServices((s) => s.refunds.review(id, opts.succeed ? 'succeeded' : 'failed', opts.reference));
      cli.emit(opts, { refund: refundView(refund) }, `Refund ${refund.id} of ${refund.payment_intent_id} is ${refund.status}.`);
    });
}
