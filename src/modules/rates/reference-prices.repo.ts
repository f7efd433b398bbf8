// The only SQL of the live reference prices: every price with its fetch time, and the upsert of a refresh.
import type { Db } from '../../db/transaction.js';

export interface ReferencePrice {
  asset: string;
  currency: string;
  price: string;
  updated_at: number;
}

export async function readReferencePrices(db: Db): Promise<ReferencePrice[]> {
  const rows = await db.selectFrom('reference_prices').select(['asset', 'currency', 'price', 'updated_at']).execute();
  return rows.map((r) => ({ ...r, updated_at: Number(r.updated_at) }));
}

/**
 * Records the prices of one refresh. A row only moves forward in time: a process that lost the lease in the
 * middle of a refresh and writes late never replaces a newer price with its older one.
 */
export async function saveReferencePrices(db: Db, prices: readonly ReferencePrice[]): Promise<void> {
  if (prices.length === 0) return;
  await db
    .insertInto('reference_prices')
    .values([...prices])
    .onConflict((oc) =>
      oc
        .columns(['asset', 'currency'])
        .doUpdateSet((eb) => ({ price: eb.ref('excluded.price'), updated_at: eb.ref('excluded.updated_at') }))
        .where((eb) => eb('reference_prices.updated_at', '<', eb.ref('excluded.updated_at'))),
    )
    .execute();
}
