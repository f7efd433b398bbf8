import { sql, type Insertable, type Updateable } from 'kysely';
import type { WebhookEndpointRow, WebhookEndpointsTable } from '../../db/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import { forUpdate } from '../../db/dialect.js';
import type { Q, Tx } from '../../db/transaction.js';
import { scopedRows } from '../../db/scoped.js';
import type { EndpointStatus } from './webhook.schema.js';

export async function insertEndpoint(db: Q, row: Insertable<WebhookEndpointsTable>): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Q, scope: MerchantScope, id: string): Promise<WebhookEndpointRow | undefined> {
  return scopedRows(db, 'webhook_endpoints', scope).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function listEndpoints(db: Q, scope: MerchantScope): Promise<WebhookEndpointRow[]> {
  return scopedRows(db, 'webhook_endpoints', scope)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countEndpoints(db: Q, scope: MerchantScope): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Soft delete: deliveries and attempts keep pointing at the endpoint's record. */
export async function markDeleted(db: Q, scope: MerchantScope, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: now, updated_at: now })
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Writes a patch to one merchant's endpoint that is not deleted; false when there is none. */
export async function updateEndpoint(db: Q, scope: MerchantScope, id: string, patch: Updateable<WebhookEndpointsTable>): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set(patch)
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Moves one merchant's endpoint that is not deleted from status `from` to `to`; false when it is not in
 * `from` (or does not exist). The condition makes the move safe beside a concurrent one: of two, only the
 * first moves the row.
 */
export async function changeStatus(
  db: Q,
  scope: MerchantScope,
  id: string,
  from: EndpointStatus,
  to: EndpointStatus,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('webhook_endpoints')
    .set({ status: to, updated_at: now })
    .where('id', '=', id)
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('deleted_at', 'is', null)
    .where(sql.ref('status'), '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * The distinct beginnings of every stored signing secret, deleted endpoints' included: `length`
 * characters, enough to hold a sealed value's version and key id.
 */
export async function secretBeginnings(db: Q, length: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(sql<string>`substr(secret, 1, ${sql.lit(length)})`.as('beginning'))
    .distinct()
    .execute();
  return rows.map((r) => r.beginning);
}

/** Every endpoint's id and stored secret, deleted ones included, locked until the transaction ends. */
export async function lockAllSecrets(tx: Tx): Promise<Array<{ id: string; secret: string }>> {
  return forUpdate(tx, tx.selectFrom('webhook_endpoints').select(['id', 'secret']).orderBy('id')).execute();
}

export async function setStoredSecret(tx: Tx, id: string, secret: string): Promise<void> {
  await tx.updateTable('webhook_endpoints').set({ secret }).where('id', '=', id).execute();
}
