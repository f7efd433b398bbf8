// Payouts: the merchant takes its settled stablecoins out to an address of its own. A request checks every
// rule, then, under the merchant's row lock (which serialises every payout request of one merchant across
// processes on both engines), checks the available balance and records the payout with its hold in one
// transaction, so concurrent requests can never overdraw. Up to COWRIE_PAYOUT_AUTO_APPROVE a live payout is
// approved at once; larger ones wait for the operator (`cowrie payouts approve|cancel`). The sender
// (payout-sender.ts) does the rest. Sandbox payouts are `sent` at once with a simulated hash and `paid`
// SANDBOX_PAID_AFTER_MS of sandbox time later (or failed by the test driver).
import { randomBytes } from 'node:crypto';
import { isUniqueViolation } from '../../db/dialect.js';
import { readPage, type Page } from '../../db/pagination.js';
import type { PayoutRow, PayoutStatus } from '../../db/schema.js';
import { transaction, type CommitWith, type Db, type Tx } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import type { ChainNetwork } from '../../shared/chains.js';
import { AppError, OperatorError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, requireAmount, type SettlementAsset } from '../../shared/money.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import { ACCOUNTS, accountBalances } from '../ledger/index.js';
import type { ProviderRefund } from '../payment-intents/index.js';
import { lockMerchant } from '../merchants/index.js';
import { auditPayout, markPaid, markReleased, markSent, recordRequested } from './payout-outcomes.js';
import { ADDRESS_PATTERNS, payoutView, type Payout } from './payout.schema.js';
import * as repo from './payouts.repo.js';

/** A sandbox payout is paid this long (sandbox time) after it is sent. */
export const SANDBOX_PAID_AFTER_MS = 30_000;

/** What the service needs to know of the live networks that have a sender. */
export interface PayoutNetworks {
  /** Whether the network has a payout sender (RPC URLs, address and payout key configured). */
  has(network: ChainNetwork): boolean;
  /** The sender's own check of a receiving address on its network. */
  isValidAddress(network: ChainNetwork, address: string): boolean;
}

export interface PayoutServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  networks: PayoutNetworks;
  /** Live payouts up to this amount (in their asset) are approved at once. */
  autoApprove: Decimal;
}

export interface CreatePayoutInput {
  amount: string;
  asset: SettlementAsset;
  /** Either case; stored in lower case. */
  network: string;
  address: string;
}

/** Who asked: the API (a key), or a console user (with the PIN checked). */
export interface PayoutRequester {
  actor: string;
  userId?: string | null;
  ip?: string | null;
}

/** A simulated transaction hash of the network's form, for sandbox payouts. */
function simulatedHash(network: ChainNetwork): string {
  const hex = randomBytes(32).toString('hex');
  if (network === 'base' || network === 'polygon') return `0x${hex}`;
  return `sandbox_${hex}`;
}

/** A payout just asked for: `requested`, nothing sent yet. */
function requestedRow(
  r: Omit<
    PayoutRow,
    'status' | 'tx_hash' | 'failure_reason' | 'resolve_at' | 'sent_at' | 'paid_at' | 'updated_at' | 'payer_request_key'
  > & {
    payer_request_key?: string | null;
  },
): PayoutRow {
  return {
    payer_request_key: null,
    ...r,
    status: 'requested',
    tx_hash: null,
    failure_reason: null,
    resolve_at: null,
    sent_at: null,
    paid_at: null,
    updated_at: r.created_at,
  };
}

export class PayoutService {
  constructor(private readonly deps: PayoutServiceDeps) {}

  /** Now for a payout: its merchant's clock (a sandbox clock may be ahead), or the base clock for a payer's. */
  private nowOf(row: PayoutRow): Promise<number> | number {
    if (row.merchant_id === null) return this.deps.clocks.base.nowMs();
    return this.deps.clocks.nowMs({ merchantId: row.merchant_id, environment: row.environment });
  }

  /** A payer's withdrawals, newest first (the wallet page). */
  payerWithdrawals(payerId: string, environment: Environment, limit = 100): Promise<PayoutRow[]> {
    return repo.listPayerWithdrawals(this.deps.db, payerId, environment, limit);
  }

