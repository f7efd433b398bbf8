// Refunds: full refunds only, at most one per payment (a unique index on the payment's refunds that have not
// failed, behind the intent's row lock), in two steps that never hold a transaction open across a rail call:
// record the request and reserve its funds; ask the rail; record the outcome. Sandbox refunds succeed at
// once; live provider-rail refunds stay `requested` until an operator reviews them (`cowrie refunds review`).
import { isUniqueViolation } from '../../db/dialect.js';
import { readPage, type Page } from '../../db/pagination.js';
import type { RefundRow, SettlementRow } from '../../db/schema.js';
import { transaction, type CommitWith, type Db, type Tx } from '../../db/transaction.js';
import { DAY_MS, isoTime, type MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import { recordEvent } from '../events/index.js';
import { ACCOUNTS, creditRefundToPayer, transfer } from '../ledger/index.js';
import { IntentMoveConflict, findIntent, lockIntent, type CheckoutUrlFor, type PaymentMethod } from '../payment-intents/index.js';
import type { RailRegistry } from '../payment-intents/index.js';
import { lockSettlementOfIntent, releaseForRefund } from '../settlements/index.js';
import { finishRefund, ledgerBase } from './refund-outcomes.js';
import { refundView, type Refund } from './refund.schema.js';
import * as repo from './refunds.repo.js';

export interface RefundServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  checkoutUrl: CheckoutUrlFor;
  /** Absent for the operator's review, which calls no rail. */
  rails?: RailRegistry;
  log?: { error(obj: object, msg: string): void };
}

/** The refund window after `paid_at`: 180 days for balance payments, 90 days for every other method. */
export const REFUND_WINDOW_DAYS = { service_balance: 180, other: 90 } as const;

/** TRON and Solana (base58) or EVM (Base, Polygon: 0x and 40 hex digits) addresses. */
export const RETURN_ADDRESS_PATTERN = '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$';

export interface CreateRefundInput {
  paymentIntent: string;
  amount?: string;
  reason?: string;
  returnAddress?: string;
  /** The body field naming the intent, for a 404's `param` (`payment_intent`, or `id` on the legacy path). */
  intentParam: string;
}

/** Checks every rule, records the refund as `requested` and reserves its funds, in one transaction. */
async function requestRefund(
  trx: Tx,
  scope: MerchantScope,
  now: number,
  input: CreateRefundInput,
  via: 'api' | 'dashboard' = 'api',
): Promise<RefundRow> {
  const { intent, settlement, method } = await refundableIntent(trx, scope, now, input, via);
  const row: RefundRow = {
    id: newId('refund'),
    merchant_id: scope.merchantId,
    environment: scope.environment,
    payment_intent_id: intent.id,
    amount: intent.amount,
    currency: intent.currency,
    asset: settlement.asset,
    asset_amount: settlement.amount,
    payment_method: method,
    status: 'requested',
    reason: input.reason ?? null,
    return_address: input.returnAddress ?? null,
    rail_reference: null,
    failure_reason: null,
    resolve_at: null,
    queries: 0,
    created_at: now,
    updated_at: now,
  };
  await repo.insertRefund(trx, row);
  const reserved = await releaseForRefund(trx, settlement, row.id, now);
  await transfer(
    trx,
    { ...ledgerBase(row, now), kind: 'refund_reserve', settlementId: reserved.id },
    ACCOUNTS.available,
    ACCOUNTS.refundReserved,
    new Decimal(row.asset_amount),
  );
  await recordEvent(trx, {
    merchantId: row.merchant_id,
    environment: row.environment,
    type: 'refund.created',
    paymentIntentId: row.payment_intent_id,
    data: refundView(row),
    at: now,
  });
  return row;
}

