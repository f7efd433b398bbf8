// The only SQL of payment links, and of the count of a link's paid intents its cap is checked against.
import { forUpdate } from '../../db/dialect.js';
import type { PaymentLinkRow } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import { scopedRows } from '../../db/scoped.js';

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

/** Intents of a link that were paid (a later refund does not give the place back). */
export async function countPaidIntents(db: Q, linkId: string): Promise<number> {
  const row = await db
    .selectFrom('payment_intents')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('payment_link', '=', linkId)
    .where('status', 'in', ['paid', 'refunded'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The link's cap, its row locked for the rest of the transaction (concurrent payments queue here). */
export async function lockLinkCap(tx: Tx, linkId: string): Promise<{ id: string; max_payments: number | null } | undefined> {
  return forUpdate(tx, tx.selectFrom('payment_links').select(['id', 'max_payments']).where('id', '=', linkId)).executeTakeFirst();
}

/** A link's cap (checkout pages). */
export async function findLinkCap(db: Q, linkId: string): Promise<{ max_payments: number | null } | undefined> {
  return db.selectFrom('payment_links').select('max_payments').where('id', '=', linkId).executeTakeFirst();
}
