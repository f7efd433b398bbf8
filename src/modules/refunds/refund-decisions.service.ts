// The operator's decisions on live provider-rail refunds, and what follows an approval. A refund stays
// `requested` until the operator approves it (`cowrie refunds approve`, or an owner in the console), which
// sends it through the payment's own rail (Paystack `POST /refund` for a card payment; each rail plugs in
// through `sendRefund` and `refundStatus` on the rail port), or rejects it (`failed`, with the reason).
// Approval first commits the move to `pending` (asked about later), then calls the provider outside any
// transaction, then records its answer; the provider's webhook or the questions settle it (`succeeded` or
// `failed`). A crash anywhere leaves a pending refund that the next question sends or asks about: the rail
// finds a refund an earlier call made before it makes another.
import type { Logger } from 'pino';
import type { RefundRow } from '../../db/schema.js';
import { transaction, type Db } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { Decimal } from '../../shared/money.js';
import {
  IntentMoveConflict,
  findIntent,
  type CheckoutUrlFor,
  type PaymentMethod,
  type PaymentRail,
  type ProviderRefund,
  type RailRegistry,
} from '../payment-intents/index.js';
import { finishRefund, markPending } from './refund-outcomes.js';
import * as repo from './refunds.repo.js';

export interface RefundDecisionsDeps {
  db: Db;
  clocks: MerchantClocks;
  checkoutUrl: CheckoutUrlFor;
  rails: Pick<RailRegistry, 'railFor'>;
  /** The first question about a pending refund comes this long after it was sent; then doubling, up to an hour. */
  queryAfterMs: number;
  logger?: Logger;
}

const MAX_QUESTION_GAP_MS = 3_600_000;

export class RefundDecisions {
  constructor(private readonly deps: RefundDecisionsDeps) {}

  private now(): number {
    return this.deps.clocks.base.nowMs();
  }

  /** The rail that sends a refund, or the refusal that says why it cannot (the refund stays `requested`). */
  private railOf(row: RefundRow): PaymentRail & Required<Pick<PaymentRail, 'sendRefund' | 'refundStatus'>> {
    const rail = this.deps.rails.railFor(row.environment, row.payment_method as PaymentMethod);
    if (row.environment !== 'live' || !rail?.sendRefund || !rail.refundStatus) {
      throw new AppError(
        'refund_rail_unavailable',
        `Refund ${row.id} stays requested: the ${row.payment_method} rail ${row.environment === 'live' ? 'is not configured to send refunds' : 'of the sandbox refunds at once'}; refund it by hand and record it with \`cowrie refunds review\`.`,
      );
    }
    return rail as PaymentRail & Required<Pick<PaymentRail, 'sendRefund' | 'refundStatus'>>;
  }

  /** Approves a requested refund: `pending` at once, then sent through the payment's rail; answers it as it then is. */
  async approve(refundId: string): Promise<RefundRow> {
    const pending = await transaction(this.deps.db, async (trx) => {
      const row = await repo.lockRefundById(trx, refundId);
      if (!row) throw notFound('refund', refundId);
      if (row.status !== 'requested')
        throw new AppError('refund_exists', `Refund ${row.id} is already ${row.status}; only a requested refund can be approved.`);
      this.railOf(row);
      const now = this.now();
      return markPending(trx, row, now, now + this.deps.queryAfterMs);
    });
    await this.ask(pending);
    return (await repo.findRefundById(this.deps.db, pending.id)) ?? pending;
  }

  /** Rejects a requested refund: `failed` with the reason; its funds return to the available balance. */
  async reject(refundId: string, reason: string): Promise<RefundRow> {
    return transaction(this.deps.db, async (trx) => {
      const row = await repo.lockRefundById(trx, refundId);
      if (!row) throw notFound('refund', refundId);
      if (row.status !== 'requested')
        throw new AppError('refund_exists', `Refund ${row.id} is already ${row.status}; only a requested refund can be rejected.`);
      const now = await this.deps.clocks.nowMs({ merchantId: row.merchant_id, environment: row.environment });
      return finishRefund(trx, this.deps, row, 'failed', now, { failureReason: reason });
    });
  }

  /**
   * A provider's word about a refund (a webhook): the pending refund it names (by the provider's reference,
   * or by the payment) is asked about at once. Only the provider's own look-up settles it.
   */
  async hint(method: PaymentMethod, reference: string | null, intentId: string | null): Promise<void> {
    let row = reference === null ? undefined : await repo.findPendingByReference(this.deps.db, method, reference);
    if (!row && intentId !== null) row = await repo.findPendingOfIntent(this.deps.db, intentId);
    if (!row || row.resolve_at === null) return;
    const now = this.now();
    if (await repo.claimRefundQuestion(this.deps.db, row.id, row.resolve_at, now + this.deps.queryAfterMs, now)) await this.ask(row);
  }

  /** The questions (a clock job): every pending refund whose answer is due is sent or asked about; answers how many. */
  async askDue(): Promise<number> {
    const now = this.now();
    const due = await repo.duePendingRefunds(this.deps.db, now, 200);
    for (const row of due) {
      const gap = Math.min(MAX_QUESTION_GAP_MS, this.deps.queryAfterMs * 2 ** Math.min(row.queries + 1, 16));
      if (await repo.claimRefundQuestion(this.deps.db, row.id, row.resolve_at!, now + gap, now)) await this.ask(row);
    }
    return due.length;
  }

  /** Sends the refund (when it has no provider reference yet) or asks about it, and records a final answer. */
  private async ask(row: RefundRow): Promise<void> {
    const scope = { merchantId: row.merchant_id, environment: row.environment };
    let answer: ProviderRefund;
    try {
      const rail = this.railOf(row);
      if (row.rail_reference !== null) answer = await rail.refundStatus(scope, row.rail_reference);
      else {
        const intent = (await findIntent(this.deps.db, scope, row.payment_intent_id))!;
        answer = await rail.sendRefund({
          scope,
          intent,
          refundId: row.id,
          amount: new Decimal(row.asset_amount),
          ...(row.return_address ? { returnAddress: row.return_address } : {}),
        });
      }
    } catch (err) {
      this.deps.logger?.warn({ err, refund: row.id }, 'refund not sent or not answered; asking again later');
      return;
    }
    if (answer.state === 'pending') {
      if (row.rail_reference === null) await repo.setRefundReference(this.deps.db, row.id, answer.reference, null, this.now());
      return;
    }
    await this.settle(row.id, answer);
  }

  private async settle(refundId: string, answer: Exclude<ProviderRefund, { state: 'pending' }>): Promise<void> {
    await transaction(this.deps.db, async (trx) => {
      const locked = await repo.lockRefundById(trx, refundId);
      if (!locked || locked.status !== 'pending') return;
      const now = await this.deps.clocks.nowMs({ merchantId: locked.merchant_id, environment: locked.environment });
      await finishRefund(trx, this.deps, locked, answer.state, now, {
        ...(answer.reference === undefined ? {} : { railReference: answer.reference }),
        ...(answer.state === 'failed' ? { failureReason: answer.reason } : {}),
      });
    }).catch((err: unknown) => {
      if (!(err instanceof IntentMoveConflict)) throw err;
      this.deps.logger?.warn({ refund: refundId }, 'the intent moved while its refund was settled; asking again later');
    });
  }
}