  /** Checks the request, holds the amount and records the payout (sandbox: sent at once). */
  async create(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    input: CreatePayoutInput,
    by: PayoutRequester = { actor: 'api' },
    commitWith?: CommitWith<PayoutRow>,
  ): Promise<PayoutRow> {
    const deps = this.deps;
    const live = scope.environment === 'live';
    const { network, amount } = this.checkRequest(scope.environment, input);
    const clock = await deps.clocks.of(scope);
    const row = await transaction(deps.db, async (trx) => {
      const now = clock.nowMs();
      await lockMerchant(trx, scope.merchantId);
      const available = (await accountBalances(trx, scope)).get(input.asset)?.get(ACCOUNTS.available) ?? new Decimal(0);
      if (amount.gt(available)) {
        throw new AppError(
          'insufficient_balance',
          `The payout of ${formatAmount(amount, input.asset)} ${input.asset} is more than the available balance of ${formatAmount(available, input.asset)} ${input.asset}.`,
          { param: 'amount' },
        );
      }
      const requested = requestedRow({
        id: newId('payout'),
        merchant_id: scope.merchantId,
        payer_id: null,
        environment: scope.environment,
        purpose: 'payout',
        refund_id: null,
        amount: formatAmount(amount, input.asset),
        asset: input.asset,
        network,
        address: input.address,
        approved_at: live && amount.lte(deps.autoApprove) ? now : null,
        created_at: now,
      });
      const result = await this.record(trx, requested, by);
      await commitWith?.inTransaction(trx, result);
      return result;
    });
    return row;
  }

  /**
   * A payer's withdrawal from the service balance, in the caller's transaction (which holds the payer's row
   * locked and checked the balance): recorded with its hold, approved at once up to the threshold (live),
   * and in the sandbox `sent` at once with a simulated hash.
   */
  async recordPayerWithdrawal(
    trx: Tx,
    w: {
      payerId: string;
      environment: Environment;
      amount: Decimal;
      asset: SettlementAsset;
      network: ChainNetwork;
      address: string;
      /** The form's one-time key (see payer_request_key). */
      requestKey: string;
    },
    by: PayoutRequester,
  ): Promise<PayoutRow> {
    const now = this.deps.clocks.base.nowMs();
    const live = w.environment === 'live';
    const requested = requestedRow({
      id: newId('payout'),
      merchant_id: null,
      payer_id: w.payerId,
      payer_request_key: w.requestKey,
      environment: w.environment,
      purpose: 'payer_withdrawal',
      refund_id: null,
      amount: formatAmount(w.amount, w.asset),
      asset: w.asset,
      network: w.network,
      address: w.address,
      approved_at: live && w.amount.lte(this.deps.autoApprove) ? now : null,
      created_at: now,
    });
    return this.record(trx, requested, by);
  }

  /** The payer's withdrawal made by the form of `requestKey`, if one was. */
  payerWithdrawalOfRequest(trx: Tx, payerId: string, requestKey: string): Promise<PayoutRow | undefined> {
    return repo.findPayerRequest(trx, payerId, requestKey);
  }

  /** Records a payout asked for with its hold, its auto-approval, and (sandbox) its simulated send. */
  private async record(trx: Tx, requested: PayoutRow, by: PayoutRequester): Promise<PayoutRow> {
    const now = requested.created_at;
    await recordRequested(trx, requested, by);
    if (requested.approved_at !== null) await auditPayout(trx, requested, { actor: 'auto', action: 'payout.approved', at: now });
    if (requested.environment === 'live') return requested;
    const network = requested.network as ChainNetwork;
    return (await markSent(trx, requested, simulatedHash(network), now, now + SANDBOX_PAID_AFTER_MS)) ?? requested;
  }

