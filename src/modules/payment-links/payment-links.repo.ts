// The only SQL of payment links (the cap's lock lives beside the payment, in link-cap.ts).
import type { Kysely } from 'kysely';
import type { DB, MerchantScope } from '../../db/schema.js';
import type { PaymentLinkRow } from '../../db/schema-checkout.js';

/** The merchant and environment every query here is confined to. */
export type Scope = MerchantScope;

export async function insertLink(db: Kysely<DB>, row: PaymentLinkRow): Promise<void> {
  await db.insertInto('payment_links').values(row).execute();
}

export async function findLink(db: Kysely<DB>, scope: Scope, id: string): Promise<PaymentLinkRow | undefined> {
  return db
    .selectFrom('payment_links')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
}

/** A link by id within one environment, whoever its merchant (the public link page). */
export async function findLinkInEnvironment(db: Kysely<DB>, environment: 'live' | 'test', id: string): Promise<PaymentLinkRow | undefined> {
  return db.selectFrom('payment_links').selectAll().where('id', '=', id).where('environment', '=', environment).executeTakeFirst();
}
