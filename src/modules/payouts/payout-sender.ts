// The payout sender of one network, run by the one worker process holding the network's lease. Each run
// takes the network's open payouts (approved and not sent, or sent and not final) and moves each one step:
//   no transfer recorded  -> sign (EVM: the nonce kept in the database) -> record hash and raw (commit)
//                            -> broadcast -> `sent`
//   transfers recorded    -> look every one of them up before anything new is signed:
//     one included        -> at the confirmation depth: `paid` if it succeeded, `failed` (released) if it
//                            reverted; the others are dropped (they can never land: same nonce, or expired)
//     the latest unknown  -> broadcast it again (the same signed bytes: never a second transfer)
//     the latest expired  -> (TRON, Solana: past its validity it can never land) sign anew
//     EVM, pending for REPLACE_AFTER_BLOCKS -> a replacement with higher fees at the same nonce, recorded too
// So after a crash at any step nothing is sent twice: a transfer is recorded before it is broadcast, and a
// recorded one is looked up before another is signed. An RPC error leaves the payout for the next run, with
// backoff; nothing is ever dropped. No database transaction is held open across a call to the network.
import type { Logger } from 'pino';
import type { PayoutRow, PayoutTransactionRow } from '../../db/schema.js';
import { afterCommit, transaction, type Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { STABLE_DECIMALS, type ChainNetwork, type StableAsset } from '../../shared/chains.js';
import { Decimal } from '../../shared/money.js';
import type { PayoutLookup, PayoutNetworkClient, SignedPayout } from '../rails/index.js';
import { markPaid, markReleased, markSent } from './payout-outcomes.js';
import * as repo from './payouts.repo.js';

/** The steps a test may stop the process at (kill -9 of itself), to prove a crash there sends nothing twice. */
export type SenderStep = 'recorded' | 'broadcast' | 'confirming';

export interface SenderNetwork {
  readonly network: ChainNetwork;
  readonly client: PayoutNetworkClient;
  readonly tokens: Readonly<Record<StableAsset, string>>;
  readonly confirmations: number;
  /** EVM: blocks a transfer may stay unmined before it is replaced at the same nonce with higher fees. */
  readonly replaceAfterBlocks: number;
  /** EVM: the chain's head. */
  readonly blockNumber?: () => Promise<number>;
}

export interface PayoutSenderDeps {
  db: Db;
  clock: Clock;
  target: SenderNetwork;
  logger?: Logger;
  /** The base of the backoff after an error (the poll interval). */
  retryMs?: number;
  /** Called at each step (tests stop the process there). */
  onStep?: (step: SenderStep) => void;
  /** A refund's send became final (paid or failed): the refund is asked about at once. */
  onRefundFinal?: (sendId: string) => void;
}

/** Each replacement raises the fees by this many percent more over the node's estimate (above the 10% nodes require). */
const BUMP_PERCENT_PER_ATTEMPT = 25;
const MAX_BACKOFF_MS = 60_000;

const signedOf = (t: PayoutTransactionRow): SignedPayout => ({
  txHash: t.tx_hash,
  raw: t.raw,
  ...(t.nonce === null ? {} : { nonce: Number(t.nonce) }),
  ...(t.valid_until === null ? {} : { validUntil: Number(t.valid_until) }),
});

export class PayoutSender {
  readonly network: ChainNetwork;
  private readonly backoff = new Map<string, { failures: number; nextAt: number }>();

  constructor(private readonly deps: PayoutSenderDeps) {
    this.network = deps.target.network;
  }

  private get client(): PayoutNetworkClient {
    return this.deps.target.client;
  }

  private get evm(): boolean {
    return this.client.chainNonce !== undefined;
  }

  /** Moves every open payout of the network one step; `keep` says whether this process still holds the lease. */
  async runOnce(keep: () => Promise<boolean> = async () => true): Promise<number> {
    const open = await repo.openPayoutsOf(this.deps.db, this.network, 100);
    let moved = 0;
    for (const payout of open) {
      const wait = this.backoff.get(payout.id);
      if (wait && wait.nextAt > this.deps.clock.nowMs()) continue;
      if (!(await keep())) break;
      try {
        await this.advance(payout);
        this.backoff.delete(payout.id);
        moved++;
      } catch (err) {
        const failures = (wait?.failures ?? 0) + 1;
        const delay = Math.min(MAX_BACKOFF_MS, (this.deps.retryMs ?? 1_000) * 2 ** Math.min(failures, 10));
        this.backoff.set(payout.id, { failures, nextAt: this.deps.clock.nowMs() + delay });
        this.deps.logger?.warn({ err, payout: payout.id, network: this.network, failures }, 'payout step failed; trying again later');
      }
    }
    return moved;
  }

  private step(step: SenderStep): void {
    this.deps.onStep?.(step);
  }

  private async advance(payout: PayoutRow): Promise<void> {
    const txs = (await repo.transactionsOf(this.deps.db, payout.id)).filter((t) => t.state !== 'dropped');
    if (txs.length === 0) return this.signAndSend(payout, 1);
    const looks = await this.lookAll(txs);
    const landed = looks.find((x) => x.look.state === 'included');
    if (landed && landed.look.state === 'included') {
      if (landed.look.confirmations < this.deps.target.confirmations) {
        await this.ensureSent(payout, landed.tx);
        this.step('confirming');
        return;
      }
      return this.finish(payout, landed.tx, landed.look.success, txs);
    }
    const latest = looks[looks.length - 1]!;
    const attempt = latest.tx.attempt + 1;
    if (latest.look.state === 'expired') {
      for (const x of looks) await repo.setTransactionState(this.deps.db, x.tx.seq, 'dropped', this.deps.clock.nowMs());
      return this.signAndSend(payout, attempt);
    }
    if (latest.look.state === 'unknown') {
      if (this.evm && (await this.nonceTakenByOthers(latest.tx, txs))) {
        for (const x of looks) await repo.setTransactionState(this.deps.db, x.tx.seq, 'dropped', this.deps.clock.nowMs());
        return this.signAndSend(payout, attempt);
      }
      // Unknown to the node (never broadcast, or dropped from its pool, as a node does with a transaction
      // priced below the base fee): broadcast again, or, after REPLACE_AFTER_BLOCKS, replaced.
      if (await this.replaceIfLate(payout, latest.tx, attempt)) return;
      return this.broadcast(payout, latest.tx);
    }
    // Pending: sent; an EVM transfer left unmined for too long is replaced at the same nonce.
    await this.ensureSent(payout, latest.tx);
    await this.replaceIfLate(payout, latest.tx, attempt);
  }

  /** EVM: a replacement at the same nonce with higher fees, once the latest transfer was broadcast REPLACE_AFTER_BLOCKS ago. */
  private async replaceIfLate(payout: PayoutRow, latest: PayoutTransactionRow, attempt: number): Promise<boolean> {
    const head = this.deps.target.blockNumber;
    if (!this.evm || !head || latest.broadcast_block === null) return false;
    if ((await head()) - Number(latest.broadcast_block) < this.deps.target.replaceAfterBlocks) return false;
    this.deps.logger?.info({ payout: payout.id, tx: latest.tx_hash, attempt }, 'payout transfer not mined in time; replacing it');
    await this.signAndSend(payout, attempt, Number(latest.nonce), BUMP_PERCENT_PER_ATTEMPT * (attempt - 1));
    return true;
  }

  private async lookAll(txs: PayoutTransactionRow[]): Promise<Array<{ tx: PayoutTransactionRow; look: PayoutLookup }>> {
    const out: Array<{ tx: PayoutTransactionRow; look: PayoutLookup }> = [];
    for (const tx of txs) out.push({ tx, look: await this.client.lookup(signedOf(tx)) });
    return out;
  }

  /**
   * EVM: the chain has counted past the nonce, yet none of this payout's transfers is known: another
   * transaction of the hot wallet took the nonce (the key used elsewhere), so none of them can ever land.
   * Looked up again after the count, so that one of ours mined in between is never taken for another's.
   */
  private async nonceTakenByOthers(latest: PayoutTransactionRow, txs: PayoutTransactionRow[]): Promise<boolean> {
    if ((await this.client.chainNonce!()) <= Number(latest.nonce)) return false;
    const again = await this.lookAll(txs);
    return again.every((x) => x.look.state === 'unknown');
  }

  /** The next nonce: the database's count, or the chain's when it is ahead (or the key is new). */
  private async nextNonce(): Promise<number> {
    const kept = await repo.nonceOf(this.deps.db, this.network);
    const chain = await this.client.chainNonce!();
    if (!kept || kept.sender.toLowerCase() !== this.client.from.toLowerCase()) return chain;
    return Math.max(kept.next_nonce, chain);
  }

  private async signAndSend(payout: PayoutRow, attempt: number, nonce?: number, feeBumpPercent?: number): Promise<void> {
    const asset = payout.asset as StableAsset;
    const useNonce = this.evm ? (nonce ?? (await this.nextNonce())) : undefined;
    const units = BigInt(new Decimal(payout.amount).times(new Decimal(10).pow(STABLE_DECIMALS)).toFixed(0));
    const signed = await this.client.sign(
      { asset, token: this.deps.target.tokens[asset], to: payout.address, units },
      { ...(useNonce === undefined ? {} : { nonce: useNonce }), ...(feeBumpPercent ? { feeBumpPercent } : {}) },
    );
    const now = this.deps.clock.nowMs();
    const recorded = await transaction(this.deps.db, async (trx) => {
      const locked = await repo.lockPayoutById(trx, payout.id);
      if (!locked || (locked.status !== 'requested' && locked.status !== 'sent')) return null;
      const row: Omit<PayoutTransactionRow, 'seq'> = {
        payout_id: payout.id,
        network: this.network,
        attempt,
        nonce: useNonce ?? null,
        tx_hash: signed.txHash,
        raw: signed.raw,
        valid_until: signed.validUntil ?? null,
        state: 'signed',
        broadcast_block: null,
        created_at: now,
        updated_at: now,
      };
      await repo.insertTransaction(trx, row);
      if (useNonce !== undefined && nonce === undefined) await repo.setNonce(trx, this.network, this.client.from, useNonce + 1);
      return row;
    });
    if (!recorded) return;
    this.step('recorded');
    const tx = (await repo.transactionsOf(this.deps.db, payout.id)).find((t) => t.attempt === attempt)!;
    await this.broadcast(payout, tx);
  }

  private async broadcast(payout: PayoutRow, tx: PayoutTransactionRow): Promise<void> {
    await this.client.broadcast(signedOf(tx));
    this.step('broadcast');
    const head = this.evm && this.deps.target.blockNumber ? await this.deps.target.blockNumber() : null;
    await repo.setTransactionState(this.deps.db, tx.seq, 'broadcast', this.deps.clock.nowMs(), head);
    await this.ensureSent(payout, tx);
  }

  /** `sent` once a transfer is broadcast (also after a crash between the broadcast and this mark). */
  private async ensureSent(payout: PayoutRow, tx: PayoutTransactionRow): Promise<void> {
    if (tx.state === 'signed' && tx.broadcast_block === null) {
      const head = this.evm && this.deps.target.blockNumber ? await this.deps.target.blockNumber() : null;
      await repo.setTransactionState(this.deps.db, tx.seq, 'broadcast', this.deps.clock.nowMs(), head);
    }
    if (payout.status !== 'requested') return;
    await transaction(this.deps.db, async (trx) => {
      const locked = await repo.lockPayoutById(trx, payout.id);
      if (locked?.status === 'requested') await markSent(trx, locked, tx.tx_hash, this.deps.clock.nowMs());
    });
  }

  /** At the depth: `paid` (succeeded) or `failed` and released (reverted); the other transfers are dropped. */
  private async finish(payout: PayoutRow, landed: PayoutTransactionRow, success: boolean, txs: PayoutTransactionRow[]): Promise<void> {
    const now = this.deps.clock.nowMs();
    await transaction(this.deps.db, async (trx) => {
      let locked = await repo.lockPayoutById(trx, payout.id);
      if (!locked || (locked.status !== 'requested' && locked.status !== 'sent')) return;
      if (locked.status === 'requested') locked = (await markSent(trx, locked, landed.tx_hash, now)) ?? locked;
      for (const t of txs) await repo.setTransactionState(trx, t.seq, t.seq === landed.seq ? 'landed' : 'dropped', now);
      if (locked.purpose === 'refund') afterCommit(trx, () => this.deps.onRefundFinal?.(payout.id));
      if (success) await markPaid(trx, locked, landed.tx_hash, now);
      else {
        const reason = `The transfer ${landed.tx_hash} was reverted on-chain; the tokens did not move.`;
        await markReleased(trx, locked, 'failed', now, { reason, actor: 'sender', txHash: landed.tx_hash });
      }
    });
  }
}