  /**
   * Checks a payout's request before anything is held: a positive amount in the asset's decimals, a known
   * network and an address of its form; live, a network with a sender whose own check the address passes.
   */
  checkRequest(environment: Environment, input: CreatePayoutInput): { network: ChainNetwork; amount: Decimal } {
    const deps = this.deps;
    const network = input.network.toLowerCase() as ChainNetwork;
    const amount = requireAmount(input.amount, input.asset, 'amount');
    if (amount.lte(0)) throw new AppError('parameter_invalid', 'Invalid amount: a payout must be more than 0.', { param: 'amount' });
    const pattern = ADDRESS_PATTERNS[network];
    if (!pattern) throw new AppError('parameter_invalid', 'Invalid network: one of BASE, POLYGON, TRON or SOLANA.', { param: 'network' });
    const badAddress = () =>
      new AppError('parameter_invalid', `Invalid address: not a valid ${network.toUpperCase()} address.`, { param: 'address' });
    if (!pattern.test(input.address)) throw badAddress();
    const live = environment === 'live';
    if (live && !deps.networks.has(network)) {
      throw new AppError(
        'payout_network_unavailable',
        `No payout sender is configured for ${network.toUpperCase()}; choose another network.`,
        {
          param: 'network',
        },
      );
    }
    if (live && !deps.networks.isValidAddress(network, input.address)) throw badAddress();
    return { network, amount };
  }

  async get(scope: MerchantScope, id: string): Promise<Payout> {
    const row = await repo.findPayout(this.deps.db, scope, id);
    if (!row) throw notFound('payout', id);
    return payoutView(row);
  }

  async list(scope: MerchantScope, opts: { limit: number; startingAfter?: string; status?: PayoutStatus }): Promise<Page<Payout>> {
    const db = this.deps.db;
    return readPage(
      opts,
      (id) => repo.findPayout(db, scope, id),
      (cursor, limit) => repo.listPayouts(db, scope, { ...(opts.status ? { status: opts.status } : {}) }, cursor, limit),
      payoutView,
    );
  }

  /** The operator's list across merchants. */
  listAll(opts: { status?: PayoutStatus; limit?: number }): Promise<PayoutRow[]> {
    return repo.listAllPayouts(this.deps.db, opts.status ? { status: opts.status } : {}, opts.limit ?? 100);
  }

  /** The operator approves a requested payout: the sender takes it. Anything but a waiting `requested` payout is refused. */
  async approve(id: string, actor = 'operator'): Promise<PayoutRow> {
    return transaction(this.deps.db, async (trx) => {
      const locked = await repo.lockPayoutById(trx, id);
      if (!locked || locked.purpose === 'refund') throw new OperatorError(`No such payout: ${id}`, 'resource_missing');
      if (locked.status !== 'requested') {
        throw new OperatorError(`Payout ${id} is ${locked.status}; only a requested payout can be approved.`, 'payout_not_requested');
      }
      if (locked.approved_at !== null)
        throw new OperatorError(`Payout ${id} is already approved; the sender is sending it.`, 'payout_approved');
      const now = this.deps.clocks.base.nowMs();
      await repo.approvePayout(trx, id, now);
      await auditPayout(trx, locked, { actor, action: 'payout.approved', at: now });
      return { ...locked, approved_at: now, updated_at: now };
    });
  }

  /**
   * The operator cancels a payout before it is sent: `cancelled`, released. Refused once it is not
   * `requested`, or once the sender has signed a transfer of it (it may be on its way).
   */
  async cancel(id: string, actor = 'operator'): Promise<PayoutRow> {
    return transaction(this.deps.db, async (trx) => {
      const locked = await repo.lockPayoutById(trx, id);
      if (!locked || locked.purpose === 'refund') throw new OperatorError(`No such payout: ${id}`, 'resource_missing');
      if (locked.status !== 'requested') {
        throw new OperatorError(`Payout ${id} is ${locked.status}; only a requested payout can be cancelled.`, 'payout_not_requested');
      }
      if ((await repo.transactionsOf(trx, id)).length > 0) {
        throw new OperatorError(
          `Payout ${id} is already signed by the sender and may be on its way; it cannot be cancelled.`,
          'payout_signed',
        );
      }
      return (await markReleased(trx, locked, 'cancelled', await this.nowOf(locked), { actor }))!;
    });
  }

  /** Whether a live network has a payout sender (the chain rail's refunds). */
  has(network: string): boolean {
    return this.deps.networks.has(network as ChainNetwork);
  }