/** The paid intent to refund and its settlement, both locked, once every rule holds (checked in this order). */
async function refundableIntent(trx: Tx, scope: MerchantScope, now: number, input: CreateRefundInput, via: 'api' | 'dashboard') {
  const intent = await lockIntent(trx, scope, input.paymentIntent);
  if (!intent)
    throw new AppError('resource_missing', `No such payment_intent: '${input.paymentIntent.slice(0, 80)}'`, { param: input.intentParam });
  const existing = await repo.findActiveRefundOfIntent(trx, intent.id);
  if (existing) {
    throw new AppError(
      'refund_exists',
      `This payment already has a refund (${existing.id}, ${existing.status}); a payment has at most one refund.`,
    );
  }
  if (intent.status !== 'paid' || intent.paid_at === null || intent.payment_method === null) {
    throw new AppError('intent_not_refundable', `This payment intent is ${intent.status}; only a paid payment intent can be refunded.`);
  }
  const settlement: SettlementRow | undefined = await lockSettlementOfIntent(trx, intent.id);
  if (!settlement) throw new Error(`paid intent ${intent.id} has no settlement`);
  if (settlement.status === 'frozen') {
    throw new AppError(
      'intent_not_refundable',
      'This payment is disputed (its settlement is frozen); a disputed payment cannot be refunded.',
    );
  }
  if (input.amount !== undefined && !new Decimal(input.amount).eq(intent.amount)) {
    throw new AppError(
      'refund_amount_invalid',
      `Only full refunds exist: amount must be the full ${intent.amount} ${intent.currency}, or omitted.`,
      { param: 'amount' },
    );
  }
  const method = intent.payment_method as PaymentMethod;
  checkMethodRules(method, intent.paid_at, now, input, via);
  return { intent, settlement, method };
}

/** The rules of how the payment was made: its refund window, where it is refunded (API or PIN), its return address. */
function checkMethodRules(method: PaymentMethod, paidAt: number, now: number, input: CreateRefundInput, via: 'api' | 'dashboard'): void {
  const windowDays = method === 'service_balance' ? REFUND_WINDOW_DAYS.service_balance : REFUND_WINDOW_DAYS.other;
  if (now > paidAt + windowDays * DAY_MS) {
    throw new AppError(
      'refund_window_expired',
      `The refund window of ${windowDays} days after payment has passed (paid ${isoTime(paidAt)}); contact support.`,
    );
  }
  if (method === 'service_balance' && via === 'api') {
    throw new AppError(
      'use_dashboard_refund',
      'This payment was made from the service balance: refund it in the dashboard with your transaction PIN.',
    );
  }
  if (method !== 'service_balance' && via === 'dashboard') {
    throw new AppError(
      'parameter_invalid',
      `Only balance payments are refunded with the PIN; this one was paid by ${method}: use the API.`,
    );
  }
  if (method === 'external_wallet' && input.returnAddress === undefined) {
    throw new AppError('return_address_required', "An external-wallet refund is a new on-chain send: give the payer's return_address.", {
      param: 'return_address',
    });
  }
  if (method !== 'external_wallet' && input.returnAddress !== undefined) {
    throw new AppError(
      'parameter_invalid',
      `Invalid return_address: only external-wallet payments take one (this one was paid by ${method}).`,
      {
        param: 'return_address',
      },
    );
  }
}

export class RefundService {
  constructor(private readonly deps: RefundServiceDeps) {}

