// The only SQL of payers' on-chain top-ups (their exact amounts are wallet allocations: rails/wallet.repo.ts).
import { forUpdate } from '../../db/dialect.js';
import type { PayerChainTopupRow } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { Environment } from '../../shared/scope.js';

export async function insertTopup(db: Q, row: PayerChainTopupRow): Promise<void> {
  await db.insertInto('payer_chain_topups').values(row).execute();
}

/** The top-up, locked until the transaction ends: two transfers of its amount credit it in turn, once. */
export function lockTopup(tx: Tx, id: string): Promise<PayerChainTopupRow | undefined> {
  return forUpdate(tx, tx.selectFrom('payer_chain_topups').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** A payer's top-ups still waiting for their transfer (not yet past their expiry). */
export function waitingTopups(db: Q, payerId: string, environment: Environment, now: number): Promise<PayerChainTopupRow[]> {
  return db
    .selectFrom('payer_chain_topups')
    .selectAll()
    .where('payer_id', '=', payerId)
    .where('environment', '=', environment)
    .where('status', '=', 'requested')
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A payer's latest top-ups, newest first. */
export function latestTopups(db: Q, payerId: string, environment: Environment, limit: number): Promise<PayerChainTopupRow[]> {
  return db
    .selectFrom('payer_chain_topups')
    .selectAll()
    .where('payer_id', '=', payerId)
    .where('environment', '=', environment)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Marks requested top-ups past their expiry as expired: a payer's (as the page is shown), or one (a late transfer of it). */
export async function expireTopups(db: Q, which: { payerId: string } | { id: string }, now: number): Promise<void> {
  let q = db
    .updateTable('payer_chain_topups')
    .set({ status: 'expired', updated_at: now })
    .where('status', '=', 'requested')
    .where('expires_at', '<=', now);
  q = 'id' in which ? q.where('id', '=', which.id) : q.where('payer_id', '=', which.payerId);
  await q.execute();
}

/** Credited by one transfer: true for the one caller that moved it from requested. */
export async function markCredited(tx: Tx, id: string, credit: { txHash: string; movementId: string }, now: number): Promise<boolean> {
  const res = await tx
    .updateTable('payer_chain_topups')
    .set({ status: 'credited', tx_hash: credit.txHash, movement_id: credit.movementId, credited_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Of these top-ups, those with a transfer seen on chain that waits for its depth. */
export async function topupsWithTransferSeen(db: Q, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('chain_transfers')
    .select('payer_topup_id')
    .where('payer_topup_id', 'in', ids)
    .where('state', '=', 'pending')
    .execute();
  return new Set(rows.flatMap((r) => (r.payer_topup_id ? [r.payer_topup_id] : [])));
}