  isValidAddress(network: string, address: string): boolean {
    const pattern = ADDRESS_PATTERNS[network as ChainNetwork];
    return !!pattern && pattern.test(address) && this.deps.networks.isValidAddress(network as ChainNetwork, address);
  }

  /**
   * An approved external-wallet refund's on-chain send: a send (purpose `refund`, approved, no ledger of its
   * own: the refund reserved the money) made by the network's sender; once per refund. Answers its id.
   */
  async queueRefund(send: {
    refundId: string;
    scope: MerchantScope;
    network: string;
    asset: string;
    amount: string;
    address: string;
  }): Promise<string> {
    const existing = await repo.findSendOfRefund(this.deps.db, send.refundId);
    if (existing) return existing.id;
    const now = this.deps.clocks.base.nowMs();
    const row = requestedRow({
      id: newId('payout'),
      merchant_id: send.scope.merchantId,
      payer_id: null,
      environment: send.scope.environment,
      purpose: 'refund',
      refund_id: send.refundId,
      amount: formatAmount(new Decimal(send.amount), send.asset as SettlementAsset),
      asset: send.asset,
      network: send.network,
      address: send.address,
      approved_at: now,
      created_at: now,
    });
    try {
      await transaction(this.deps.db, (trx) => recordRequested(trx, row, { actor: 'operator' }));
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return (await repo.findSendOfRefund(this.deps.db, send.refundId))!.id;
    }
    return row.id;
  }

  /** Where a refund's send is: pending until paid at the depth (succeeded, with its hash) or failed. */
  async refundSendStatus(reference: string): Promise<ProviderRefund> {
    const row = await repo.findPayoutById(this.deps.db, reference);
    if (!row || row.purpose !== 'refund') throw new Error(`no refund send ${reference}`);
    if (row.status === 'paid') return { state: 'succeeded', reference: row.tx_hash! };
    if (row.status === 'failed' || row.status === 'cancelled') {
      return {
        state: 'failed',
        ...(row.tx_hash ? { reference: row.tx_hash } : {}),
        reason: row.failure_reason ?? `The on-chain send was ${row.status}`,
      };
    }
    return { state: 'pending', reference: row.id };
  }

  /** The sandbox test driver: fails a sandbox payout that is not final yet (released, `payout.failed`). */
  async failSandboxPayout(scope: MerchantScope, id: string, reason = 'Failed by the sandbox test driver'): Promise<PayoutRow> {
    if (scope.environment !== 'test') {
      throw new AppError('sandbox_only', 'This exists only in the sandbox; use a cwk_test_ key on the sandbox base URL.');
    }
    return transaction(this.deps.db, async (trx) => {
      const found = await repo.findPayout(trx, scope, id);
      if (!found) throw notFound('payout', id);
      const locked = (await repo.lockPayoutById(trx, id))!;
      if (locked.status !== 'requested' && locked.status !== 'sent') {
        throw new AppError('parameter_invalid', `Payout ${id} is ${locked.status}; only a payout not yet paid can be failed.`, {
          param: 'id',
        });
      }
      const now = await this.deps.clocks.nowMs(scope);
      return (await markReleased(trx, locked, 'failed', now, { reason, actor: 'sandbox' }))!;
    });
  }

  /** The sandbox's payouts whose simulated transfer is due: `paid` on each merchant's sandbox clock; answers how many. */
  async payDueSandboxPayouts(scope: { merchantId?: string } = {}): Promise<number> {
    const deps = this.deps;
    // A sandbox clock is never behind real time: a payout due in real time is due on every merchant's clock.
    const due = await repo.dueSandboxPayouts(deps.db, { ...scope, before: deps.clocks.base.nowMs(), limit: 200 });
    let paid = 0;
    for (const row of due) {
      const done = await transaction(deps.db, async (trx) => {
        const locked = await repo.lockPayoutById(trx, row.id);
        if (!locked || locked.status !== 'sent' || locked.resolve_at === null) return false;
        const now = await this.nowOf(locked);
        if (locked.resolve_at > now) return false;
        return (await markPaid(trx, locked, locked.tx_hash!, now)) !== null;
      });
      if (done) paid++;
    }
    return paid;
  }
}
