// Settlements: one per paid payment, made in the payment's own transaction together with its ledger movement.
// A new merchant's settlement is `pending` for the pending window and matures to `available` by the
// background job, which follows the merchant's clock; a dispute freezes it.
import { readPage, type Page } from '../../db/pagination.js';
import type { Merchant, PaymentIntentRow, SettlementRow } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import { DAY_MS, type MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, type SettlementAsset } from '../../shared/money.js';
import { ACCOUNTS, transfer } from '../ledger/index.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import { settlementView, type Settlement } from './settlement.schema.js';
import * as repo from './settlements.repo.js';

export interface SettlementPolicy {
  /** Merchants younger than this (by the merchant's clock) settle pending. */
  newMerchantDays: number;
  /** How long a new merchant's settlement stays pending. */
  pendingDays: number;
}

export function settlementPolicy(config: { newMerchantDays: number; pendingSettlementDays: number }): SettlementPolicy {
  return { newMerchantDays: config.newMerchantDays, pendingDays: config.pendingSettlementDays };
}

function ledgerBase(row: { merchant_id: string; environment: SettlementRow['environment'] }, asset: string, at: number) {
  return { merchantId: row.merchant_id, environment: row.environment, asset: asset as SettlementAsset, at };
}

/**
 * Settles a payment into the merchant's wallet: the settlement record and its ledger movement, in the
 * payment's transaction, just before the intent moves to `paid` (whose event carries the settlement's
 * status). A surplus over `pay_amount` is a credit of its own, available at once.
 */
export async function settlePayment(
  trx: Tx,
  policy: SettlementPolicy,
  merchant: Merchant,
  intent: PaymentIntentRow,
  now: number,
): Promise<SettlementRow> {
  const asset = intent.settlement_currency as SettlementAsset;
  const isNew = now - merchant.created_at < policy.newMerchantDays * DAY_MS;
  const pending = isNew && policy.pendingDays > 0;
  const amount = new Decimal(intent.pay_amount);
  const row: SettlementRow = {
    id: newId('settlement'),
    merchant_id: intent.merchant_id,
    environment: intent.environment,
    payment_intent_id: intent.id,
    status_before_dispute: null,
    asset,
    amount: formatAmount(amount, asset),
    status: pending ? 'pending' : 'available',
    available_at: pending ? now + policy.pendingDays * DAY_MS : now,
    settled_at: now,
    created_at: now,
    updated_at: now,
  };
  await repo.insertSettlement(trx, row);
  const base = { ...ledgerBase(row, asset, now), paymentIntentId: intent.id, settlementId: row.id };
  await transfer(trx, { ...base, kind: 'payment' }, ACCOUNTS.world, pending ? ACCOUNTS.pending : ACCOUNTS.available, amount);
  const surplus = new Decimal(intent.amount_received).minus(amount);
  if (surplus.gt(0)) await transfer(trx, { ...base, kind: 'overpayment_surplus' }, ACCOUNTS.world, ACCOUNTS.available, surplus);
  return row;
}

/** A second payment of a paid intent: the merchant holds it as a credit, available at once (owed back to the payer). */
export async function creditDuplicatePayment(trx: Tx, intent: PaymentIntentRow, amount: Decimal, now: number): Promise<void> {
  await transfer(
    trx,
    { ...ledgerBase(intent, intent.settlement_currency, now), kind: 'duplicate_payment', paymentIntentId: intent.id },
    ACCOUNTS.world,
    ACCOUNTS.available,
    amount,
  );
}

function accountOf(status: SettlementRow['status']) {
  return status === 'pending' ? ACCOUNTS.pending : status === 'available' ? ACCOUNTS.available : ACCOUNTS.frozen;
}

/** A dispute (chargeback) freezes the payment's settlement: its funds move to the frozen account. */
export async function freezeSettlementForDispute(trx: Tx, intent: PaymentIntentRow, now: number): Promise<SettlementRow | null> {
  const row = await repo.lockSettlementOfIntent(trx, intent.id);
  if (!row || row.status === 'frozen') return row ?? null;
  if (!(await repo.moveSettlement(trx, row, 'frozen', { available_at: null, updated_at: now, status_before_dispute: row.status })))
    throw new Error(`settlement ${row.id} moved concurrently`);
  await transfer(
    trx,
    { ...ledgerBase(row, row.asset, now), kind: 'dispute_freeze', paymentIntentId: intent.id, settlementId: row.id },
    accountOf(row.status),
    ACCOUNTS.frozen,
    new Decimal(row.amount),
  );
  return { ...row, status: 'frozen', available_at: null, updated_at: now, status_before_dispute: row.status };
}

