// The only SQL of external-wallet payments: exact-amount allocations (unique among open ones, by a partial
// unique index) and on-chain deposits, credited or kept as unmatched.
import type { ExpressionBuilder, Insertable } from 'kysely';
import { engineOf } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import type { DB, WalletAllocationRow, WalletDepositRow, WalletDepositsTable } from '../../db/schema.js';
import type { Q, Tx } from '../../db/transaction.js';
import type { MerchantScope } from '../../shared/scope.js';
import { scopedRows } from '../../db/scoped.js';

export interface Slot {
  environment: MerchantScope['environment'];
  network: string;
  asset: string;
  address: string;
}

/** The open allocations of one address, network and asset. */
const openOn = (slot: Slot) => (eb: ExpressionBuilder<DB, 'wallet_allocations'>) =>
  eb.and({ state: 'open', environment: slot.environment, network: slot.network, asset: slot.asset, address: slot.address });

/** The open allocation of an intent on a network, if any. */
export async function findOpenAllocation(tx: Tx, intentId: string, network: string): Promise<WalletAllocationRow | undefined> {
  return tx
    .selectFrom('wallet_allocations')
    .selectAll()
    .where('payment_intent_id', '=', intentId)
    .where('network', '=', network)
    .where('state', '=', 'open')
    .executeTakeFirst();
}

/** How long an amount stays reserved after its intent ends, so that a late payment is never credited to another intent. */
export const RESERVED_AFTER_END_MS = 24 * 60 * 60 * 1000;

/** The intents of the open allocations on one address. */
export async function openAllocationIntents(tx: Tx, slot: Slot): Promise<string[]> {
  const rows = await tx
    .selectFrom('wallet_allocations')
    .select('payment_intent_id')
    .where(openOn(slot))
    .where('payment_intent_id', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.payment_intent_id === null ? [] : [r.payment_intent_id]));
}

/** Releases the open allocations of payers' top-ups on one address that ended (expired) before `before`. */
export async function releaseTopupAllocations(tx: Tx, slot: Slot, before: number): Promise<void> {
  await tx
    .updateTable('wallet_allocations')
    .set({ state: 'released' })
    .where(openOn(slot))
    .where('payer_topup_id', 'is not', null)
    .where('expires_at', '<=', before)
    .execute();
}

/** Releases the open allocations of these intents on one address (their amounts are free again). */
export async function releaseAllocations(tx: Tx, slot: Slot, intentIds: readonly string[]): Promise<void> {
  if (intentIds.length === 0) return;
  await tx
    .updateTable('wallet_allocations')
    .set({ state: 'released' })
    .where(openOn(slot))
    .where('payment_intent_id', 'in', intentIds)
    .execute();
}

/** Amounts held by open allocations on one address. */
export async function openAmounts(tx: Tx, slot: Slot): Promise<Set<string>> {
  const rows = await tx.selectFrom('wallet_allocations').select('amount').where(openOn(slot)).execute();
  return new Set(rows.map((r) => r.amount));
}

export async function insertAllocation(tx: Tx, row: WalletAllocationRow): Promise<void> {
  await tx.insertInto('wallet_allocations').values(row).execute();
}

/** The open allocation a deposit of exactly this amount, asset and network matches. */
export async function findMatch(db: Q, slot: Slot, amount: string): Promise<WalletAllocationRow | undefined> {
  return db.selectFrom('wallet_allocations').selectAll().where(openOn(slot)).where('amount', '=', amount).executeTakeFirst();
}

export async function insertDeposit(db: Q, row: Insertable<WalletDepositsTable>): Promise<void> {
  await db.insertInto('wallet_deposits').values(row).execute();
}

export async function findDeposit(db: Q, scope: MerchantScope, id: string): Promise<WalletDepositRow | undefined> {
  return scopedRows(db, 'wallet_deposits', scope).where('id', '=', id).executeTakeFirst();
}

export async function listDeposits(
  db: Q,
  scope: MerchantScope,
  filter: { status?: WalletDepositRow['status'] },
  cursor: Cursor | null,
  limit: number,
): Promise<WalletDepositRow[]> {
  let q = scopedRows(db, 'wallet_deposits', scope);
  if (filter.status) q = q.where('status', '=', filter.status);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/** An unmatched deposit credited to an intent by the operator. */
export async function creditDeposit(db: Q, id: string, intentId: string): Promise<void> {
  await db
    .updateTable('wallet_deposits')
    .set({ status: 'credited', reason: null, payment_intent_id: intentId })
    .where('id', '=', id)
    .where('status', '=', 'unmatched')
    .execute();
}
