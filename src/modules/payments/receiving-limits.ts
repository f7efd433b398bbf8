// The merchant's receiving caps (per payment, rolling 24 hours, rolling 30 days), in the settlement asset's
// US dollar value, and the payment link's cap on paid payments: checked inside the payment's transaction,
// with the merchant's row (and the link's) locked, so concurrent payments never go past them together.
import type { Merchant, PaymentIntentRow } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { DAY_MS } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { PaymentOutcome } from '../payment-intents/index.js';
import type { LinkService } from '../payment-links/index.js';
import * as attempts from './payments.repo.js';

/** Outcomes whose money counts towards the receiving caps. */
const CAP_OUTCOMES = new Set<PaymentOutcome>(['success', 'overpaid', 'underpaid', 'review', 'duplicate', 'seen']);

/** Whether the money of this outcome counts towards the caps (a confirming intent's success was counted when it was seen). */
export function countsToCaps(outcome: PaymentOutcome, row: PaymentIntentRow, amount: Decimal): boolean {
  return CAP_OUTCOMES.has(outcome) && amount.gt(0) && !(row.status === 'confirming' && outcome === 'success');
}

/** The cap a payment worth `usd` would break ('per-payment', 'daily', 'monthly'), or null. */
export async function capBroken(tx: Tx, merchant: Merchant, scope: MerchantScope, usd: Decimal, now: number): Promise<string | null> {
  if (merchant.limit_per_payment !== null && usd.gt(merchant.limit_per_payment)) return 'per-payment';
  if (merchant.limit_daily !== null && (await attempts.acceptedUsdSince(tx, scope, now - DAY_MS)).plus(usd).gt(merchant.limit_daily)) {
    return 'daily';
  }
  if (
    merchant.limit_monthly !== null &&
    (await attempts.acceptedUsdSince(tx, scope, now - 30 * DAY_MS)).plus(usd).gt(merchant.limit_monthly)
  ) {
    return 'monthly';
  }
  return null;
}

export function capRefusal(cap: string): AppError {
  return new AppError(
    'MERCHANT_LIMIT_EXCEEDED',
    `This payment would exceed the merchant's ${cap} receiving limit; it was declined and the payment intent is still awaiting payment.`,
  );
}

/** The refusal of a payment that would pay an intent its link has no place left for, or null. */
export async function linkFull(tx: Tx, links: Pick<LinkService, 'capCheck'>, row: PaymentIntentRow, outcome: PaymentOutcome) {
  if (row.payment_link === null || (outcome !== 'success' && outcome !== 'overpaid')) return null;
  return links.capCheck(tx, row.payment_link);
}
