// The console's payment search and the home page's volume: the SQL over payment intents (and their
// customers) that the owner's filters need, each condition served by an index (migration 0023) so that a
// page stays fast at 100,000 payments on both engines.
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { engineOf, jsonTextField, keysetBefore, startsWith } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import type { Q } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';

/** What the owner filters by; every part optional. Times are UTC ms, `to` exclusive. */
export interface PaymentFilter {
  /** The search box, as the service read it. */
  search?: {
    idPrefix?: string;
    referencePrefix?: string;
    email?: string[];
    phone?: string[];
    amounts?: string[];
  };
  status?: string;
  method?: string;
  from?: number;
  to?: number;
}

type IntentQuery = SelectQueryBuilder<DB, 'payment_intents', object>;

/** The search box's conditions, OR-ed: any reading of the text that matches. */
function searchCondition(db: Q, s: NonNullable<PaymentFilter['search']>) {
  const engine = engineOf(db);
  return (eb: ExpressionBuilder<DB, 'payment_intents'>) => {
    const any = [];
    if (s.idPrefix) any.push(startsWith(engine, 'payment_intents.id', s.idPrefix));
    if (s.referencePrefix) any.push(startsWith(engine, 'payment_intents.merchant_reference', s.referencePrefix));
    // The intent's customer (JSON: a stored customer's id, email and phone, or inline ones).
    if (s.email?.length) any.push(eb(jsonTextField(engine, 'customer', 'email'), 'in', s.email));
    if (s.phone?.length) any.push(eb(jsonTextField(engine, 'customer', 'phone'), 'in', s.phone));
    if (s.amounts?.length) any.push(eb('payment_intents.amount', 'in', s.amounts));
    return any.length === 0 ? sql<boolean>`1 = 0` : eb.or(any);
  };
}

function filtered(db: Q, scope: MerchantScope, f: PaymentFilter): IntentQuery {
  let q = db
    .selectFrom('payment_intents')
    .where('payment_intents.merchant_id', '=', scope.merchantId)
    .where('payment_intents.environment', '=', scope.environment);
  if (f.status) q = q.where('payment_intents.status', '=', f.status as never);
  if (f.method) q = q.where('payment_intents.payment_method', '=', f.method);
  if (f.from !== undefined) q = q.where('payment_intents.created_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('payment_intents.created_at', '<', f.to);
  if (f.search) q = q.where(searchCondition(db, f.search));
  return q;
}

/** Ids of the filtered payments, newest first, `limit + 1` of them after the keyset cursor. */
export async function filteredIntentIds(
  db: Q,
  scope: MerchantScope,
  f: PaymentFilter,
  cursor: { created_at: number; id: string } | null,
  limit: number,
): Promise<string[]> {
  let q = filtered(db, scope, f).select(['payment_intents.id']);
  if (cursor)
    q = q.where(keysetBefore(engineOf(db), 'payment_intents.created_at', 'payment_intents.id', cursor.created_at, cursor.id) as never);
  const rows = await q
    .orderBy('payment_intents.created_at', 'desc')
    .orderBy('payment_intents.id', 'desc')
    .limit(limit + 1)
    .execute();
  return rows.map((r) => r.id);
}

/** The CSV's rows of the filtered payments, newest first, `limit` after the cursor. */
export async function filteredIntentRows(
  db: Q,
  scope: MerchantScope,
  f: PaymentFilter,
  cursor: { created_at: number; id: string } | null,
  limit: number,
) {
  let q = filtered(db, scope, f).select([
    'payment_intents.id',
    'payment_intents.created_at',
    'payment_intents.paid_at',
    'payment_intents.status',
    'payment_intents.amount',
    'payment_intents.currency',
    'payment_intents.settlement_currency',
    'payment_intents.pay_amount',
    'payment_intents.payment_method',
    'payment_intents.merchant_reference',
  ]);
  if (cursor)
    q = q.where(keysetBefore(engineOf(db), 'payment_intents.created_at', 'payment_intents.id', cursor.created_at, cursor.id) as never);
  return q.orderBy('payment_intents.created_at', 'desc').orderBy('payment_intents.id', 'desc').limit(limit).execute();
}

/** When an intent of the scope was created (a keyset cursor), or undefined. */
export async function intentCreatedAt(db: Q, scope: MerchantScope, id: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('payment_intents')
    .select('created_at')
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
  return row ? Number(row.created_at) : undefined;
}

/**
 * Paid payments since `since`, summed per currency and quarter hour (the merchant's days are made of them
 * in any zone): amounts as integers of the currency's smallest unit (every amount of a currency is stored
 * with its decimals), so the sums are exact on both engines.
 */
export async function paidVolume(db: Q, scope: MerchantScope, since: number) {
  const rows = await db
    .selectFrom('payment_intents')
    .select((eb) => [
      'currency',
      sql<number>`(${eb.ref('paid_at')} / 900000)`.as('quarter'),
      eb.fn.countAll<number>().as('count'),
      sql<string>`sum(cast(replace(${eb.ref('amount')}, '.', '') as bigint))`.as('minor'),
    ])
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('paid_at', '>=', since)
    .where('status', '=', 'paid')
    .groupBy(['currency', sql`(${sql.ref('paid_at')} / 900000)`])
    .execute();
  return rows.map((r) => ({ currency: r.currency, quarter: Number(r.quarter), count: Number(r.count), minor: String(r.minor) }));
}
