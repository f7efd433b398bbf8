// The only SQL of the chain watcher: a cursor per network, and the transfers it has seen, moved between
// states by conditional updates (WHERE state = ...), so that of two processes (or a crash and a restart)
// exactly one moves a transfer on.
import type { Insertable } from 'kysely';
import type { ChainTransferOutcome, ChainTransferRow, ChainTransfersTable } from '../../../db/schema.js';
import type { Q } from '../../../db/transaction.js';

export async function getCursor(db: Q, network: string): Promise<{ cursor: string; head: number | null } | undefined> {
  return db.selectFrom('chain_cursors').select(['cursor', 'head']).where('network', '=', network).executeTakeFirst();
}

export async function saveCursor(db: Q, network: string, cursor: string, head: number, now: number): Promise<void> {
  await db
    .insertInto('chain_cursors')
    .values({ network, cursor, head, updated_at: now })
    .onConflict((oc) => oc.column('network').doUpdateSet({ cursor, head, updated_at: now }))
    .execute();
}

/** Records a transfer first seen; false when it was recorded already (by this or another process). */
export async function insertTransfer(db: Q, row: Insertable<ChainTransfersTable>): Promise<boolean> {
  const res = await db
    .insertInto('chain_transfers')
    .values(row)
    .onConflict((oc) => oc.columns(['network', 'tx_hash', 'event_index']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function findTransfer(db: Q, network: string, txHash: string, eventIndex: string): Promise<ChainTransferRow | undefined> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('network', '=', network)
    .where('tx_hash', '=', txHash)
    .where('event_index', '=', eventIndex)
    .executeTakeFirst();
}

export async function findById(db: Q, id: string): Promise<ChainTransferRow | undefined> {
  return db.selectFrom('chain_transfers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every transfer of one transaction hash (EVM hashes are compared without case). */
export async function findByTxHash(db: Q, txHash: string): Promise<ChainTransferRow[]> {
  const rows = await db
    .selectFrom('chain_transfers')
    .selectAll()
    .where((eb) => eb.or([eb('tx_hash', '=', txHash), eb('tx_hash', '=', txHash.toLowerCase())]))
    .orderBy('id')
    .execute();
  return rows;
}

/** Transfers waiting for their depth on a network, oldest first. */
export async function pendingTransfers(db: Q, network: string, limit: number): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('network', '=', network)
    .where('state', '=', 'pending')
    .orderBy('first_seen_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function setBlock(db: Q, id: string, block: number, now: number): Promise<void> {
  await db
    .updateTable('chain_transfers')
    .set({ block_number: block, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/** A removed transfer is back on chain (included again): it waits for its depth again. */
export async function reopen(db: Q, id: string, block: number | null, now: number): Promise<boolean> {
  const res = await db
    .updateTable('chain_transfers')
    .set({ state: 'pending', block_number: block, confirming_intent_id: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'removed')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The intent this transfer's sighting moved to confirming. */
export async function setConfirming(db: Q, id: string, intentId: string, now: number): Promise<void> {
  await db
    .updateTable('chain_transfers')
    .set({ confirming_intent_id: intentId, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

export interface ConfirmedAs {
  outcome: ChainTransferOutcome;
  reason: string | null;
  depositId: string | null;
  block: number | null;
}

/** pending -> confirmed with what it came to; true for the one caller that moved it. */
export async function markConfirmed(db: Q, id: string, as: ConfirmedAs, now: number): Promise<boolean> {
  const res = await db
    .updateTable('chain_transfers')
    .set({
      state: 'confirmed',
      outcome: as.outcome,
      reason: as.reason,
      deposit_id: as.depositId,
      ...(as.block === null ? {} : { block_number: as.block }),
      confirmed_at: now,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** What a confirmed transfer came to, once its payment was applied (it was confirmed as credited first). */
export async function setTransferOutcome(tx: Q, id: string, outcome: ChainTransferOutcome, reason: string | null): Promise<void> {
  await tx.updateTable('chain_transfers').set({ outcome, reason }).where('id', '=', id).where('state', '=', 'confirmed').execute();
}

/** pending -> removed (a reorganisation took it); true for the one caller that moved it. */
export async function markRemoved(db: Q, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('chain_transfers')
    .set({ state: 'removed', confirming_intent_id: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** An unmatched confirmed transfer credited by the operator to an intent; true for the one caller that did. */
export async function markClaimed(
  db: Q,
  id: string,
  to: { merchantId: string; intentId: string; depositId: string },
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('chain_transfers')
    .set({
      outcome: 'claimed',
      reason: null,
      merchant_id: to.merchantId,
      payment_intent_id: to.intentId,
      deposit_id: to.depositId,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('state', '=', 'confirmed')
    .where('outcome', '=', 'unmatched')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function listTransfers(
  db: Q,
  filter: { network?: string; outcome?: ChainTransferOutcome; state?: ChainTransferRow['state'] },
  limit: number,
): Promise<ChainTransferRow[]> {
  let q = db.selectFrom('chain_transfers').selectAll();
  if (filter.network) q = q.where('network', '=', filter.network);
  if (filter.outcome) q = q.where('outcome', '=', filter.outcome);
  if (filter.state) q = q.where('state', '=', filter.state);
  return q.orderBy('first_seen_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The network of the transfer that paid an intent (credited, or claimed by the operator). */
export async function paidNetworkOfIntent(db: Q, intentId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('chain_transfers')
    .select('network')
    .where('payment_intent_id', '=', intentId)
    .where('outcome', 'in', ['credited', 'claimed'])
    .orderBy('confirmed_at')
    .executeTakeFirst();
  return row?.network;
}
