// The SQL of the owner's settings: the merchant's users (the Team page), the merchant's time zone, and
// each user's single-use recovery codes.
import type { ConsoleRole, ConsoleUserRow } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';

export async function usersOf(db: Q, merchantId: string): Promise<ConsoleUserRow[]> {
  return db.selectFrom('console_users').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
}

/** Sets a user's role when the user is the merchant's; answers whether it was. */
export async function setRole(db: Q, merchantId: string, userId: string, role: ConsoleRole, now: number): Promise<boolean> {
  const r = await db
    .updateTable('console_users')
    .set({ role, updated_at: now })
    .where('id', '=', userId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Removes a user of the merchant with its sessions and recovery codes; answers whether there was one. */
export async function deleteUser(db: Q, merchantId: string, userId: string): Promise<boolean> {
  const user = await db
    .selectFrom('console_users')
    .select('id')
    .where('id', '=', userId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
  if (!user) return false;
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
  await db.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
  await db.deleteFrom('console_users').where('id', '=', userId).execute();
  return true;
}

/** How many owners the merchant has. */
export async function ownerCount(db: Q, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom('console_users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('merchant_id', '=', merchantId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function timeZoneOf(db: Q, merchantId: string): Promise<string | undefined> {
  return (await db.selectFrom('merchants').select('time_zone').where('id', '=', merchantId).executeTakeFirst())?.time_zone;
}

export async function setTimeZone(db: Q, merchantId: string, timeZone: string): Promise<void> {
  await db.updateTable('merchants').set({ time_zone: timeZone }).where('id', '=', merchantId).execute();
}

/** Replaces a user's recovery codes with new ones (their hashes). */
export async function replaceRecoveryCodes(db: Q, userId: string, hashes: string[], now: number): Promise<void> {
  await db.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length > 0) {
    await db
      .insertInto('console_recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: now })))
      .execute();
  }
}

/** Spends one recovery code: true when it was there (and now is not), so two uses of one code cannot both win. */
export async function spendRecoveryCode(db: Q, userId: string, hash: string): Promise<boolean> {
  const r = await db.deleteFrom('console_recovery_codes').where('user_id', '=', userId).where('code_hash', '=', hash).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function recoveryCodesLeft(db: Q, userId: string): Promise<number> {
  const row = await db
    .selectFrom('console_recovery_codes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
