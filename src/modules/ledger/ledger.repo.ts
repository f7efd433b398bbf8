// The only SQL of the ledger: legs are written, never updated; balances are sums of them.
import type { Insertable } from 'kysely';
import type { LedgerEntriesTable } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';

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
