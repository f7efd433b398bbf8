// The only SQL of pay attempts: every attempt of a payment (accepted, failed or declined), and the sums
// the receiving caps are checked against.
import type { PaymentAttemptsTable } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';

export async function insertAttempt(tx: Tx, row: PaymentAttemptsTable): Promise<void> {
  await tx.insertInto('payment_attempts').values(row).execute();
}

/** Sum of accepted attempts' USD value since `sinceMs` (merchant and environment). */
export async function acceptedUsdSince(tx: Tx, scope: MerchantScope, sinceMs: number): Promise<Decimal> {
  const rows = await tx
    .selectFrom('payment_attempts')
    .select('usd_value')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('counts_to_caps', '=', 1)
    .where('created_at', '>', sinceMs)
    .execute();
  return rows.reduce((sum, r) => sum.plus(r.usd_value), new Decimal(0));
}

/** Failed attempts of an intent (attempts that failed and left the intent payable). */
export async function countFailedAttempts(tx: Tx, intentId: string): Promise<number> {
  const row = await tx
    .selectFrom('payment_attempts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('payment_intent_id', '=', intentId)
    .where('outcome', '=', 'attempt_failed')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An on-chain sighting removed by a reorganisation: its money no longer counts towards the caps. */
export async function releaseSeenAttempts(tx: Tx, intentId: string): Promise<void> {
  await tx
    .updateTable('payment_attempts')
    .set({ counts_to_caps: 0 })
    .where('payment_intent_id', '=', intentId)
    .where('outcome', '=', 'seen')
    .where('counts_to_caps', '=', 1)
    .execute();
}
