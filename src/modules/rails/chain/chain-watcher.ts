// The chain watcher of one network. Each tick, in the one process holding the network's lease:
// 1. scans the chain from the network's cursor (kept in the database, so after downtime it reads what it
//    missed) for transfers of the configured tokens to the configured address, and records each once;
//    a transfer of an open allocation's exact amount, asset and network moves its intent to `confirming`;
// 2. reads every transfer still waiting for its depth again: at the depth it pays its intent (or is a
//    duplicate payment, or an unmatched deposit with the reason); gone from the chain (a reorganisation),
//    it never pays and the intent it was confirming is payable again.
// Each transfer's record moves first, by a conditional update, and its outcome is applied through the
// payments module in the same transaction: a crash or a second process never pays a transfer twice.
// A transfer of a payer's top-up amount (the same allocation space) follows the same steps and rules; at
// its depth it credits the payer's balance instead of paying an intent (payers' chain-topups.service.ts).
import type { Logger } from 'pino';
import { AppError } from '../../../shared/errors.js';
import type { ChainTransferRow } from '../../../db/schema.js';
import { afterCommitOrNow, transaction, type Db, type Tx } from '../../../db/transaction.js';
import type { Clock } from '../../../shared/clock.js';
import { newId } from '../../../shared/ids.js';
import { chainWatcherLag } from '../../../shared/metrics.js';
import { Decimal, formatAmount, type SettlementAsset } from '../../../shared/money.js';
import type { PaymentService } from '../../payments/index.js';
import * as walletRepo from '../wallet.repo.js';
import type { ChainSource, ObservedTransfer, Recheck } from './chain-source.js';
import * as repo from './chain.repo.js';

/**
 * Payers' on-chain top-ups as the watcher credits them (the payers module's PayerChainTopups; named here
 * because the payers module depends on this one): in the transfer's transaction, null when credited, or why not.
 */
export interface TopupCredits {
  creditIn(tx: Tx, topupId: string, transfer: { txHash: string; amount: string; seenAt: number }, now: number): Promise<string | null>;
}

export interface ChainWatcherDeps {
  db: Db;
  payments: PaymentService;
  source: ChainSource;
  /** Real time (live payments have no sandbox clock). */
  clock: Clock;
  /** Payers' on-chain top-ups (absent: a transfer of a top-up's amount is unmatched). */
  topups?: TopupCredits;
  logger?: Logger;
}

export interface TickResult {
  head: number;
  seen: number;
  confirmed: number;
  removed: number;
}

/** Transfers read again per tick, at most. */
const RECHECK_BATCH = 1000;

export class ChainWatcher {
  constructor(private readonly deps: ChainWatcherDeps) {}

  get network(): string {
    return this.deps.source.network;
  }

  /** One look at the chain. `keep` is asked between catch-up pages whether this process still holds the lease. */
  async tick(keep?: () => Promise<boolean>): Promise<TickResult> {
    const { db, source } = this.deps;
    const head = await source.head();
    const result: TickResult = { head, seen: 0, confirmed: 0, removed: 0 };
    let cursor = (await repo.getCursor(db, source.network))?.cursor ?? source.initialCursor(head);
    for (;;) {
      const page = await source.scan(cursor, head);
      for (const t of page.transfers) if (await this.observe(t)) result.seen++;
      cursor = page.cursor;
      await repo.saveCursor(db, source.network, cursor, head, this.deps.clock.nowMs());
      const lag = source.lag(cursor, head);
      if (lag !== null) chainWatcherLag.set({ network: source.network }, lag);
      if (!page.more) break;
      if (keep && !(await keep())) return result;
    }
    const pending = await repo.pendingTransfers(db, source.network, RECHECK_BATCH);
    if (pending.length === 0) return result;
    const answers = await source.recheck(
      pending.map((t) => ({ txHash: t.tx_hash, eventIndex: t.event_index, token: t.token, amount: t.amount, block: t.block_number })),
      head,
    );
    for (let i = 0; i < pending.length; i++) {
      const moved = await this.settle(pending[i]!, answers[i]!);
      if (moved === 'confirmed') result.confirmed++;
      if (moved === 'removed') result.removed++;
    }
    return result;
  }

