// The only SQL of idempotency keys: claimed under a unique (merchant, key) constraint, answered once done.
// The HTTP layer claims and replays keys (src/http/idempotency.ts); the response of a request that writes a
// record is saved by the record's own transaction (saveResponse in it, or saveResponseStatement in its
// batch), so that a crash can never leave the record without its response or the response without it.
import type { CompiledQuery, Insertable } from 'kysely';
import type { Db, IdempotencyKeysTable, Q } from './schema.js';

export interface KeyRef {
  merchantId: string;
  key: string;
  /** The claim's creation time: a later claim of the same key is another row. */
  createdAt: number;
}

/** Inserts the in-progress row; false when the key is already held. */
export async function claimKey(db: Db, row: Insertable<IdempotencyKeysTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'idem_key']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findKey(db: Db, merchantId: string, key: string): Promise<IdempotencyKeysTable | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('merchant_id', '=', merchantId).where('idem_key', '=', key).executeTakeFirst();
}

/** Forgets a key, only if it is still the row that was read (`state` too, when given). */
export async function forgetKey(db: Db, ref: KeyRef, state?: IdempotencyKeysTable['state']): Promise<void> {
  let q = db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', ref.merchantId)
    .where('idem_key', '=', ref.key)
    .where('created_at', '=', ref.createdAt);
  if (state) q = q.where('state', '=', state);
  await q.execute();
}

export type SavedResponse = Pick<IdempotencyKeysTable, 'status_code' | 'content_type' | 'response_body' | 'expires_at'>;

/** The key's response, remembered (only while the key is still this claim's). */
export function saveResponseStatement(db: Q, ref: KeyRef, response: SavedResponse): CompiledQuery {
  return db
    .updateTable('idempotency_keys')
    .set({ state: 'done', ...response })
    .where('merchant_id', '=', ref.merchantId)
    .where('idem_key', '=', ref.key)
    .where('created_at', '=', ref.createdAt)
    .compile();
}

export async function saveResponse(db: Q, ref: KeyRef, response: SavedResponse): Promise<void> {
  await db.executeQuery(saveResponseStatement(db, ref, response));
}
