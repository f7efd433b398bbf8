import type { Insertable, Selectable } from 'kysely';
import { forUpdate } from '../../db/dialect.js';
import type { AppsTable, Merchant, MerchantsTable } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';

export async function insertMerchant(db: Q, row: Insertable<MerchantsTable>): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function insertApp(db: Q, row: Insertable<AppsTable>): Promise<void> {
  await db.insertInto('apps').values(row).execute();
}

export async function findMerchant(db: Q, id: string): Promise<Merchant | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The merchant, row-locked: the lock that makes receiving caps hold under concurrent payments. */
export async function lockMerchant(tx: Tx, id: string): Promise<Merchant | undefined> {
  return forUpdate(tx, tx.selectFrom('merchants').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** A merchant's name (the hosted checkout shows it). */
export async function findMerchantName(db: Q, id: string): Promise<string | undefined> {
  return (await db.selectFrom('merchants').select('name').where('id', '=', id).executeTakeFirst())?.name;
}

export async function findDefaultAppId(db: Q, merchantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('apps').select('id').where('merchant_id', '=', merchantId).where('is_default', '=', 1).executeTakeFirst();
  return row?.id;
}

export async function updateMerchant(
  db: Q,
  id: string,
  patch: Partial<Omit<Selectable<MerchantsTable>, 'id' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('merchants').set(patch).where('id', '=', id).execute();
}

export async function countMerchants(db: Q): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts a named flag once; true only for the caller that inserted it. */
export async function claimSystemFlag(db: Q, name: string, now: number): Promise<boolean> {
  const res = await db
    .insertInto('system_flags')
    .values({ name, created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Every merchant, oldest first (the operator's listing). */
export async function listMerchants(db: Q): Promise<Merchant[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

/** The business verification a merchant's owner submitted, and what became of it. */
export async function findVerification(db: Q, id: string) {
  return db
    .selectFrom('merchants')
    .select(['kyb_status', 'kyb_details', 'kyb_reason', 'kyb_submitted_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}