  /** Records a transfer read from the chain; true when it is new (or back after a reorganisation). */
  private async observe(t: ObservedTransfer): Promise<boolean> {
    const { db, source } = this.deps;
    const now = this.deps.clock.nowMs();
    const amount = formatAmount(new Decimal(t.amount), t.asset as SettlementAsset);
    const existing = await repo.findTransfer(db, source.network, t.txHash, t.eventIndex);
    if (existing) {
      if (existing.state === 'removed' && (await repo.reopen(db, existing.id, t.block, now))) {
        await this.sight({ ...existing, state: 'pending', block_number: t.block, confirming_intent_id: null });
        return true;
      }
      if (existing.state === 'pending' && t.block !== null && existing.block_number !== t.block) {
        await repo.setBlock(db, existing.id, t.block, now);
      }
      return false;
    }
    const match = await walletRepo.findMatch(
      db,
      { environment: 'live', network: source.network, asset: t.asset, address: source.address },
      amount,
    );
    const row: ChainTransferRow = {
      id: newId('chain_transfer'),
      network: source.network,
      tx_hash: t.txHash,
      event_index: t.eventIndex,
      asset: t.asset,
      token: t.token,
      sender: t.sender,
      address: source.address,
      amount,
      block_number: t.block,
      state: 'pending',
      outcome: null,
      reason: null,
      merchant_id: match?.merchant_id ?? null,
      payment_intent_id: match?.payment_intent_id ?? null,
      payer_topup_id: match?.payer_topup_id ?? null,
      confirming_intent_id: null,
      deposit_id: null,
      first_seen_at: now,
      confirmed_at: null,
      updated_at: now,
    };
    if (!(await repo.insertTransfer(db, row))) return false;
    this.deps.logger?.info(
      {
        network: row.network,
        tx_hash: row.tx_hash,
        amount,
        asset: row.asset,
        payment_intent: row.payment_intent_id,
        payer_topup: row.payer_topup_id,
      },
      'chain transfer seen',
    );
    await this.sight(row);
    return true;
  }

  /** A transfer of an intent's exact amount first seen: the intent waits in `confirming` for the depth. */
  private async sight(row: ChainTransferRow): Promise<void> {
    if (!row.payment_intent_id || !row.merchant_id) return;
    const intentId = row.payment_intent_id;
    const seen = {
      intentId,
      method: 'external_wallet',
      outcome: 'seen',
      amount: new Decimal(row.amount),
      providerReference: row.tx_hash,
    } as const;
    try {
      await transaction(this.deps.db, async (tx) => {
        const applied = await this.deps.payments.applyIn(tx, { merchantId: row.merchant_id!, environment: 'live' }, seen);
        if (applied.ok && applied.outcome === 'seen') await repo.setConfirming(tx, row.id, intentId, this.deps.clock.nowMs());
      });
    } catch (err) {
      // The intent is gone: the depth decides what the transfer comes to.
      if (!(err instanceof AppError)) throw err;
    }
  }

  private async settle(row: ChainTransferRow, answer: Recheck): Promise<'confirmed' | 'removed' | null> {
    const now = this.deps.clock.nowMs();
    switch (answer.state) {
      case 'unknown':
        return null;
      case 'absent':
        return (await this.remove(row)) ? 'removed' : null;
      case 'present':
        if (!answer.final) {
          if (answer.block !== row.block_number) await repo.setBlock(this.deps.db, row.id, answer.block, now);
          return null;
        }
        return (await this.confirm(row, answer.block)) ? 'confirmed' : null;
    }
  }

