// The only SQL of rail payments: payments a rail started that finish later (STK push, PayPal approval).
import type { RailPaymentRow, RailPaymentState } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';
import { scopedRows } from '../../db/scoped.js';

export async function insertRailPayment(db: Q, row: RailPaymentRow): Promise<void> {
  await db.insertInto('rail_payments').values(row).execute();
}

export async function findRailPayment(db: Q, scope: MerchantScope, id: string): Promise<RailPaymentRow | undefined> {
  return scopedRows(db, 'rail_payments', scope).where('id', '=', id).executeTakeFirst();
}

/** The latest rail payment of an intent (what the checkout shows as the current attempt). */
export async function latestRailPayment(db: Q, intentId: string): Promise<RailPaymentRow | undefined> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('payment_intent_id', '=', intentId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Moves a rail payment from one state to another; true for the one caller that won the move. */
export async function moveRailPayment(
  db: Q,
  id: string,
  from: RailPaymentState,
  to: RailPaymentState,
  at: number,
  failureCode: string | null = null,
): Promise<boolean> {
  const res = await db
    .updateTable('rail_payments')
    .set({ state: to, failure_code: failureCode, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Pending payments whose provider should have answered by `now` (a lost callback, a process that died). */
export async function duePendingRailPayments(db: Q, now: number, limit: number): Promise<RailPaymentRow[]> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('state', '=', 'pending')
    .where('resolve_at', 'is not', null)
    .where('resolve_at', '<=', now)
    .orderBy('resolve_at')
    .limit(limit)
    .execute();
}

/** The rail payment a callback token belongs to (its SHA-256), whoever its merchant. */
export async function findByCallbackToken(db: Q, tokenHash: string): Promise<RailPaymentRow | undefined> {
  return db.selectFrom('rail_payments').selectAll().where('callback_token_hash', '=', tokenHash).executeTakeFirst();
}

/** A rail payment by id, whoever its merchant (the worker asking a provider about it). */
export async function findRailPaymentById(db: Q, id: string): Promise<RailPaymentRow | undefined> {
  return db.selectFrom('rail_payments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Writes what the provider answered when the payment was started (its request id, its own ids). */
export async function setProviderRequest(db: Q, id: string, externalId: string, details: string, at: number): Promise<void> {
  await db.updateTable('rail_payments').set({ external_id: externalId, details, updated_at: at }).where('id', '=', id).execute();
}

/**
 * Claims the next question about a pending payment: moves its due time from `dueAt` to `nextAt` and counts
 * the question; true for the one process that won it (the others saw another due time).
 */
export async function claimQuestion(db: Q, id: string, dueAt: number, nextAt: number, at: number): Promise<boolean> {
  const res = await db
    .updateTable('rail_payments')
    .set((eb) => ({ resolve_at: nextAt, queries: eb('queries', '+', 1), updated_at: at }))
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .where('resolve_at', '=', dueAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Stops asking about a pending payment (its intent can no longer be paid). */
export async function stopQuestions(db: Q, id: string, at: number): Promise<void> {
  await db
    .updateTable('rail_payments')
    .set({ resolve_at: null, updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * Keeps what a callback reported on a pending payment (its details, the provider's id when the answer to
 * the start was lost) and makes it due for a question at once; false when it is no longer pending.
 */
export async function recordCallback(db: Q, id: string, externalId: string, details: string, at: number): Promise<boolean> {
  const res = await db
    .updateTable('rail_payments')
    .set((eb) => ({ details, external_id: eb.fn.coalesce('external_id', eb.val(externalId)), resolve_at: at, updated_at: at }))
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Keeps the provider's reference of the money received (the M-Pesa receipt number). */
export async function setProviderReference(db: Q, id: string, reference: string): Promise<void> {
  await db.updateTable('rail_payments').set({ provider_reference: reference }).where('id', '=', id).execute();
}

/** The rail payment that paid an intent by a method (the one a refund is sent against). */
export async function succeededRailPayment(db: Q, intentId: string, method: string): Promise<RailPaymentRow | undefined> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('payment_intent_id', '=', intentId)
    .where('method', '=', method)
    .where('state', '=', 'succeeded')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The rail payment of a method with this provider id (a PayPal order id), whoever its merchant. */
export async function findByExternalId(db: Q, method: string, externalId: string): Promise<RailPaymentRow | undefined> {
  return db.selectFrom('rail_payments').selectAll().where('method', '=', method).where('external_id', '=', externalId).executeTakeFirst();
}

/** The rail payment of a method that succeeded with this provider reference (a PayPal capture id). */
export async function succeededRailPaymentByReference(db: Q, method: string, reference: string): Promise<RailPaymentRow | undefined> {
  return db
    .selectFrom('rail_payments')
    .selectAll()
    .where('method', '=', method)
    .where('provider_reference', '=', reference)
    .where('state', '=', 'succeeded')
    .executeTakeFirst();
}
