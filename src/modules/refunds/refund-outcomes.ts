// What moves a refund once it is asked for: its outcome (succeeded or failed, from a rail, a provider or the
// operator), recorded with its ledger movement, its event and, on success, the intent's move to `refunded`;
// and the move to `pending` when it is sent to its provider. Each in the caller's transaction.
import type { RefundRow } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import { Decimal, type SettlementAsset } from '../../shared/money.js';
import { recordEvent } from '../events/index.js';
import { ACCOUNTS, transfer } from '../ledger/index.js';
import { lockIntent, moveIntent, type CheckoutUrlFor } from '../payment-intents/index.js';
import { refundView } from './refund.schema.js';
import * as repo from './refunds.repo.js';

export function ledgerBase(row: RefundRow, at: number) {
  return {
    merchantId: row.merchant_id,
    environment: row.environment,
    asset: row.asset as SettlementAsset,
    at,
    paymentIntentId: row.payment_intent_id,
    refundId: row.id,
  };
}

async function refundUpdated(trx: Tx, row: RefundRow, at: number): Promise<void> {
  await recordEvent(trx, {
    merchantId: row.merchant_id,
    environment: row.environment,
    type: 'refund.updated',
    paymentIntentId: row.payment_intent_id,
    data: refundView(row),
    at,
  });
}

/** A requested refund sent to its provider: `pending`, asked about at `resolveAt` (or sent again if it never left). */
export async function markPending(trx: Tx, row: RefundRow, now: number, resolveAt: number): Promise<RefundRow> {
  if (row.status !== 'requested')
    throw new AppError('refund_exists', `Refund ${row.id} is already ${row.status}; only a requested refund can be approved.`);
  if (!(await repo.moveRefund(trx, row, 'pending', { updated_at: now, resolve_at: resolveAt }))) {
    throw new AppError('refund_exists', `Refund ${row.id} changed while it was approved.`);
  }
  const pending: RefundRow = { ...row, status: 'pending', updated_at: now, resolve_at: resolveAt };
  await refundUpdated(trx, pending, now);
  return pending;
}

/**
 * Records the outcome of a requested or pending refund (a rail's, its provider's or the operator's): success
 * pays the reserve out and moves the intent to `refunded`; failure returns the reserve to the available
 * balance, with why (`failureReason`), and the payment can be refunded again.
 */
export async function finishRefund(
  trx: Tx,
  deps: { checkoutUrl: CheckoutUrlFor },
  row: RefundRow,
  outcome: 'succeeded' | 'failed',
  now: number,
  opts: { railReference?: string; failureReason?: string } = {},
): Promise<RefundRow> {
  if (row.status !== 'requested' && row.status !== 'pending')
    throw new AppError('refund_exists', `Refund ${row.id} is already ${row.status}.`);
  const patch = {
    updated_at: now,
    rail_reference: opts.railReference ?? row.rail_reference,
    failure_reason: outcome === 'failed' ? (opts.failureReason ?? null) : null,
    resolve_at: null,
  };
  if (!(await repo.moveRefund(trx, row, outcome, patch))) {
    throw new AppError('refund_exists', `Refund ${row.id} changed while its outcome was recorded.`);
  }
  const done: RefundRow = { ...row, ...patch, status: outcome };
  await refundUpdated(trx, done, now);
  const amount = new Decimal(row.asset_amount);
  if (outcome === 'succeeded') {
    await transfer(trx, { ...ledgerBase(row, now), kind: 'refund' }, ACCOUNTS.refundReserved, ACCOUNTS.world, amount);
    const intent = (await lockIntent(trx, { merchantId: row.merchant_id, environment: row.environment }, row.payment_intent_id))!;
    await moveIntent(trx, { checkoutUrl: deps.checkoutUrl }, intent, 'refunded', { at: now, eventData: { refund: row.id } });
  } else {
    await transfer(trx, { ...ledgerBase(row, now), kind: 'refund_reversal' }, ACCOUNTS.refundReserved, ACCOUNTS.available, amount);
  }
  return done;
}