/**
 * A dispute closes. Won: the settlement returns to the status it had (a pending one with its `available_at`,
 * maturing as before) and its funds with it. Lost: its amount leaves the merchant's balance (the frozen
 * funds go to the world) and it stays frozen. Answers the settlement as it then is.
 */
export async function closeDisputeOnSettlement(
  trx: Tx,
  intent: PaymentIntentRow,
  won: boolean,
  availableAt: number | null,
  now: number,
): Promise<SettlementRow | null> {
  const row = await repo.lockSettlementOfIntent(trx, intent.id);
  if (!row || row.status !== 'frozen') return row ?? null;
  const base = { ...ledgerBase(row, row.asset, now), paymentIntentId: intent.id, settlementId: row.id };
  const amount = new Decimal(row.amount);
  if (!won) {
    await transfer(trx, { ...base, kind: 'dispute_lost' }, ACCOUNTS.frozen, ACCOUNTS.world, amount);
    return row;
  }
  const back = row.status_before_dispute === 'pending' ? 'pending' : 'available';
  const patch = {
    available_at: back === 'pending' ? (availableAt ?? now) : (availableAt ?? row.settled_at),
    updated_at: now,
    status_before_dispute: null,
  };
  if (!(await repo.moveSettlement(trx, row, back, patch))) throw new Error(`settlement ${row.id} moved concurrently`);
  await transfer(trx, { ...base, kind: 'dispute_won' }, ACCOUNTS.frozen, accountOf(back), amount);
  return { ...row, ...patch, status: back };
}

/**
 * A refund of a payment whose settlement is still pending releases it early: the settlement becomes
 * available at `now` and the refund takes its amount from the available funds.
 */
export async function releaseForRefund(trx: Tx, row: SettlementRow, refundId: string, now: number): Promise<SettlementRow> {
  if (row.status !== 'pending') return row;
  if (!(await repo.moveSettlement(trx, row, 'available', { available_at: now, updated_at: now })))
    throw new Error(`settlement ${row.id} moved concurrently`);
  await transfer(
    trx,
    {
      ...ledgerBase(row, row.asset, now),
      kind: 'settlement_released_for_refund',
      paymentIntentId: row.payment_intent_id,
      settlementId: row.id,
      refundId,
    },
    ACCOUNTS.pending,
    ACCOUNTS.available,
    new Decimal(row.amount),
  );
  return { ...row, status: 'available', available_at: now, updated_at: now };
}

/** The maturing job: pending settlements whose time has come by their merchant's clock become available. */
export async function matureDueSettlements(
  db: Db,
  clocks: MerchantClocks,
  opts: { merchantId?: string; environment?: Environment; batch?: number } = {},
): Promise<number> {
  const batch = opts.batch ?? 200;
  let matured = 0;
  for (;;) {
    const ids = await repo.findDueSettlementIds(db, clocks.base.nowMs(), { ...opts, limit: batch });
    let progressed = 0;
    for (const id of ids) {
      const done = await transaction(db, async (trx) => {
        const row = await repo.lockSettlement(trx, id);
        if (!row || row.status !== 'pending' || row.available_at === null) return false;
        const now = await clocks.nowMs({ merchantId: row.merchant_id, environment: row.environment });
        if (row.available_at > now) return false;
        if (!(await repo.moveSettlement(trx, row, 'available', { available_at: row.available_at, updated_at: now }))) return false;
        await transfer(
          trx,
          {
            ...ledgerBase(row, row.asset, row.available_at),
            kind: 'settlement_matured',
            paymentIntentId: row.payment_intent_id,
            settlementId: row.id,
          },
          ACCOUNTS.pending,
          ACCOUNTS.available,
          new Decimal(row.amount),
        );
        return true;
      });
      if (done) progressed++;
    }
    matured += progressed;
    if (progressed === 0 || ids.length < batch) return matured;
  }
}

export async function listSettlements(
  db: Db,
  scope: MerchantScope,
  opts: { limit: number; startingAfter?: string; paymentIntent?: string; status?: SettlementRow['status'] },
): Promise<Page<Settlement>> {
  return readPage(
    opts,
    (id) => repo.findSettlement(db, scope, id),
    (cursor, limit) => repo.listSettlements(db, scope, { paymentIntent: opts.paymentIntent, status: opts.status }, cursor, limit),
    settlementView,
  );
}
