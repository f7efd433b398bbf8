// On-chain top-ups of a payer's balance. From the wallet page a live payer asks to add an amount of USDT
// or USDC on a configured network and gets that network's receiving address with an exact tagged amount,
// reserved from the same allocation space as intents' (rails/sandbox-wallet.ts: one partial unique index
// over an address's open amounts, so a top-up and an intent never share an amount) and matched for 24
// hours. The chain watchers see the transfer exactly as they see an intent's (confirmation depth, read
// again at depth, reorganisations, a wrong amount kept as an unmatched deposit); at the depth they call
// `creditIn`, which credits the transferred amount to the payer's balance by one balanced ledger movement
// (payer_balance <- world, kind top_up) in the transfer's own transaction, exactly once.
import { AppError } from '../../shared/errors.js';
import type { PayerChainTopupRow } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, parseAmount } from '../../shared/money.js';
import type { Environment } from '../../shared/scope.js';
import { ConsoleError } from '../console/index.js';
import { PAYER_ASSETS, postPayerMovement, type PayerAsset } from '../ledger/index.js';
import { reserveTaggedAmount, WALLET_NETWORK_NAMES, WALLET_NETWORKS, withAllocationRetries, type WalletNetwork } from '../rails/index.js';
import * as repo from './chain-topups.repo.js';
import { lockPayer } from './payers.service.js';

/** How long a top-up's exact amount is matched after it was asked for. */
export const TOPUP_MATCH_MS = 24 * 60 * 60 * 1000;
/** Top-ups a payer may have waiting at once (each holds an amount on an address that intents share). */
export const MAX_WAITING_TOPUPS = 5;
const MIN_TOPUP = new Decimal(1);
const MAX_TOPUP = new Decimal(1_000_000);

/** A configured network as top-ups use it: where payers send, and the token of each asset. */
export interface TopupNetwork {
  address: string;
  tokens: Readonly<Record<PayerAsset, string>>;
}

/** A transfer at its depth, as the chain watcher credits it. */
export interface TopupTransfer {
  txHash: string;
  amount: string;
  /** When the watcher first saw it: a transfer seen before the top-up expired still credits it. */
  seenAt: number;
}

export interface TopupView {
  id: string;
  network: WalletNetwork;
  networkName: string;
  asset: PayerAsset;
  requestedAmount: string;
  amount: string;
  address: string;
  token: string | null;
  status: PayerChainTopupRow['status'];
  /** A transfer of it was seen and waits for the network's confirmations. */
  transferSeen: boolean;
  txHash: string | null;
  movementId: string | null;
  expiresAt: number;
  createdAt: number;
}

export class PayerChainTopups {
  constructor(private readonly deps: { db: Db; clock: Clock; networks: ReadonlyMap<WalletNetwork, TopupNetwork> }) {}

  /** The networks a top-up can be asked on, in the checkout's order. */
  get networks(): { id: WalletNetwork; name: string }[] {
    return WALLET_NETWORKS.filter((n) => this.deps.networks.has(n)).map((id) => ({ id, name: WALLET_NETWORK_NAMES[id] }));
  }

  private view(row: PayerChainTopupRow, seen: Set<string>): TopupView {
    const network = row.network as WalletNetwork;
    const asset = row.asset as PayerAsset;
    return {
      id: row.id,
      network,
      networkName: WALLET_NETWORK_NAMES[network] ?? row.network,
      asset,
      requestedAmount: row.requested_amount,
      amount: row.amount,
      address: row.address,
      token: this.deps.networks.get(network)?.tokens[asset] ?? null,
      status: row.status,
      transferSeen: seen.has(row.id),
      txHash: row.tx_hash,
      movementId: row.movement_id,
      expiresAt: Number(row.expires_at),
      createdAt: Number(row.created_at),
    };
  }

  /** What the wallet page shows: the top-ups still waiting (with their address and exact amount) and the latest ones. */
  async ofPayer(payerId: string, environment: Environment): Promise<{ waiting: TopupView[]; latest: TopupView[] }> {
    const { db } = this.deps;
    const now = this.deps.clock.nowMs();
    await repo.expireTopups(db, { payerId }, now);
    const latest = await repo.latestTopups(db, payerId, environment, 50);
    const waiting = latest.filter((t) => t.status === 'requested');
    const seen = await repo.topupsWithTransferSeen(
      db,
      waiting.map((t) => t.id),
    );
    return { waiting: waiting.map((t) => this.view(t, seen)), latest: latest.map((t) => this.view(t, seen)) };
  }

