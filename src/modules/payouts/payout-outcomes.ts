// What moves a payout once it is asked for, each in the caller's transaction with its ledger movement, its
// event and its audit entry: sent (broadcast; the hold stays), paid (the held amount leaves to `world`),
// failed or cancelled (the hold returns to `available`). A refund's send (purpose `refund`) moves alone:
// its money was already reserved by the refund, whose own outcome moves the ledger.
import type { PayoutRow, PayoutStatus } from '../../db/schema.js';
import type { Tx } from '../../db/transaction.js';
import { Decimal, type SettlementAsset } from '../../shared/money.js';
import type { EventType } from '../../shared/event-types.js';
import { recordEvent } from '../events/index.js';
import { ACCOUNTS, transfer, type MovementKind } from '../ledger/index.js';
import { payoutView } from './payout.schema.js';
import * as repo from './payouts.repo.js';

export function payoutLedgerBase(row: PayoutRow, at: number) {
  return {
    merchantId: row.merchant_id,
    environment: row.environment,
    asset: row.asset as SettlementAsset,
    at,
    payoutId: row.id,
  };
}

async function payoutEvent(trx: Tx, row: PayoutRow, type: EventType, at: number): Promise<void> {
  if (row.purpose !== 'payout') return;
  await recordEvent(trx, { merchantId: row.merchant_id, environment: row.environment, type, data: payoutView(row), at });
}

async function audit(trx: Tx, row: PayoutRow, actor: string, action: string, at: number, detail?: object): Promise<void> {
  if (row.purpose !== 'payout') return;
  await repo.insertAudit(trx, { merchantId: row.merchant_id, actor, action, target: row.id, at, ...(detail ? { detail } : {}) });
}

/** Records a new payout, its hold on `available` and `payout.created` (the balance was checked under the merchant's lock). */
export async function recordRequested(
  trx: Tx,
  row: PayoutRow,
  by: { actor: string; userId?: string | null; ip?: string | null },
): Promise<void> {
  await repo.insertPayout(trx, row);
  if (row.purpose !== 'payout') return;
  await transfer(
    trx,
    { ...payoutLedgerBase(row, row.created_at), kind: 'payout_hold' },
    ACCOUNTS.available,
    ACCOUNTS.payoutHeld,
    new Decimal(row.amount),
  );
  await payoutEvent(trx, row, 'payout.created', row.created_at);
  await repo.insertAudit(trx, {
    merchantId: row.merchant_id,
    userId: by.userId ?? null,
    actor: by.actor,
    action: 'payout.requested',
    target: row.id,
    detail: { amount: row.amount, asset: row.asset, network: row.network, address: row.address, environment: row.environment },
    ip: by.ip ?? null,
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
  if (paid.purpose === 'payout') {
    await transfer(
      trx,
      { ...payoutLedgerBase(paid, at), kind: 'payout_sent' },
      ACCOUNTS.payoutHeld,
      ACCOUNTS.world,
      new Decimal(paid.amount),
    );
  }
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
  if (moved.purpose === 'payout') {
    const kind: MovementKind = 'payout_release';
    await transfer(trx, { ...payoutLedgerBase(moved, at), kind }, ACCOUNTS.payoutHeld, ACCOUNTS.available, new Decimal(moved.amount));
  }
  await payoutEvent(trx, moved, to === 'failed' ? 'payout.failed' : 'payout.cancelled', at);
  await audit(trx, moved, opts.actor, `payout.${to}`, at, opts.reason ? { reason: opts.reason } : undefined);
  return moved;
}
