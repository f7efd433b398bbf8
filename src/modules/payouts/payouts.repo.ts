// The only SQL of payouts: the payout rows, their signed transactions, the EVM senders' nonces, and the
// audit entries payouts write in their own transactions.
import { engineOf, forUpdate } from '../../db/dialect.js';
import { keysetPage, type Cursor } from '../../db/pagination.js';
import type { PayoutRow, PayoutStatus, PayoutTransactionRow, PayoutTransactionState } from '../../db/schema.js';
import { scopedRows } from '../../db/scoped.js';
import type { Q, Tx } from '../../db/transaction.js';
import { newId } from '../../shared/ids.js';
import type { MerchantScope } from '../../shared/scope.js';

export async function insertPayout(db: Q, row: PayoutRow): Promise<void> {
  await db.insertInto('payouts').values(row).execute();
}

/** A merchant's payout (never a refund's send). */
export async function findPayout(db: Q, scope: MerchantScope, id: string): Promise<PayoutRow | undefined> {
  return scopedRows(db, 'payouts', scope).where('id', '=', id).where('purpose', '=', 'payout').executeTakeFirst();
}

export async function findPayoutById(db: Q, id: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function lockPayoutById(trx: Tx, id: string): Promise<PayoutRow | undefined> {
  return forUpdate(trx, trx.selectFrom('payouts').selectAll().where('id', '=', id)).executeTakeFirst();
}

export async function findSendOfRefund(db: Q, refundId: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('refund_id', '=', refundId).executeTakeFirst();
}

export async function listPayouts(
  db: Q,
  scope: MerchantScope,
  filter: { status?: PayoutStatus },
  cursor: Cursor | null,
  limit: number,
): Promise<PayoutRow[]> {
  let q = scopedRows(db, 'payouts', scope).where('purpose', '=', 'payout');
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  return keysetPage(engineOf(db), q, cursor, limit).execute();
}

/** Every merchant's payouts and every payer's withdrawals, newest first (the operator's list). */
export async function listAllPayouts(db: Q, filter: { status?: PayoutStatus }, limit: number): Promise<PayoutRow[]> {
  let q = db.selectFrom('payouts').selectAll().where('purpose', 'in', ['payout', 'payer_withdrawal']);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A payer's withdrawals in an environment, newest first (the wallet page's list). */
export function findPayerRequest(db: Q, payerId: string, requestKey: string): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('payer_id', '=', payerId)
    .where('payer_request_key', '=', requestKey)
    .executeTakeFirst();
}

export async function listPayerWithdrawals(db: Q, payerId: string, environment: string, limit: number): Promise<PayoutRow[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('payer_id', '=', payerId)
    .where('environment', '=', environment as PayoutRow['environment'])
    .where('purpose', '=', 'payer_withdrawal')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Moves a payout from the status it was read in; false when another move came first. */
export async function movePayout(db: Q, row: PayoutRow, to: PayoutStatus, patch: Partial<PayoutRow>): Promise<boolean> {
  const res = await db
    .updateTable('payouts')
    .set({ ...patch, status: to })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function approvePayout(db: Q, id: string, at: number): Promise<boolean> {
  const res = await db
    .updateTable('payouts')
    .set({ approved_at: at, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .where('approved_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Live payouts of one network the sender has to act on: approved and not sent yet, or sent and not final. */
export async function openPayoutsOf(db: Q, network: string, limit: number): Promise<PayoutRow[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('environment', '=', 'live')
    .where('network', '=', network)
    .where((eb) => eb.or([eb('status', '=', 'sent'), eb.and([eb('status', '=', 'requested'), eb('approved_at', 'is not', null)])]))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Sandbox payouts sent and due to be paid by `now` (the earliest sandbox clock is never behind real time). */
export async function dueSandboxPayouts(db: Q, opts: { merchantId?: string; before: number; limit: number }): Promise<PayoutRow[]> {
  let q = db
    .selectFrom('payouts')
    .selectAll()
    .where('environment', '=', 'test')
    .where('status', '=', 'sent')
    .where('resolve_at', 'is not', null);
  if (opts.merchantId !== undefined) q = q.where('merchant_id', '=', opts.merchantId);
  else q = q.where('resolve_at', '<=', opts.before);
  return q.orderBy('resolve_at').limit(opts.limit).execute();
}

export async function transactionsOf(db: Q, payoutId: string): Promise<PayoutTransactionRow[]> {
  return db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', payoutId).orderBy('attempt').execute();
}

export async function insertTransaction(db: Q, row: Omit<PayoutTransactionRow, 'seq'>): Promise<void> {
  await db.insertInto('payout_transactions').values(row).execute();
}

export async function setTransactionState(
  db: Q,
  seq: number,
  state: PayoutTransactionState,
  at: number,
  broadcastBlock?: number | null,
): Promise<void> {
  await db
    .updateTable('payout_transactions')
    .set({ state, updated_at: at, ...(broadcastBlock === undefined ? {} : { broadcast_block: broadcastBlock }) })
    .where('seq', '=', seq)
    .execute();
}

export async function nonceOf(db: Q, network: string): Promise<{ sender: string; next_nonce: number } | undefined> {
  const row = await db.selectFrom('payout_nonces').select(['sender', 'next_nonce']).where('network', '=', network).executeTakeFirst();
  return row && { sender: row.sender, next_nonce: Number(row.next_nonce) };
}

export async function setNonce(db: Q, network: string, sender: string, next: number): Promise<void> {
  await db
    .insertInto('payout_nonces')
    .values({ network, sender, next_nonce: next })
    .onConflict((oc) => oc.column('network').doUpdateSet({ sender, next_nonce: next }))
    .execute();
}

/** The columns every audit entry has, the payers' and the console's. */
function auditColumns(
  kind: 'payer_audit' | 'audit_entry',
  e: { actor: string; action: string; detail?: object; ip?: string | null; at: number },
) {
  const detail = e.detail === undefined ? null : JSON.stringify(e.detail);
  return { id: newId(kind), actor: e.actor, action: e.action, detail, ip: e.ip ?? null, created_at: e.at };
}

/** An entry of a payer's audit trail (a withdrawal's steps). */
export async function insertPayerAudit(
  db: Q,
  entry: { payerId: string; actor: string; action: string; detail?: object; ip?: string | null; at: number },
): Promise<void> {
  await db
    .insertInto('payer_audit')
    .values({ ...auditColumns('payer_audit', entry), payer_id: entry.payerId })
    .execute();
}

/** An entry of the console's audit log (the command line's actor is `operator`). */
export async function insertAudit(
  db: Q,
  entry: {
    merchantId: string;
    userId?: string | null;
    actor: string;
    action: string;
    target: string;
    detail?: object;
    ip?: string | null;
    at: number;
  },
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...auditColumns('audit_entry', entry), merchant_id: entry.merchantId, user_id: entry.userId ?? null, target: entry.target })
    .execute();
}
