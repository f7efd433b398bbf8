import type { ApiKeyRow, Merchant, NewApiKey } from '../../db/schema.js';
import { forUpdate } from '../../db/dialect.js';
import { prepared } from '../../db/prepared.js';
import type { Q, Tx } from '../../db/transaction.js';

export async function insertKey(db: Q, row: NewApiKey): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findKeyById(db: Q, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface KeyWithMerchant {
  key: ApiKeyRow;
  merchant: Merchant;
  /** The merchant's sandbox clock offset, read in the same query (0 when never moved). */
  sandboxOffsetMs: number;
}

function keysWithMerchants(db: Q) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .leftJoin('sandbox_clocks as sc', 'sc.merchant_id', 'k.merchant_id')
    .selectAll('k')
    .select([
      'm.name as m_name',
      'm.kyb_status as m_kyb_status',
      'm.status as m_status',
      'm.limit_per_payment as m_limit_per_payment',
      'm.limit_daily as m_limit_daily',
      'm.limit_monthly as m_limit_monthly',
      'm.created_at as m_created_at',
      'sc.offset_ms as sc_offset_ms',
    ]);
}

type KeyMerchantRow = Awaited<ReturnType<ReturnType<typeof keysWithMerchants>['executeTakeFirstOrThrow']>>;

function split(row: KeyMerchantRow): KeyWithMerchant {
  const { m_name, m_kyb_status, m_status, m_limit_per_payment, m_limit_daily, m_limit_monthly, m_created_at, sc_offset_ms, ...key } = row;
  return {
    key,
    sandboxOffsetMs: sc_offset_ms === null || sc_offset_ms === undefined ? 0 : Number(sc_offset_ms),
    merchant: {
      id: key.merchant_id,
      name: m_name,
      kyb_status: m_kyb_status,
      status: m_status,
      limit_per_payment: m_limit_per_payment,
      limit_daily: m_limit_daily,
      limit_monthly: m_limit_monthly,
      created_at: m_created_at,
    },
  };
}

const keysByHashes = prepared('keys-by-hash', (db: Q, hashes: readonly string[]) =>
  keysWithMerchants(db).where('k.key_hash', 'in', hashes),
);

/** The keys (with their merchants) behind these hashes, by hash; one query for any number of hashes. */
export async function findKeysByHashes(db: Q, hashes: readonly string[]): Promise<Map<string, KeyWithMerchant>> {
  const { rows } = await db.executeQuery(keysByHashes(db, hashes));
  const found = new Map<string, KeyWithMerchant>();
  for (const row of rows) found.set(row.key_hash, split(row));
  return found;
}

/** A key and its merchant, the key row-locked (rotation). */
export async function lockKeyWithMerchant(tx: Tx, id: string): Promise<KeyWithMerchant | undefined> {
  const row = await forUpdate(tx, keysWithMerchants(tx).where('k.id', '=', id), ['k']).executeTakeFirst();
  return row ? split(row) : undefined;
}

export async function updateKey(
  db: Q,
  id: string,
  patch: Partial<Pick<ApiKeyRow, 'expires_at' | 'revoked_at' | 'replaced_by'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
}

/** A merchant's keys, newest first (the operator's listing; hashes are never shown). */
export async function listKeysOf(db: Q, merchantId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
