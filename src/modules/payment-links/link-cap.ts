// The cap of a payment link (`max_payments`), checked inside the payment's own transaction: the link's
// row is locked, its paid intents counted, and a payment that would go past the cap is declined. Of any
// number of concurrent payments, exactly as many as there are places left end paid.
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { forUpdate } from '../../db/dialect.js';
import { AppError } from '../../shared/errors.js';

/** Intents of a link that were paid (a later refund does not give the place back). */
export async function countPaidIntents(db: Kysely<DB> | Transaction<DB>, linkId: string): Promise<number> {
  const row = await db
    .selectFrom('payment_intents')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('payment_link', '=', linkId)
    .where('status', 'in', ['paid', 'refunded'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Locks the link and answers the refusal when it has no place left for one more paid intent, else null. */
export async function paymentLinkFull(trx: Transaction<DB>, linkId: string): Promise<AppError | null> {
  const link = await forUpdate(trx, trx.selectFrom('payment_links').select(['id', 'max_payments']).where('id', '=', linkId)).executeTakeFirst();
  if (!link || link.max_payments === null) return null;
  if ((await countPaidIntents(trx, linkId)) < link.max_payments) return null;
  return new AppError(
    'payment_link_completed',
    `The payment link ${linkId} already has its ${link.max_payments} paid payment${link.max_payments === 1 ? '' : 's'}; this payment was declined and the intent is still unpaid.`,
  );
}
