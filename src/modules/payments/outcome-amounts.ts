// How much a reported outcome received, in the intent's settlement asset: what the rail said, or the
// amount each outcome stands for when the rail (the sandbox driver) did not say.
import type { PaymentIntentRow } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { Decimal, formatAmount, roundUp, type SettlementAsset } from '../../shared/money.js';
import type { PaymentOutcome } from '../payment-intents/index.js';

/**
 * The amount an outcome received: by default the amount still due (success, review, a first sighting on
 * chain), half of it (underpaid), 10 % more (overpaid), the whole price again (duplicate), what the
 * reversed transfer had brought (reversed), nothing (the others). An underpayment that is not under the
 * amount due, or an overpayment that is not over it, is refused.
 */
export function amountOf(outcome: PaymentOutcome, row: PaymentIntentRow, reported: Decimal | undefined): Decimal | AppError {
  const asset = row.settlement_currency as SettlementAsset;
  const due = new Decimal(row.pay_amount).minus(row.amount_received);
  switch (outcome) {
    case 'success':
    case 'review':
    case 'seen':
      return reported ?? due;
    case 'reversed':
      return reported ?? new Decimal(row.amount_received);
    case 'overpaid': {
      const amount = reported ?? roundUp(due.mul('1.1'), asset);
      return amount.gt(due) ? amount : amountRefused(`an overpayment is more than the ${formatAmount(due, asset)} ${asset} due`);
    }
    case 'underpaid': {
      const amount = reported ?? roundUp(due.div(2), asset);
      return amount.lt(due) ? amount : amountRefused(`an underpayment is less than the ${formatAmount(due, asset)} ${asset} due`);
    }
    case 'duplicate':
      return reported ?? new Decimal(row.pay_amount);
    default:
      return new Decimal(0);
  }
}

function amountRefused(rule: string): AppError {
  return new AppError('parameter_invalid', `Invalid amount: ${rule}`, { param: 'amount' });
}
