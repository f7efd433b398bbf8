import { sql, type CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { DB, EnvironmentColumn, IntentStatus, PaymentIntentRow, MerchantScope } from '../../db/schema.js';
import { engineOf, forUpdate } from '../../db/dialect.js';
import { insertStatement } from '../../db/compiled.js';
import { keysetPage, type Cursor } from '../../http/pagination.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The merchant and environment every query here is confined to. */
export type Scope = MerchantScope;

export function insertIntentsStatement(db: Q, rows: readonly PaymentIntentRow[]): CompiledQuery {
  return insertStatement(db, 'payment_intents', rows.map(intentColumns));
}

/** The row with every column, in one order (insertRows needs one shape for every row). */
function intentColumns(r: PaymentIntentRow): PaymentIntentRow {
  return {
    id: r.id,
    merchant_id: r.merchant_id,
    environment: r.environment,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    settlement_currency: r.settlement_currency,
    pay_amount: r.pay_amount,
    rate: r.rate,
    description: r.description,
    merchant_reference: r.merchant_reference,
    payment_methods: r.payment_methods,
    customer: r.customer,
    metadata: r.metadata,
    return_url: r.return_url,
    payment_link: r.payment_link,
    payment_method: r.payment_method,
    amount_received: r.amount_received,
    failure_code: r.failure_code,
    expires_at: r.expires_at,
    created_at: r.created_at,
    paid_at: r.paid_at,
    cancelled_at: r.cancelled_at,
    updated_at: r.updated_at,
  };
}

export async function findIntent(db: Q, scope: Scope, id: string): Promise<PaymentIntentRow | undefined> {
  return db
    .selectFrom('payment_intents')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .executeTakeFirst();
}

export async function lockIntent(trx: Transaction<DB>, scope: Scope, id: string): Promise<PaymentIntentRow | undefined> {
  return forUpdate(
    trx,
    trx
      .selectFrom('payment_intents')
      .selectAll()
      .where('id', '=', id)
      .where('merchant_id', '=', scope.merchantId)
      .where('environment', '=', scope.environment),
  ).executeTakeFirst();
}

export async function listIntents(
  db: Q,
  scope: Scope,
  filter: { status?: IntentStatus },
  cursor: Cursor | null,
  limit: number,
): Promise<PaymentIntentRow[]> {
  let q = db
    .selectFrom('payment_intents')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment);
  if (filter.status) q = q.where('status', '=', filter.status);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/**
 * Ids of intents still awaiting payment past their expiry, by each merchant's clock: real time for live,
 * real time plus the merchant's sandbox offset for sandbox.
 */
export async function findOverdueIntentIds(
  db: Q,
  nowMs: number,
  opts: { merchantId?: string; environment?: EnvironmentColumn; limit: number },
): Promise<Array<{ id: string; merchant_id: string; environment: EnvironmentColumn }>> {
  let q = db
    .selectFrom('payment_intents as pi')
    .leftJoin('sandbox_clocks as sc', (join) =>
      join.onRef('sc.merchant_id', '=', 'pi.merchant_id').on('pi.environment', '=', 'test'),
    )
    .select(['pi.id', 'pi.merchant_id', 'pi.environment'])
    .where('pi.status', '=', 'awaiting_payment')
    .where('pi.expires_at', '<=', sql<number>`${nowMs} + coalesce(${sql.ref('sc.offset_ms')}, 0)`);
  if (opts.merchantId) q = q.where('pi.merchant_id', '=', opts.merchantId);
  if (opts.environment) q = q.where('pi.environment', '=', opts.environment);
  return q.orderBy('pi.expires_at').limit(opts.limit).execute();
}
