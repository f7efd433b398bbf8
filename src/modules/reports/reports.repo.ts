// The reports' SQL of settlements, by settlement time, newest first, keyset-paged on (time, id) so that the
// CSV export streams in batches with flat memory (paid payments are read through the payment-intents module
// the same way).
import { engineOf, keysetBefore } from '../../db/dialect.js';
import type { SettlementRow } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Q } from '../../db/transaction.js';

export type { KeyCursor, Window } from '../../db/pagination.js';
import type { KeyCursor, Window } from '../../db/pagination.js';

export type SettlementReportRow = Pick<
  SettlementRow,
  'id' | 'payment_intent_id' | 'asset' | 'amount' | 'status' | 'settled_at' | 'available_at'
>;

function settlementsIn(db: Q, scope: MerchantScope, w: Window) {
  return db
    .selectFrom('settlements')
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('created_at', '>=', w.startMs)
    .where('created_at', '<', w.endMs);
}

export async function countSettlements(db: Q, scope: MerchantScope, w: Window): Promise<number> {
  const r = await settlementsIn(db, scope, w)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

// A settlement's created_at is its settled_at; the list index is on created_at.
export async function settlementsPage(
  db: Q,
  scope: MerchantScope,
  w: Window,
  after: KeyCursor | null,
  limit: number,
): Promise<SettlementReportRow[]> {
  let q = settlementsIn(db, scope, w).select(['id', 'payment_intent_id', 'asset', 'amount', 'status', 'settled_at', 'available_at']);
  if (after) q = q.where(keysetBefore(engineOf(db), 'created_at', 'id', after.at, after.id));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function settlementCursor(db: Q, scope: MerchantScope, id: string): Promise<KeyCursor | null> {
  const r = await db
    .selectFrom('settlements')
    .select(['id', 'created_at'])
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return r ? { at: r.created_at, id: r.id } : null;
}
