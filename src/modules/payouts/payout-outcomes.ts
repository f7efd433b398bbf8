// What moves a payout once it is asked for, each in the caller's transaction with its ledger movement, its
// event and its audit entry: sent (broadcast; the hold stays), paid (the held amount leaves to `world`),
// failed or cancelled (the hold returns to `available`). A refund's send (purpose `refund`) moves alone:
// its money was already reserved by the refund, whose own outcome moves the ledger. A payer's withdrawal
// (purpose `payer_withdrawal`) moves the same way in the payer's ledger (payer_balance ->
// payer_payout_held -> world, or back to payer_balance) and audit trail, with no merchant's event.
import type { PayoutRow, PayoutStatus } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { Decimal, type SettlementAsset } from '../../shared/money.js';
import type { EventType } from '../../shared/event-types.js';
import { recordEvent } from '../events/index.js';
import {
  ACCOUNTS,
  PAYER_ACCOUNTS,
  payerTransfer,
  transfer,
  type Account,
  type MovementKind,
  type PayerAccount,
  type PayerAsset,
  type PayerMovementKind,
} from '../ledger/index.js';
import { payoutView } from './payout.schema.js';
import * as repo from './payouts.repo.js';

export function payoutLedgerBase(row: PayoutRow, at: number) {
  return {
    merchantId: row.merchant_id!,
    environment: row.environment,
    asset: row.asset as SettlementAsset,
    at,
    payoutId: row.id,
  };
}

/** What a payout step does to the ledger: the held amount taken, sent to the world, or released. */
type HeldStep = 'hold' | 'sent' | 'release';

const MERCHANT_STEPS: Record<HeldStep, { kind: MovementKind; from: Account; to: Account }> = {
  hold: { kind: 'payout_hold', from: ACCOUNTS.available, to: ACCOUNTS.payoutHeld },
  sent: { kind: 'payout_sent', from: ACCOUNTS.payoutHeld, to: ACCOUNTS.world },
  release: { kind: 'payout_release', from: ACCOUNTS.payoutHeld, to: ACCOUNTS.available },
};

const PAYER_STEPS: Record<HeldStep, { kind: PayerMovementKind; from: PayerAccount; to: PayerAccount }> = {
  hold: { kind: 'withdrawal', from: PAYER_ACCOUNTS.balance, to: PAYER_ACCOUNTS.payoutHeld },
  sent: { kind: 'withdrawal_sent', from: PAYER_ACCOUNTS.payoutHeld, to: PAYER_ACCOUNTS.world },
  release: { kind: 'withdrawal_reversal', from: PAYER_ACCOUNTS.payoutHeld, to: PAYER_ACCOUNTS.balance },
};

/**
 * The step's movement: a merchant's payout in the merchant's ledger, a payer's withdrawal in the payer's;
 * a refund's send has none (the refund's own outcome moves the ledger).
 */
async function moveHeld(trx: Tx, row: PayoutRow, step: HeldStep, at: number): Promise<void> {
  const amount = new Decimal(row.amount);
  if (row.purpose === 'payout') {
    const { kind, from, to } = MERCHANT_STEPS[step];
    await transfer(trx, { ...payoutLedgerBase(row, at), kind }, from, to, amount);
  }
  if (row.purpose === 'payer_withdrawal') {
    const { kind, from, to } = PAYER_STEPS[step];
    const movement = { payerId: row.payer_id!, environment: row.environment, asset: row.asset as PayerAsset, kind, amount, at };
    await payerTransfer(trx, { ...movement, payoutId: row.id }, from, to);
  }
}

async function payoutEvent(trx: Tx, row: PayoutRow, type: EventType, at: number): Promise<void> {
  if (row.purpose !== 'payout') return;
  await recordEvent(trx, { merchantId: row.merchant_id!, environment: row.environment, type, data: payoutView(row), at });
}

/**
 * The audit entry of a payout's step: a merchant's payout in the console's audit log, a payer's withdrawal
 * in the payer's audit trail; a refund's send has none of its own.
 */
