// A rail payment (an attempt a rail started: an STK push, a PayPal approval, a card charge) and the outcome
// it leads to change in one transaction: the rail payment moves from the state it was read in to the
// state its outcome means, and the payments module applies the outcome to the intent. Both commit or
// neither does, so a crash between them can never leave one without the other, and of two callers that
// resolve one rail payment (a callback and a question, two processes) exactly one does.

import { transaction, type Db, type Tx } from '../../db/transaction.js';
import type { AppError } from '../../shared/errors.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { PaymentIntentRow, RailPaymentRow, RailPaymentState } from '../../db/schema.js';
import type { PaymentReport, PaymentService } from '../payments/index.js';
import * as repo from './rail-payments.repo.js';

/** What a rail payment's outcome is, without the intent and method (the rail payment carries both). */
export type RailOutcome = Omit<PaymentReport, 'intentId' | 'method'>;

/** What resolving came to: the intent after the outcome, or the refusal it met (the rail payment is then `declined`). */
export type Resolved = { intent: PaymentIntentRow } | { refused: AppError };

export const scopeOfRailPayment = (row: RailPaymentRow): MerchantScope => ({ merchantId: row.merchant_id, environment: row.environment });

/** The state a rail payment ends in when its outcome is accepted. */
function finalState(outcome: RailOutcome['outcome']): RailPaymentState {
  // `reversed`: a PayPal capture that was pending was denied; the attempt did not pay.
  if (outcome === 'failed' || outcome === 'attempt_failed' || outcome === 'reversed') return 'failed';
  if (outcome === 'cancelled') return 'cancelled';
  return 'succeeded';
}

/**
 * Resolves a rail payment read in state `from` with its outcome, in the caller's transaction: null when
 * another caller moved it first (nothing is written).
 */
export async function resolveIn(
  tx: Tx,
  payments: PaymentService,
  row: RailPaymentRow,
  from: RailPaymentState,
  outcome: RailOutcome,
  at: number,
): Promise<Resolved | null> {
  const state = finalState(outcome.outcome);
  if (!(await repo.moveRailPayment(tx, row.id, from, state, at, outcome.failureCode ?? null))) return null;
  if (outcome.providerReference !== undefined) await repo.setProviderReference(tx, row.id, outcome.providerReference);
  const applied = await payments.applyIn(tx, scopeOfRailPayment(row), {
    ...outcome,
    intentId: row.payment_intent_id,
    method: row.method as PaymentReport['method'],
  });
  if (applied.ok) return { intent: applied.row };
  await repo.moveRailPayment(tx, row.id, state, 'declined', at, applied.error.code);
  return { refused: applied.error };
}

/** As resolveIn, in a transaction of its own. */
export function resolveRailPayment(
  db: Db,
  payments: PaymentService,
  row: RailPaymentRow,
  from: RailPaymentState,
  outcome: RailOutcome,
  at: number,
): Promise<Resolved | null> {
  return transaction(db, (tx) => resolveIn(tx, payments, row, from, outcome, at));
}

/**
 * A rail payment whose provider answered in the same call (a card charged at once, a balance debited):
 * its outcome applied and the rail payment written with the state it came to, in one transaction. The
 * outcome goes first: it locks the merchant's row before anything that refers to it is written, the order
 * every payment takes (PostgreSQL would otherwise deadlock two of them).
 */
export function recordResolved(db: Db, payments: PaymentService, row: RailPaymentRow, outcome: RailOutcome): Promise<Resolved> {
  return transaction(db, async (tx) => {
    const applied = await payments.applyIn(tx, scopeOfRailPayment(row), {
      ...outcome,
      intentId: row.payment_intent_id,
      method: row.method as PaymentReport['method'],
    });
    await repo.insertRailPayment(tx, {
      ...row,
      state: applied.ok ? finalState(outcome.outcome) : 'declined',
      failure_code: applied.ok ? (outcome.failureCode ?? null) : applied.error.code,
      provider_reference: outcome.providerReference ?? null,
    });
    return applied.ok ? { intent: applied.row } : { refused: applied.error };
  });
}
