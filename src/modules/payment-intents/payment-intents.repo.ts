// The only SQL of payment intents.
import { engineOf, forUpdate } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import { merchantNowSql } from '../../db/sandbox-offsets.js';
import type { PaymentIntentRow, PaymentIntentsTable } from '../../db/schema.js';
import type { Updateable } from 'kysely';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import type { IntentStatus } from './payment-intent.schema.js';
import { scopedRows } from '../../db/scoped.js';

/** The columns a move writes beside the status (never the intent's identity). */
export type IntentPatch = Omit<Updateable<PaymentIntentsTable>, 'status' | 'id' | 'merchant_id' | 'environment'>;

/** The intents' INSERT as a query (their creation writes it with their events: events' addEvents). */
export function insertIntentsQuery(db: Q, rows: readonly PaymentIntentRow[]) {
  return db.insertInto('payment_intents').values(rows.map(intentColumns));
}

/** The row with every column, in one order (one INSERT needs one shape for every row). */
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
    last_payment_error: r.last_payment_error,
    provider_reference: r.provider_reference,
    dispute: r.dispute,
    expires_at: r.expires_at,
    created_at: r.created_at,
    paid_at: r.paid_at,
    cancelled_at: r.cancelled_at,
    updated_at: r.updated_at,
  };
}

export async function findIntent(db: Q, scope: MerchantScope, id: string): Promise<PaymentIntentRow | undefined> {
  return scopedRows(db, 'payment_intents', scope).where('id', '=', id).executeTakeFirst();
}

/** The intent, row-locked for the rest of the transaction: moves and payments of one intent queue here. */
export async function lockIntent(tx: Tx, scope: MerchantScope, id: string): Promise<PaymentIntentRow | undefined> {
  return forUpdate(tx, scopedRows(tx, 'payment_intents', scope).where('id', '=', id)).executeTakeFirst();
}

/** An intent by id within one environment, whoever its merchant (the hosted checkout), with the merchant's name. */
export async function findIntentWithMerchantName(
  db: Q,
  environment: Environment,
  id: string,
): Promise<{ row: PaymentIntentRow; merchantName: string } | undefined> {
  const found = await db
    .selectFrom('payment_intents as pi')
    .innerJoin('merchants as m', 'm.id', 'pi.merchant_id')
    .selectAll('pi')
    .select('m.name as merchant_name')
    .where('pi.id', '=', id)
    .where('pi.environment', '=', environment)
    .executeTakeFirst();
  if (!found) return undefined;
  const { merchant_name, ...row } = found;
  return { row, merchantName: merchant_name };
}

export async function listIntents(
  db: Q,
  scope: MerchantScope,
  filter: { status?: IntentStatus },
  cursor: Cursor | null,
  limit: number,
): Promise<PaymentIntentRow[]> {
  let q = scopedRows(db, 'payment_intents', scope);
  if (filter.status) q = q.where('status', '=', filter.status);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/** The merchant's most recent intent of an environment (the sandbox trigger's sample). */
export async function latestIntent(db: Q, scope: MerchantScope): Promise<PaymentIntentRow | undefined> {
  return scopedRows(db, 'payment_intents', scope).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
}

/** Writes `patch` while the intent still has `status`; false when it has moved on. */
export async function updateIfStatus(
  tx: Tx,
  id: string,
  status: IntentStatus,
  patch: IntentPatch & { status?: IntentStatus },
): Promise<boolean> {
  const res = await tx.updateTable('payment_intents').set(patch).where('id', '=', id).where('status', '=', status).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Ids of intents still awaiting payment past their expiry, by each merchant's clock. */
export async function findOverdueIntentIds(
  db: Q,
  nowMs: number,
  opts: { merchantId?: string; environment?: Environment; limit: number },
): Promise<Array<{ id: string; merchant_id: string; environment: Environment }>> {
  let q = db
    .selectFrom('payment_intents as pi')
    .leftJoin('sandbox_clocks as sc', (join) => join.onRef('sc.merchant_id', '=', 'pi.merchant_id').on('pi.environment', '=', 'test'))
    .select(['pi.id', 'pi.merchant_id', 'pi.environment'])
    .where('pi.status', '=', 'awaiting_payment')
    .where('pi.expires_at', '<=', merchantNowSql(nowMs));
  if (opts.merchantId) q = q.where('pi.merchant_id', '=', opts.merchantId);
  if (opts.environment) q = q.where('pi.environment', '=', opts.environment);
  return q.orderBy('pi.expires_at').limit(opts.limit).execute();
}

/** Intents of a link that were paid (a later refund does not give the place back). */
export async function countPaidIntentsOfLink(db: Q, linkId: string): Promise<number> {
  const row = await db
    .selectFrom('payment_intents')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('payment_link', '=', linkId)
    .where('status', 'in', ['paid', 'refunded'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Paid intents of each of several links (one query for a page of links). */
export async function countPaidIntentsOfLinks(db: Q, linkIds: string[]): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payment_intents')
    .select((eb) => ['payment_link', eb.fn.countAll().as('n')])
    .where('payment_link', 'in', linkIds)
    .where('status', 'in', ['paid', 'refunded'])
    .groupBy('payment_link')
    .execute();
  return new Map(rows.map((r) => [r.payment_link!, Number(r.n)]));
}

/** The intent an operator names, whatever its merchant (the operator's commands). */
export async function findIntentById(db: Q, id: string): Promise<PaymentIntentRow | undefined> {
  return db.selectFrom('payment_intents').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Of these intents, those that ended (paid, failed, cancelled, refunded…) or expired unpaid at or before
 * `before`: their wallet amounts need not stay reserved.
 */
export async function intentsEndedBefore(db: Q, ids: readonly string[], before: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('payment_intents')
    .select('id')
    .where('id', 'in', ids)
    .where((pi) =>
      pi.or([
        pi.and([pi('status', '=', 'awaiting_payment'), pi('expires_at', '<=', before)]),
        pi.and([pi('status', 'not in', ['awaiting_payment', 'confirming']), pi('updated_at', '<=', before)]),
      ]),
    )
    .execute();
  return rows.map((r) => r.id);
}