  /**
   * A live payer asks to add `amount` of `asset` on `network`: answers the top-up with the address and the
   * exact amount to send. The same request again while one like it waits answers that one.
   */
  async request(
    payer: { id: string; environment: Environment },
    input: { amount: string; asset: string; network: string },
  ): Promise<TopupView> {
    if (payer.environment !== 'live') throw new ConsoleError(400, 'On-chain top-ups are for live wallets; the sandbox has no chain.');
    const network = input.network.trim().toLowerCase() as WalletNetwork;
    const target = this.deps.networks.get(network);
    if (!target) {
      const offered = this.networks.map((n) => n.name).join(', ');
      throw new ConsoleError(400, offered ? `Choose a network: ${offered}.` : 'No network is configured for top-ups on this server.');
    }
    const asset = input.asset.trim().toUpperCase() as PayerAsset;
    if (!PAYER_ASSETS.includes(asset)) throw new ConsoleError(400, `Choose an asset: ${PAYER_ASSETS.join(' or ')}.`);
    const parsed = parseAmount(input.amount.trim(), asset);
    if (!parsed.ok || parsed.value.lt(MIN_TOPUP) || parsed.value.gt(MAX_TOPUP)) {
      throw new ConsoleError(
        400,
        `Enter an amount from ${MIN_TOPUP.toFixed()} to ${MAX_TOPUP.toFixed()} ${asset}, with at most 6 decimals, e.g. 25 or 25.50.`,
      );
    }
    const requested = formatAmount(parsed.value, asset);
    const { db } = this.deps;
    try {
      const row = await withAllocationRetries(() =>
        transaction(db, async (tx) => {
          const now = this.deps.clock.nowMs();
          // One payer's requests take turns (in any process), so two clicks make one top-up.
          await lockPayer(tx, payer.id);
          const waiting = await repo.waitingTopups(tx, payer.id, payer.environment, now);
          const same = waiting.find((t) => t.network === network && t.asset === asset && t.requested_amount === requested);
          if (same) return same;
          if (waiting.length >= MAX_WAITING_TOPUPS) {
            throw new ConsoleError(
              409,
              `You have ${waiting.length} top-ups waiting for a transfer; send one of them, or ask again once one expires.`,
            );
          }
          const id = newId('payer_topup');
          const expiresAt = now + TOPUP_MATCH_MS;
          const slot = { environment: payer.environment, network, asset, address: target.address };
          const owner = { merchant_id: null, payment_intent_id: null, payer_topup_id: id, expires_at: expiresAt };
          const allocation = await reserveTaggedAmount(tx, slot, parsed.value, owner, now);
          const topup: PayerChainTopupRow = {
            id,
            payer_id: payer.id,
            environment: payer.environment,
            method: 'chain',
            network,
            asset,
            requested_amount: requested,
            amount: allocation.amount,
            address: target.address,
            status: 'requested',
            tx_hash: null,
            movement_id: null,
            expires_at: expiresAt,
            credited_at: null,
            created_at: now,
            updated_at: now,
          };
          await repo.insertTopup(tx, topup);
          return topup;
        }),
      );
      return this.view(row, new Set());
    } catch (err) {
      if (err instanceof AppError)
        throw new ConsoleError(
          409,
          'Too many top-ups and payments of this amount are waiting on this network; choose another amount or network.',
        );
      throw err;
    }
  }

  /**
   * The chain watcher's credit of a transfer of a top-up's exact amount, at its depth, in the transfer's
   * transaction: null when credited, or why not (the transfer is then an unmatched deposit).
   */
  async creditIn(tx: Tx, topupId: string, transfer: TopupTransfer, now: number): Promise<string | null> {
    const topup = await repo.lockTopup(tx, topupId);
    if (!topup) return 'no_matching_payment';
    if (topup.status === 'credited') return 'topup_already_credited';
    if (transfer.seenAt >= Number(topup.expires_at)) {
      await repo.expireTopups(tx, { id: topup.id }, now);
      return 'topup_expired';
    }
    const movementId = await postPayerMovement(tx, {
      payerId: topup.payer_id,
      environment: topup.environment,
      asset: topup.asset as PayerAsset,
      kind: 'top_up',
      amount: new Decimal(transfer.amount),
      at: now,
    });
    // Locked and read as requested above, so this moves it; were it not, all of it rolls back and the watcher asks again.
    if (!(await repo.markCredited(tx, topup.id, { txHash: transfer.txHash, movementId }, now))) {
      throw new Error(`top-up ${topup.id} moved while locked`);
    }
    return null;
  }
}
