// The only SQL of payment links, and of the count of a link's paid intents its cap is checked against.
import { engineOf, forUpdate } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import type { Updateable } from 'kysely';
import type { PaymentLinkRow, PaymentLinksTable } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import { scopedRows, updateScoped } from '../../db/scoped.js';

export async function insertLink(db: Q, row: PaymentLinkRow): Promise<void> {
  await db.insertInto('payment_links').values(row).execute();
}

export async function findLink(db: Q, scope: MerchantScope, id: string): Promise<PaymentLinkRow | undefined> {
  return scopedRows(db, 'payment_links', scope).where('id', '=', id).executeTakeFirst();
}

/** A link by id within one environment, whoever its merchant (the public link page). */
export async function findLinkInEnvironment(db: Q, environment: Environment, id: string): Promise<PaymentLinkRow | undefined> {
  return db.selectFrom('payment_links').selectAll().where('id', '=', id).where('environment', '=', environment).executeTakeFirst();
}

/** The link's cap, its row locked for the rest of the transaction (concurrent payments queue here). */
export async function lockLinkCap(tx: Tx, linkId: string): Promise<{ id: string; max_payments: number | null } | undefined> {
  return forUpdate(tx, tx.selectFrom('payment_links').select(['id', 'max_payments']).where('id', '=', linkId)).executeTakeFirst();
}

/** A link's cap (checkout pages). */
export async function findLinkCap(db: Q, linkId: string): Promise<{ max_payments: number | null } | undefined> {
  return db.selectFrom('payment_links').select('max_payments').where('id', '=', linkId).executeTakeFirst();
}

/** A page of one merchant's links, newest first, optionally only active (or only deactivated) ones. */
export async function listLinks(
  db: Q,
  scope: MerchantScope,
  cursor: Cursor | null,
  limit: number,
  active: boolean | undefined,
): Promise<PaymentLinkRow[]> {
  let base = scopedRows(db, 'payment_links', scope);
  if (active !== undefined) base = base.where('active', '=', active ? 1 : 0);
  return keysetPage(engineOf(db), base, cursor, limit).execute();
}

/** The intent a visit of the link's page minted, if any. */
export async function findVisit(db: Q, linkId: string, visit: string): Promise<{ payment_intent_id: string } | undefined> {
  return db
    .selectFrom('payment_link_visits')
    .select('payment_intent_id')
    .where('link_id', '=', linkId)
    .where('visit', '=', visit)
    .executeTakeFirst();
}

/** Claims a visit for the intent about to be minted; false when the visit already names one. */
export async function claimVisit(db: Q, row: { link_id: string; visit: string; payment_intent_id: string; created_at: number }) {
  const res = await db
    .insertInto('payment_link_visits')
    .values(row)
    .onConflict((oc) => oc.columns(['link_id', 'visit']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Points a visit at a newer intent, if it still names `from` (of concurrent re-mints, one wins). */
export async function moveVisit(db: Q, linkId: string, visit: string, from: string, to: string): Promise<boolean> {
  const res = await db
    .updateTable('payment_link_visits')
    .set({ payment_intent_id: to })
    .where('link_id', '=', linkId)
    .where('visit', '=', visit)
    .where('payment_intent_id', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Writes a patch to one merchant's link; false when there is no such link. */
export function updateLink(db: Q, scope: MerchantScope, id: string, patch: Updateable<PaymentLinksTable>): Promise<boolean> {
  return updateScoped(db, 'payment_links', scope, id, patch);
}