  /**
   * Asks for a refund and, where the payment's rail answers at once, finishes it. What commits with the
   * request (an idempotent response) is written with the refund as requested, and again as finished.
   */
  async create(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    input: CreateRefundInput,
    commitWith?: CommitWith<RefundRow>,
  ): Promise<RefundRow> {
    const deps = this.deps;
    const clock = await deps.clocks.of(scope);
    let requested: RefundRow;
    try {
      requested = await transaction(deps.db, async (trx) => {
        const row = await requestRefund(trx, scope, clock.nowMs(), input);
        await commitWith?.inTransaction(trx, row);
        return row;
      });
    } catch (err) {
      // Two requests raced past the check: the unique index let one through.
      if (isUniqueViolation(err))
        throw new AppError('refund_exists', 'This payment already has a refund; a payment has at most one refund.');
      throw err;
    }
    // The rail is asked outside any transaction. No rail (live provider rails are refunded by hand), an
    // answer of `requested`, or a rail fault leaves the refund queued for the operator's review.
    const rail = deps.rails?.railFor(scope.environment, requested.payment_method as PaymentMethod) ?? null;
    if (!rail) return requested;
    let result;
    try {
      const intent = (await findIntent(deps.db, scope, requested.payment_intent_id))!;
      result = await rail.refund({
        scope,
        intent,
        amount: new Decimal(requested.asset_amount),
        ...(requested.return_address ? { returnAddress: requested.return_address } : {}),
      });
    } catch (err) {
      deps.log?.error({ err, refund: requested.id }, 'rail refund failed; left requested for review');
      return requested;
    }
    if (result.state === 'requested') return requested;
    const outcome = result.state;
    return transaction(deps.db, async (trx) => {
      const locked = await repo.lockRefundById(trx, requested.id);
      if (!locked || locked.status !== 'requested') return locked ?? requested;
      const finished = await finishRefund(
        trx,
        deps,
        locked,
        outcome,
        clock.nowMs(),
        result.reference === undefined ? {} : { railReference: result.reference },
      );
      await commitWith?.inTransaction(trx, finished);
      return finished;
    });
  }

  /**
   * A balance payment refunded in the console with the transaction PIN (checked by the console first): the
   * same rules as the API's refunds (one per payment, paid, not disputed, 180 days), succeeded at once in
   * one transaction: the intent is refunded and `payment_intent.refunded` fires.
   */
  async refundBalancePayment(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    paymentIntent: string,
    reason?: string,
  ): Promise<RefundRow> {
    const deps = this.deps;
    const clock = await deps.clocks.of(scope);
    try {
      return await transaction(deps.db, async (trx) => {
        const now = clock.nowMs();
        const row = await requestRefund(
          trx,
          scope,
          now,
          { paymentIntent, intentParam: 'payment_intent', ...(reason ? { reason } : {}) },
          'dashboard',
        );
        const done = await finishRefund(trx, deps, row, 'succeeded', now);
        // Live, a payer's balance paid it: the amount goes back to that balance in the same transaction.
        await creditRefundToPayer(trx, done, now);
        return done;
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new AppError('refund_exists', 'This payment already has a refund; a payment has at most one refund.');
      throw err;
    }
  }

  /** The operator's decision on a requested refund, with the provider's reference of the reversal made by hand. */
  async review(refundId: string, outcome: 'succeeded' | 'failed', reference?: string): Promise<RefundRow> {
    const deps = this.deps;
    return transaction(deps.db, async (trx) => {
      const row = await repo.lockRefundById(trx, refundId);
      if (!row) throw notFound('refund', refundId);
      if (row.status !== 'requested')
        throw new AppError('refund_exists', `Refund ${row.id} is already ${row.status}; only a requested refund can be reviewed.`);
      const now = await deps.clocks.nowMs({ merchantId: row.merchant_id, environment: row.environment });
      return finishRefund(trx, deps, row, outcome, now, reference === undefined ? {} : { railReference: reference });
    }).catch((err: unknown) => {
      if (err instanceof IntentMoveConflict)
        throw new AppError('refund_exists', `The payment intent of refund ${refundId} changed; retry.`);
      throw err;
    });
  }

  async get(scope: MerchantScope, id: string): Promise<Refund> {
    const row = await repo.findRefund(this.deps.db, scope, id);
    if (!row) throw notFound('refund', id);
    return refundView(row);
  }

  async list(scope: MerchantScope, opts: { limit: number; startingAfter?: string; paymentIntent?: string }): Promise<Page<Refund>> {
    const db = this.deps.db;
    return readPage(
      opts,
      (id) => repo.findRefund(db, scope, id),
      (cursor, limit) => repo.listRefunds(db, scope, { paymentIntent: opts.paymentIntent }, cursor, limit),
      refundView,
    );
  }
}
