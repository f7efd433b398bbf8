// The only SQL of payer accounts: payers, their sessions and their audit trail (their balances' legs are the
// ledger's: src/modules/ledger/payer-ledger.ts).
import type { Insertable } from 'kysely';
import { forUpdate } from '../../db/dialect.js';
import type { PayerAuditTable, PayerRow, PayerStatus, PayersTable } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment } from '../../shared/scope.js';

export async function insertPayer(db: Q, row: Insertable<PayersTable>): Promise<void> {
  await db.insertInto('payers').values(row).execute();
}

export function findPayer(db: Q, id: string): Promise<PayerRow | undefined> {
  return db.selectFrom('payers').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findPayerByEmail(db: Q, environment: Environment, email: string): Promise<PayerRow | undefined> {
  return db.selectFrom('payers').selectAll().where('environment', '=', environment).where('email', '=', email).executeTakeFirst();
}

/** The payer's row, locked until the transaction ends: payments and debits of one payer take turns on it. */
export function lockPayerRow(tx: Tx, id: string): Promise<PayerRow | undefined> {
  return forUpdate(tx, tx.selectFrom('payers').selectAll().where('id', '=', id)).executeTakeFirst();
}

export function listPayers(db: Q, opts: { environment?: Environment; status?: PayerStatus; limit: number }): Promise<PayerRow[]> {
  let q = db.selectFrom('payers').selectAll();
  if (opts.environment) q = q.where('environment', '=', opts.environment);
  if (opts.status) q = q.where('status', '=', opts.status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function setStatus(db: Q, id: string, status: PayerStatus, now: number): Promise<void> {
  await db.updateTable('payers').set({ status, updated_at: now }).where('id', '=', id).execute();
}

/** One more wrong password; the `lockAfter`-th in a row locks sign-in until `lockUntil`. Answers the count. */
export async function countFailedLogin(db: Q, id: string, lockAfter: number, lockUntil: number, now: number): Promise<number> {
  await db
    .updateTable('payers')
    .set((eb) => ({ failed_logins: eb('failed_logins', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
  const failed = Number(
    (await db.selectFrom('payers').select('failed_logins').where('id', '=', id).executeTakeFirstOrThrow()).failed_logins,
  );
  if (failed >= lockAfter) await db.updateTable('payers').set({ locked_until: lockUntil, failed_logins: 0 }).where('id', '=', id).execute();
  return failed;
}

export async function resetFailedLogins(db: Q, id: string, now: number): Promise<void> {
  await db.updateTable('payers').set({ failed_logins: 0, locked_until: null, updated_at: now }).where('id', '=', id).execute();
}

/** One more wrong PIN; the `lockAfter`-th in a row locks paying until `lockUntil`. Answers the count. */
export async function countPinFailure(db: Q, id: string, lockAfter: number, lockUntil: number): Promise<number> {
  await db
    .updateTable('payers')
    .set((eb) => ({ pin_failures: eb('pin_failures', '+', 1) }))
    .where('id', '=', id)
    .execute();
  const failed = Number((await db.selectFrom('payers').select('pin_failures').where('id', '=', id).executeTakeFirstOrThrow()).pin_failures);
  if (failed >= lockAfter)
    await db.updateTable('payers').set({ pin_failures: 0, pin_locked_until: lockUntil }).where('id', '=', id).execute();
  return failed;
}

export async function resetPinFailures(db: Q, id: string): Promise<void> {
  await db.updateTable('payers').set({ pin_failures: 0, pin_locked_until: null }).where('id', '=', id).execute();
}

/** Uses one recovery code: true for the one caller that removed it from the unused ones. */
export async function useRecoveryCode(db: Q, id: string, before: string, after: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('payers')
    .set({ recovery_codes: after, updated_at: now })
    .where('id', '=', id)
    .where('recovery_codes', '=', before)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function setTotp(
  db: Q,
  id: string,
  patch: { totp_secret?: string | null; totp_pending?: string | null; recovery_codes?: string | null },
  now: number,
) {
  await db
    .updateTable('payers')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function insertSession(db: Q, row: { id: string; payer_id: string; csrf: string; created_at: number; expires_at: number }) {
  await db.insertInto('payer_sessions').values(row).execute();
}

/** A session with its payer, only in the payer's environment (cookies do not tell ports apart). */
export function findSession(db: Q, id: string, environment: Environment) {
  return db
    .selectFrom('payer_sessions')
    .innerJoin('payers', 'payers.id', 'payer_sessions.payer_id')
    .select(['payer_sessions.id as session_id', 'payer_sessions.csrf', 'payer_sessions.expires_at'])
    .select(['payers.id', 'payers.environment', 'payers.email', 'payers.totp_secret'])
    .where('payer_sessions.id', '=', id)
    .where('payers.environment', '=', environment)
    .executeTakeFirst();
}

export async function touchSession(db: Q, id: string, expiresAt: number): Promise<void> {
  await db.updateTable('payer_sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function deleteSession(db: Q, id: string): Promise<void> {
  await db.deleteFrom('payer_sessions').where('id', '=', id).execute();
}

export async function deleteSessionsOf(db: Q, payerId: string): Promise<void> {
  await db.deleteFrom('payer_sessions').where('payer_id', '=', payerId).execute();
}

export async function insertAudit(db: Q, row: Insertable<PayerAuditTable>): Promise<void> {
  await db.insertInto('payer_audit').values(row).execute();
}

export function listAudit(db: Q, payerId: string, limit: number) {
  return db
    .selectFrom('payer_audit')
    .selectAll()
    .where('payer_id', '=', payerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
