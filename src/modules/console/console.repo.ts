// The only SQL of the console: its users, their sessions and the audit log.
import type { Insertable } from 'kysely';
import type { AuditLogRow, AuditLogTable, ConsoleUserRow, ConsoleUsersTable } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';

export async function insertUser(db: Q, row: Insertable<ConsoleUsersTable>): Promise<void> {
  await db.insertInto('console_users').values(row).execute();
}

export async function findUserByEmail(db: Q, email: string): Promise<ConsoleUserRow | undefined> {
  return db.selectFrom('console_users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findUser(db: Q, id: string): Promise<ConsoleUserRow | undefined> {
  return db.selectFrom('console_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setPassword(db: Q, id: string, hash: string, now: number): Promise<void> {
  await db
    .updateTable('console_users')
    .set({ password_hash: hash, failed_logins: 0, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** One more wrong password; the fifth in a row locks the account until `lockUntil`. Answers the count. */
export async function countFailedLogin(db: Q, id: string, lockAfter: number, lockUntil: number, now: number): Promise<number> {
  await db
    .updateTable('console_users')
    .set((eb) => ({ failed_logins: eb('failed_logins', '+', 1), updated_at: now }))
    .where('id', '=', id)
    .execute();
  const row = await db.selectFrom('console_users').select('failed_logins').where('id', '=', id).executeTakeFirstOrThrow();
  const failed = Number(row.failed_logins);
  if (failed >= lockAfter) {
    await db.updateTable('console_users').set({ locked_until: lockUntil, failed_logins: 0 }).where('id', '=', id).execute();
  }
  return failed;
}

export async function resetFailedLogins(db: Q, id: string, now: number): Promise<void> {
  await db.updateTable('console_users').set({ failed_logins: 0, locked_until: null, updated_at: now }).where('id', '=', id).execute();
}

export async function setTotp(
  db: Q,
  id: string,
  patch: { totp_secret?: string | null; totp_pending?: string | null },
  now: number,
): Promise<void> {
  await db
    .updateTable('console_users')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function insertSession(
  db: Q,
  row: { id: string; user_id: string; csrf: string; created_at: number; expires_at: number },
): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

export async function findSession(db: Q, id: string) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('console_users as u', 'u.id', 's.user_id')
    .select(['s.id as session_id', 's.csrf', 's.expires_at', 'u.id', 'u.merchant_id', 'u.email', 'u.role', 'u.totp_secret'])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

export async function touchSession(db: Q, id: string, expiresAt: number): Promise<void> {
  await db.updateTable('console_sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function deleteSession(db: Q, id: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', id).execute();
}

/** Every session of a user but `keep` (a password change signs the other browsers out). */
export async function deleteSessionsOf(db: Q, userId: string, keep?: string): Promise<void> {
  let q = db.deleteFrom('console_sessions').where('user_id', '=', userId);
  if (keep) q = q.where('id', '<>', keep);
  await q.execute();
}

export async function insertAudit(db: Q, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

export async function listAudit(db: Q, merchantId: string, limit: number): Promise<AuditLogRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The events of one payment intent, oldest first (its timeline). */
export async function eventIdsOfIntent(db: Q, scope: { merchantId: string; environment: string }, intentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('events')
    .select('id')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment as 'test' | 'live')
    .where('payment_intent_id', '=', intentId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.id);
}

/** Every pay attempt of an intent (method, outcome, amount, failure), oldest first; the rails' own records are read apart. */
export async function attemptsOfIntent(db: Q, intentId: string) {
  return db
    .selectFrom('payment_attempts')
    .select(['id', 'payment_method', 'outcome', 'amount', 'asset', 'failure_code', 'created_at'])
    .where('payment_intent_id', '=', intentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Intents whose merchant_reference is exactly `reference` (the console's search), newest first. */
export async function intentIdsByReference(
  db: Q,
  scope: { merchantId: string; environment: string },
  reference: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('payment_intents')
    .select('id')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment as 'test' | 'live')
    .where('merchant_reference', '=', reference)
    .orderBy('created_at', 'desc')
    .limit(50)
    .execute();
  return rows.map((r) => r.id);
}

/** The merchant's transaction PIN state (hash, wrong ones in a row, lock). */
export async function findPin(db: Q, merchantId: string) {
  return db
    .selectFrom('merchants')
    .select(['pin_hash', 'pin_failures', 'pin_locked_until'])
    .where('id', '=', merchantId)
    .executeTakeFirst();
}

export async function setPin(db: Q, merchantId: string, hash: string): Promise<void> {
  await db.updateTable('merchants').set({ pin_hash: hash, pin_failures: 0, pin_locked_until: null }).where('id', '=', merchantId).execute();
}

/** One more wrong PIN; the `lockAfter`-th in a row locks PIN refunds until `lockUntil`. Answers the count. */
export async function countPinFailure(db: Q, merchantId: string, lockAfter: number, lockUntil: number): Promise<number> {
  await db
    .updateTable('merchants')
    .set((eb) => ({ pin_failures: eb('pin_failures', '+', 1) }))
    .where('id', '=', merchantId)
    .execute();
  const row = await db.selectFrom('merchants').select('pin_failures').where('id', '=', merchantId).executeTakeFirstOrThrow();
  const failed = Number(row.pin_failures);
  if (failed >= lockAfter)
    await db.updateTable('merchants').set({ pin_failures: 0, pin_locked_until: lockUntil }).where('id', '=', merchantId).execute();
  return failed;
}

export async function resetPinFailures(db: Q, merchantId: string): Promise<void> {
  await db.updateTable('merchants').set({ pin_failures: 0, pin_locked_until: null }).where('id', '=', merchantId).execute();
}

/** What the rails did for an intent (an STK push, a PayPal approval, a card charge), oldest first. */
export async function railPaymentsOfIntent(db: Q, intentId: string) {
  return db
    .selectFrom('rail_payments')
    .select(['id', 'method', 'state', 'failure_code', 'provider_reference', 'created_at', 'updated_at'])
    .where('payment_intent_id', '=', intentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
