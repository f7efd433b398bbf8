// The only SQL of payers' M-Pesa top-ups. Every move of a top-up is one conditional UPDATE on its status, so
// that of two callbacks, two questions or two processes exactly one makes it (the caller checks the count).
import type { Updateable } from 'kysely';
import type { PayerMpesaTopupRow, PayerMpesaTopupStatus, PayerMpesaTopupsTable } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';

export async function insertTopup(db: Q, row: PayerMpesaTopupRow): Promise<void> {
  await db.insertInto('payer_mpesa_topups').values(row).execute();
}

export function findTopup(db: Q, id: string): Promise<PayerMpesaTopupRow | undefined> {
  return db.selectFrom('payer_mpesa_topups').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findByCallbackToken(db: Q, tokenHash: string): Promise<PayerMpesaTopupRow | undefined> {
  return db.selectFrom('payer_mpesa_topups').selectAll().where('callback_token_hash', '=', tokenHash).executeTakeFirst();
}

/** A payer's latest top-ups, newest first (ids begin with their creation time: src/shared/ids.ts). */
export function listTopups(db: Q, payerId: string, limit: number): Promise<PayerMpesaTopupRow[]> {
  return db.selectFrom('payer_mpesa_topups').selectAll().where('payer_id', '=', payerId).orderBy('id', 'desc').limit(limit).execute();
}

/** Pending top-ups whose next STK query is due. */
export function dueTopups(db: Q, now: number, limit: number): Promise<PayerMpesaTopupRow[]> {
  return db
    .selectFrom('payer_mpesa_topups')
    .selectAll()
    .where('status', '=', 'pending')
    .where('resolve_at', '<=', now)
    .orderBy('resolve_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a top-up from `from` to the patch's status (or changes it within `from`); true for the one caller
 * that moved it. `extra` narrows the move (a quote still unexpired, a question still due at its time).
 */
export async function moveTopup(
  db: Q,
  id: string,
  from: PayerMpesaTopupStatus,
  patch: Updateable<PayerMpesaTopupsTable>,
  extra: { unexpiredAt?: number; dueAt?: number } = {},
): Promise<boolean> {
  let q = db.updateTable('payer_mpesa_topups').set(patch).where('id', '=', id).where('status', '=', from);
  if (extra.unexpiredAt !== undefined) q = q.where('quote_expires_at', '>', extra.unexpiredAt);
  if (extra.dueAt !== undefined) q = q.where('resolve_at', '=', extra.dueAt);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Keeps what a success callback reported and makes the top-up due for a question now; false when no longer pending. */
export async function recordCallback(
  db: Q,
  id: string,
  hint: { checkoutRequestId: string; receipt: string; paidKes: number },
  at: number,
): Promise<boolean> {
  const res = await db
    .updateTable('payer_mpesa_topups')
    .set((eb) => ({
      checkout_request_id: eb.fn.coalesce('checkout_request_id', eb.val(hint.checkoutRequestId)),
      mpesa_receipt: hint.receipt,
      paid_kes: hint.paidKes,
      resolve_at: at,
      updated_at: at,
    }))
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
