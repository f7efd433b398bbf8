// The only SQL of the ledger: legs are written, never updated; balances are sums of them.
import type { Insertable } from 'kysely';
import type { LedgerEntriesTable, PayerLedgerEntriesTable } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';

export async function insertLegs(db: Q, legs: ReadonlyArray<Insertable<LedgerEntriesTable>>): Promise<void> {
  await db
    .insertInto('ledger_entries')
    .values([...legs])
    .execute();
}

/** Every leg of a merchant's environment on an account other than `world`. */
export async function legsOutsideWorld(
  db: Q,
  scope: MerchantScope,
  world: string,
): Promise<Array<{ asset: string; account: string; amount: string }>> {
  return db
    .selectFrom('ledger_entries')
    .select(['asset', 'account', 'amount'])
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('account', '<>', world)
    .execute();
}

export async function insertPayerLegs(db: Q, legs: ReadonlyArray<Insertable<PayerLedgerEntriesTable>>): Promise<void> {
  await db
    .insertInto('payer_ledger_entries')
    .values([...legs])
    .execute();
}

export function payerLegs(db: Q, payerId: string, environment: Environment, account: string) {
  return db
    .selectFrom('payer_ledger_entries')
    .select(['asset', 'amount'])
    .where('payer_id', '=', payerId)
    .where('environment', '=', environment)
    .where('account', '=', account)
    .execute();
}

export function payerBalanceLegsNewestFirst(db: Q, payerId: string, environment: Environment, account: string, limit: number) {
  return db
    .selectFrom('payer_ledger_entries')
    .selectAll()
    .where('payer_id', '=', payerId)
    .where('environment', '=', environment)
    .where('account', '=', account)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

/** The payer's debit leg of a payment from the balance, if a payer's balance paid the intent. */
export function payerPaymentLeg(db: Q, paymentIntentId: string, account: string) {
  return db
    .selectFrom('payer_ledger_entries')
    .select(['payer_id', 'asset', 'amount'])
    .where('payment_intent_id', '=', paymentIntentId)
    .where('account', '=', account)
    .where('kind', '=', 'payment')
    .orderBy('seq', 'asc')
    .executeTakeFirst();
}