  /** At depth, read again: pays its intent, or is a duplicate payment, or an unmatched deposit. */
  private async confirm(row: ChainTransferRow, block: number): Promise<boolean> {
    const now = this.deps.clock.nowMs();
    const topups = this.deps.topups;
    if (row.payer_topup_id && topups) {
      const topupId = row.payer_topup_id;
      return transaction(this.deps.db, async (tx) => {
        // As for an intent: the record moves first, then the credit (or the reason it is refused) in the same transaction.
        if (!(await repo.markConfirmed(tx, row.id, { outcome: 'credited', reason: null, depositId: null, block }, now))) return false;
        const refused = await topups.creditIn(
          tx,
          topupId,
          { txHash: row.tx_hash, amount: row.amount, seenAt: Number(row.first_seen_at) },
          now,
        );
        if (refused) await repo.setTransferOutcome(tx, row.id, 'unmatched', refused);
        afterCommitOrNow(tx, () => this.log(row, refused ? 'unmatched' : 'credited', refused));
        return true;
      });
    }
    if (!row.payment_intent_id || !row.merchant_id) {
      const done = await repo.markConfirmed(
        this.deps.db,
        row.id,
        { outcome: 'unmatched', reason: 'no_matching_payment', depositId: null, block },
        now,
      );
      if (done) this.log(row, 'unmatched', 'no_matching_payment');
      return done;
    }
    const depositId = newId('wallet_deposit');
    try {
      return await transaction(this.deps.db, async (tx) => {
        // The transfer's record moves first: whoever moved it before (another run) has paid it already.
        if (!(await repo.markConfirmed(tx, row.id, { outcome: 'credited', reason: null, depositId, block }, now))) return false;
        const applied = await this.deps.payments.applyIn(
          tx,
          { merchantId: row.merchant_id!, environment: 'live' },
          {
            intentId: row.payment_intent_id!,
            method: 'external_wallet',
            outcome: 'success',
            amount: new Decimal(row.amount),
            providerReference: row.tx_hash,
          },
        );
        // Refused (a cap, an ended intent): kept as an unmatched deposit with the reason.
        const outcome = applied.ok ? (applied.outcome === 'duplicate' ? 'duplicate' : 'credited') : 'unmatched';
        await this.recordDeposit(tx, row, depositId, outcome, applied.ok ? null : applied.error.code, now);
        return true;
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Refused before anything was written (the intent is gone, or takes no wallet payment): recorded now.
      return transaction(this.deps.db, async (tx) => {
        if (!(await repo.markConfirmed(tx, row.id, { outcome: 'unmatched', reason: err.code, depositId, block }, now))) return false;
        await this.recordDeposit(tx, row, depositId, 'unmatched', err.code, now);
        return true;
      });
    }
  }

  /** The wallet deposit a confirmed transfer came to, and the transfer's outcome. */
  private async recordDeposit(
    tx: Tx,
    row: ChainTransferRow,
    depositId: string,
    outcome: 'credited' | 'duplicate' | 'unmatched',
    reason: string | null,
    now: number,
  ): Promise<void> {
    if (outcome !== 'credited') await repo.setTransferOutcome(tx, row.id, outcome, reason);
    await walletRepo.insertDeposit(tx, {
      id: depositId,
      merchant_id: row.merchant_id!,
      environment: 'live',
      network: row.network,
      asset: row.asset,
      address: row.address,
      amount: row.amount,
      tx_hash: row.tx_hash,
      sender: row.sender,
      status: outcome === 'unmatched' ? 'unmatched' : 'credited',
      reason: outcome === 'duplicate' ? 'duplicate_payment' : reason,
      payment_intent_id: row.payment_intent_id,
      created_at: now,
    });
    afterCommitOrNow(tx, () => this.log(row, outcome, reason));
  }

  /** Gone from the chain before its depth: never pays; the intent it was confirming is payable again. */
  private async remove(row: ChainTransferRow): Promise<boolean> {
    const now = this.deps.clock.nowMs();
    this.deps.logger?.warn(
      { network: row.network, tx_hash: row.tx_hash, payment_intent: row.confirming_intent_id },
      'chain transfer removed by a reorganisation',
    );
    if (!row.confirming_intent_id || !row.merchant_id) return repo.markRemoved(this.deps.db, row.id, now);
    const reversed = {
      intentId: row.confirming_intent_id,
      method: 'external_wallet',
      outcome: 'reversed',
      amount: new Decimal(row.amount),
      providerReference: row.tx_hash,
    } as const;
    try {
      return await transaction(this.deps.db, async (tx) => {
        if (!(await repo.markRemoved(tx, row.id, now))) return false;
        // Refused when the intent was no longer confirming by this transfer: only the transfer's record changes.
        await this.deps.payments.applyIn(tx, { merchantId: row.merchant_id!, environment: 'live' }, reversed);
        return true;
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return repo.markRemoved(this.deps.db, row.id, now);
    }
  }

  private log(row: ChainTransferRow, outcome: string, reason: string | null): void {
    this.deps.logger?.info(
      {
        network: row.network,
        tx_hash: row.tx_hash,
        amount: row.amount,
        asset: row.asset,
        payment_intent: row.payment_intent_id,
        payer_topup: row.payer_topup_id,
        outcome,
        reason,
      },
      'chain transfer confirmed',
    );
  }
}
