import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, EnvironmentColumn, IntentStatus, PaymentIntentRow, MerchantScope } from '../../db/schema.js';
import { forUpdate } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../http/pagination.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The merchant and environment every query here is confined to. */
export type Scope = MerchantScope;

export async function insertIntent(db: Q, row: PaymentIntentRow): Promise<void> {
  await db.insertInto('payment_intents').values(row).execute();
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
  return keysetPage(q, cursor, limit).execute();
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
