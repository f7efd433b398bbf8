// Payers' balances in the double-entry ledger: the same rules as merchants' (every movement is one set of
// legs summing to zero in its asset, written in the caller's transaction, balances are sums of legs), kept
// in legs of their own because a payer belongs to no merchant. Accounts, per payer, environment and asset:
//   payer_balance   what the payer holds (never negative: see lockPayerFunds' callers)
//   world           the outside that money comes from (a top-up, a refund) and goes to (a payment)
//   payer_payout_held  held for a withdrawal from its request until it is paid (to world) or released
// A payment from the balance is two movements in one transaction: payer_balance -> world here, and
// world -> merchant_pending in the merchant's ledger, for the same payment intent.
import type { Q } from '../../db/transaction.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, type SettlementAsset } from '../../shared/money.js';
import type { Environment } from '../../shared/scope.js';
import { UnbalancedMovement } from './ledger.service.js';
import * as repo from './ledger.repo.js';

export const PAYER_ACCOUNTS = { balance: 'payer_balance', world: 'world', payoutHeld: 'payer_payout_held' } as const;
export type PayerAccount = (typeof PAYER_ACCOUNTS)[keyof typeof PAYER_ACCOUNTS];

/** The assets payers hold. */
export const PAYER_ASSETS = ['USDT', 'USDC'] as const satisfies readonly SettlementAsset[];
export type PayerAsset = (typeof PAYER_ASSETS)[number];

export type PayerMovementKind = 'top_up' | 'payment' | 'refund' | 'adjustment' | 'withdrawal' | 'withdrawal_sent' | 'withdrawal_reversal';

export interface PayerMovement {
  payerId: string;
  environment: Environment;
  asset: PayerAsset;
  kind: PayerMovementKind;
  /** Signed: positive credits the payer's balance, negative debits it. */
  amount: Decimal;
  at: number;
  paymentIntentId?: string | null;
  refundId?: string | null;
  merchantId?: string | null;
  reason?: string | null;
  payoutId?: string | null;
}

/** Writes one balanced movement between the payer's balance and the world. */
export function postPayerMovement(trx: Q, m: PayerMovement): Promise<string> {
  return payerTransfer(trx, m, PAYER_ACCOUNTS.world, PAYER_ACCOUNTS.balance);
}

/** Moves `m.amount` (signed: a negative amount moves the other way) from one of the payer's accounts to another. */
export async function payerTransfer(trx: Q, m: PayerMovement, from: PayerAccount, to: PayerAccount): Promise<string> {
  if (m.amount.isZero() || from === to) throw new UnbalancedMovement(m.kind, m.amount);
  const movementId = newId('ledger_movement');
  const leg = (account: string, amount: Decimal) => ({
    movement_id: movementId,
    payer_id: m.payerId,
    environment: m.environment,
    asset: m.asset,
    account,
    amount: formatAmount(amount, m.asset),
    kind: m.kind,
    payment_intent_id: m.paymentIntentId ?? null,
    refund_id: m.refundId ?? null,
    merchant_id: m.merchantId ?? null,
    reason: m.reason ?? null,
    payout_id: m.payoutId ?? null,
    created_at: m.at,
  });
  await repo.insertPayerLegs(trx, [leg(to, m.amount), leg(from, m.amount.neg())]);
  return movementId;
}

/** A payer's balance per asset it may hold (zero for one it never held). */
export async function payerBalances(db: Q, payerId: string, environment: Environment): Promise<Record<PayerAsset, Decimal>> {
  // Summed in decimal.js on both engines: SQLite stores the amounts as text and would sum them as floats.
  const rows = await repo.payerLegs(db, payerId, environment, PAYER_ACCOUNTS.balance);
  const out = { USDT: new Decimal(0), USDC: new Decimal(0) };
  for (const r of rows) {
    if (r.asset === 'USDT' || r.asset === 'USDC') out[r.asset] = out[r.asset].plus(r.amount);
  }
  return out;
}

/** A payer's movements, newest first, as the wallet page lists them. */
export async function payerMovements(db: Q, payerId: string, environment: Environment, limit: number) {
  const rows = await repo.payerBalanceLegsNewestFirst(db, payerId, environment, PAYER_ACCOUNTS.balance, limit);
  return rows.map((r) => ({
    id: r.movement_id,
    kind: r.kind as PayerMovementKind,
    asset: r.asset as PayerAsset,
    amount: new Decimal(r.amount),
    payment_intent: r.payment_intent_id,
    refund: r.refund_id,
    reason: r.reason,
    created_at: Number(r.created_at),
  }));
}

/** The payer whose balance paid an intent, and the amount, or null when no payer's balance paid it. */
export async function payerOfPayment(db: Q, paymentIntentId: string) {
  const row = await repo.payerPaymentLeg(db, paymentIntentId, PAYER_ACCOUNTS.balance);
  return row ? { payerId: row.payer_id, asset: row.asset as PayerAsset, amount: new Decimal(row.amount).neg() } : null;
}

/**
 * A refund of a payment made from a payer's balance goes back to that balance at once, in the refund's own
 * transaction: the merchant's refund reserve goes to the world in the merchant's ledger, and the world
 * credits the payer here, for the same refund. Nothing when no payer's balance paid the intent.
 */
export async function creditRefundToPayer(
  trx: Q,
  refund: { id: string; payment_intent_id: string; merchant_id: string; environment: Environment; asset_amount: string },
  at: number,
): Promise<boolean> {
  const paid = await payerOfPayment(trx, refund.payment_intent_id);
  if (!paid) return false;
  await postPayerMovement(trx, {
    payerId: paid.payerId,
    environment: refund.environment,
    asset: paid.asset,
    kind: 'refund',
    // What left the merchant's balance: the settled amount, which for a balance payment is what the payer paid.
    amount: new Decimal(refund.asset_amount),
    at,
    paymentIntentId: refund.payment_intent_id,
    refundId: refund.id,
    merchantId: refund.merchant_id,
  });
  return true;
}
