// The console's payment search and the home page's volume: the SQL over payment intents (and their
// customers) that the owner's filters need, each condition served by an index (migration 0023) so that a
// page stays fast at 100,000 payments on both engines.
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
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

/**
 * The search box's readings, each alone: one query per reading lets each engine use that reading's index
 * (an OR of them, under ORDER BY created_at, is planned as a scan of every payment).
 */
function readings(db: Q, s: NonNullable<PaymentFilter['search']>) {
  const engine = engineOf(db);
  type Where = (eb: ExpressionBuilder<DB, 'payment_intents'>) => Expression<SqlBool>;
  const out: Where[] = [];
  if (s.idPrefix) out.push(() => startsWith(engine, 'payment_intents.id', s.idPrefix!));
  if (s.referencePrefix) out.push(() => startsWith(engine, 'payment_intents.merchant_reference', s.referencePrefix!));
  // The intent's customer (JSON: a stored customer's id, email and phone, or inline ones).
  if (s.email?.length) out.push((eb) => eb(jsonTextField(engine, 'customer', 'email'), 'in', s.email!));
  if (s.phone?.length) out.push((eb) => eb(jsonTextField(engine, 'customer', 'phone'), 'in', s.phone!));
  if (s.amounts?.length) out.push((eb) => eb('payment_intents.amount', 'in', s.amounts!));
  return out;
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
  return q;
}

type Cursor = { created_at: number; id: string } | null;

/** The filter's queries: one per reading of the search box (none matches nothing), or the filter alone. */
function queries(db: Q, scope: MerchantScope, f: PaymentFilter): IntentQuery[] {
  const base = filtered(db, scope, f);
  if (!f.search) return [base];
  return readings(db, f.search).map((where) => base.where(where));
}

/** Runs each query for `limit` rows after the cursor, newest first, and merges them (a row once). */
async function merged<R extends { id: string; created_at: number }>(
  db: Q,
  qs: IntentQuery[],
  select: (q: IntentQuery) => SelectQueryBuilder<DB, 'payment_intents', R>,
  cursor: Cursor,
  limit: number,
): Promise<R[]> {
  const engine = engineOf(db);
  const pages = await Promise.all(
    qs.map((q) => {
      let sq = select(q);
      if (cursor)
        sq = sq.where(keysetBefore(engine, 'payment_intents.created_at', 'payment_intents.id', cursor.created_at, cursor.id) as never);
      return sq.orderBy('payment_intents.created_at', 'desc').orderBy('payment_intents.id', 'desc').limit(limit).execute();
    }),
  );
  const seen = new Map<string, R>();
  for (const row of pages.flat()) seen.set(row.id, row);
  return [...seen.values()]
    .sort((a, b) => Number(b.created_at) - Number(a.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit);
}

/** Ids of the filtered payments, newest first, `limit + 1` of them after the keyset cursor. */
export async function filteredIntentIds(db: Q, scope: MerchantScope, f: PaymentFilter, cursor: Cursor, limit: number): Promise<string[]> {
  const rows = await merged(
    db,
    queries(db, scope, f),
    (q) => q.select(['payment_intents.id', 'payment_intents.created_at']),
    cursor,
    limit + 1,
  );
  return rows.map((r) => r.id);
}

/** The CSV's rows of the filtered payments, newest first, `limit` after the cursor. */
export async function filteredIntentRows(db: Q, scope: MerchantScope, f: PaymentFilter, cursor: Cursor, limit: number) {
  return merged(
    db,
    queries(db, scope, f),
    (q) =>
      q.select([
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
      ]),
    cursor,
    limit,
  );
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
