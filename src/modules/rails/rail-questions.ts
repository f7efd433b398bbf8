// Rail questions (a worker's clock job): the rails are asked about their pending payments whose answer is
// due, so a payment whose callback was lost, or whose process died waiting, is still resolved. Each rail's
// poll claims its question in the database and resolves a payment once, whoever asks.
import type { Q } from '../../db/transaction.js';
import type { PaymentMethod, RailRegistry } from '../payment-intents/index.js';
import { duePendingRailPayments } from './rail-payments.repo.js';

/** Asks each due pending payment's rail about it; answers how many were due. */
export async function askDueRailPayments(db: Q, rails: Pick<RailRegistry, 'railFor'>, now: number): Promise<number> {
  const due = await duePendingRailPayments(db, now, 500);
  for (const row of due) {
    const rail = rails.railFor(row.environment, row.method as PaymentMethod);
    await rail?.poll?.({ merchantId: row.merchant_id, environment: row.environment }, row.id);
  }
  return due.length;
}
