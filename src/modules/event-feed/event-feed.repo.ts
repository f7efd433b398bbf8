import { engineOf, finishedTxidHorizon } from '../../db/dialect.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { Db } from '../../db/transaction.js';

export interface FeedPosition {
  txid: number;
  seq: number;
}

export interface FeedRow extends FeedPosition {
  id: string;
  payload: string;
}

export async function findPosition(db: Db, scope: MerchantScope, id: string): Promise<FeedPosition | undefined> {
  const row = await db
    .selectFrom('events')
    .select(['txid', 'seq'])
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { txid: Number(row.txid), seq: Number(row.seq) } : undefined;
}

/**
 * Feed order is (txid, seq): on SQLite txid is 0 and seq order is commit order; on PostgreSQL only events of
 * finished transactions are read (txid below the oldest transaction in flight), so no event can later
 * appear before one already shown. With `after`: the next events in that order; without: the last ones,
 * newest first.
 */
export async function feedRows(
  db: Db,
  scope: MerchantScope,
  opts: { after: FeedPosition | null; limit: number; type?: string },
): Promise<FeedRow[]> {
  let q = db
    .selectFrom('events')
    .select(['id', 'payload', 'txid', 'seq'])
    .where('merchant_id', '=', scope.merchantId)
    .where('environment', '=', scope.environment);
  if (opts.type !== undefined) q = q.where('type', '=', opts.type);
  const horizon = finishedTxidHorizon(engineOf(db));
  if (horizon) q = q.where('txid', '<', horizon);
  const after = opts.after;
  if (after) {
    q = q
      .where((eb) => eb.or([eb('txid', '>', after.txid), eb.and([eb('txid', '=', after.txid), eb('seq', '>', after.seq)])]))
      .orderBy('txid', 'asc')
      .orderBy('seq', 'asc');
  } else {
    q = q.orderBy('txid', 'desc').orderBy('seq', 'desc');
  }
  const rows = await q.limit(opts.limit + 1).execute();
  return rows.map((r) => ({ id: r.id, payload: r.payload, txid: Number(r.txid), seq: Number(r.seq) }));
}