export async function auditPayout(
  trx: Tx,
  row: PayoutRow,
  entry: { actor: string; action: string; at: number; detail?: object; userId?: string | null; ip?: string | null },
): Promise<void> {
  const { actor, action, at } = entry;
  const more = { ...(entry.detail ? { detail: entry.detail } : {}), ip: entry.ip ?? null };
  if (row.purpose === 'payout') {
    await repo.insertAudit(trx, { merchantId: row.merchant_id!, userId: entry.userId ?? null, actor, action, target: row.id, at, ...more });
  }
  if (row.purpose === 'payer_withdrawal') {
    await repo.insertPayerAudit(trx, { payerId: row.payer_id!, actor, action, at, ...more, detail: { payout: row.id, ...entry.detail } });
  }
}

async function audit(trx: Tx, row: PayoutRow, actor: string, action: string, at: number, detail?: object): Promise<void> {
  await auditPayout(trx, row, { actor, action, at, ...(detail ? { detail } : {}) });
}

/** Records a new payout, its hold and `payout.created` (the balance was checked under the merchant's or payer's lock). */
export async function recordRequested(
  trx: Tx,
  row: PayoutRow,
  by: { actor: string; userId?: string | null; ip?: string | null },
): Promise<void> {
  await repo.insertPayout(trx, row);
  if (row.purpose === 'refund') return;
  await moveHeld(trx, row, 'hold', row.created_at);
  await payoutEvent(trx, row, 'payout.created', row.created_at);
  await auditPayout(trx, row, {
    ...by,
    action: 'payout.requested',
    detail: { amount: row.amount, asset: row.asset, network: row.network, address: row.address, environment: row.environment },
    at: row.created_at,
  });
}

/** Broadcast (or, in the sandbox, simulated): `sent` with its hash; `payout.sent`. False when it had moved already. */
export async function markSent(
  trx: Tx,
  row: PayoutRow,
  txHash: string,
  at: number,
  resolveAt: number | null = null,
): Promise<PayoutRow | null> {
  const patch = { tx_hash: txHash, sent_at: at, updated_at: at, resolve_at: resolveAt };
  if (!(await repo.movePayout(trx, row, 'sent', patch))) return null;
  const sent: PayoutRow = { ...row, ...patch, status: 'sent' };
  await payoutEvent(trx, sent, 'payout.sent', at);
  await audit(trx, sent, 'sender', 'payout.sent', at, { tx_hash: txHash });
  return sent;
}

/** At the confirmation depth: `paid`; the held amount leaves to `world`; `payout.paid`. */
export async function markPaid(trx: Tx, row: PayoutRow, txHash: string, at: number): Promise<PayoutRow | null> {
  const patch = { tx_hash: txHash, paid_at: at, updated_at: at, resolve_at: null, sent_at: row.sent_at ?? at };
  if (!(await repo.movePayout(trx, row, 'paid', patch))) return null;
  const paid: PayoutRow = { ...row, ...patch, status: 'paid' };
  await moveHeld(trx, paid, 'sent', at);
  await payoutEvent(trx, paid, 'payout.paid', at);
  await audit(trx, paid, 'sender', 'payout.paid', at, { tx_hash: txHash });
  return paid;
}

/** Failed (a reverted transfer, the sandbox driver) or cancelled (the operator): the hold returns to `available`. */
export async function markReleased(
  trx: Tx,
  row: PayoutRow,
  to: Extract<PayoutStatus, 'failed' | 'cancelled'>,
  at: number,
  opts: { reason?: string; actor: string; txHash?: string },
): Promise<PayoutRow | null> {
  const patch = {
    updated_at: at,
    resolve_at: null,
    failure_reason: to === 'failed' ? (opts.reason ?? 'The transfer failed') : null,
    ...(opts.txHash === undefined ? {} : { tx_hash: opts.txHash }),
  };
  if (!(await repo.movePayout(trx, row, to, patch))) return null;
  const moved: PayoutRow = { ...row, ...patch, status: to };
  await moveHeld(trx, moved, 'release', at);
  await payoutEvent(trx, moved, to === 'failed' ? 'payout.failed' : 'payout.cancelled', at);
  await audit(trx, moved, opts.actor, `payout.${to}`, at, opts.reason ? { reason: opts.reason } : undefined);
  return moved;
}
