// Payment intents: create (with the embedded quote), retrieve, list, cancel, and expiry.
import type { Kysely, Transaction } from 'kysely';
import type { DB, IntentStatus, PaymentIntentRow } from '../../db/schema.js';
import { toPage, unknownCursor, type Page } from '../../http/pagination.js';
import { offsetClock, type Clock } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { jsonTextOf } from '../../shared/raw-json.js';
import { Decimal, formatAmount } from '../../shared/money.js';
import type { RateProvider } from '../rates/index.js';
import { assetForFiat } from '../quotes/pricing.js';
import { requireAmount, requireAsset, requireFiat } from '../quotes/quotes.service.js';
import { merchantClock } from '../sandbox/sandbox-clock.js';
import type { SettlementPolicy } from '../settlements/index.js';
import { intentView, type CheckoutUrlFor, type PaymentIntent } from './intent-view.js';
import { methodAllowed, methodsFor, whyUnavailable, type PaymentMethod } from './payment-methods.js';
import * as repo from './payment-intents.repo.js';
import { IntentMoveConflict, creationEvents, moveIntent } from './state-machine.js';
import { executeInOrder, executeTransaction } from '../../db/dialect.js';
import { batcher } from '../../db/batcher.js';

export interface IntentContext {
  db: Kysely<DB>;
  /** The base (real) clock; a sandbox merchant's clock adds its offset. */
  clock: Clock;
  rates: RateProvider;
  checkoutUrl: CheckoutUrlFor;
  /** When a paid intent's settlement becomes available (config); DECISIONS defaults when omitted. */
  settlementPolicy?: SettlementPolicy;
  /** Writes a new intent with its creation event; group-committed when built by intentCreator. */
  insertCreated?: (intent: NewIntent) => Promise<void>;
}

export type Scope = repo.Scope;

export const DEFAULT_EXPIRY_MINUTES = 30;
export const MAX_EXPIRY_MINUTES = 1440;

export interface CreateIntentInput {
  amount: string;
  currency: string;
  settlement_currency?: string;
  description?: string;
  merchant_reference?: string;
  payment_methods?: PaymentMethod[];
  customer?: { email?: string; phone?: string };
  metadata?: object;
  expires_in_minutes?: number;
  return_url?: string;
  /** Set when a payment link mints the intent. */
  payment_link?: string;
}

/** The merchant's clock: the offset read with the request's key when there is one, else from the database. */
export async function clockFor(ctx: IntentContext, scope: Scope & { sandboxOffsetMs?: number }): Promise<Clock> {
  if (scope.sandboxOffsetMs !== undefined) return scope.sandboxOffsetMs === 0 ? ctx.clock : offsetClock(ctx.clock, scope.sandboxOffsetMs);
  return merchantClock(ctx.db, ctx.clock, scope.merchantId, scope.environment);
}

function checkReturnUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('parameter_invalid', 'Invalid return_url: must be an absolute URL', { param: 'return_url' });
  }
  const localhost = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
  if (!(parsed.protocol === 'https:' || (parsed.protocol === 'http:' && localhost))) {
    throw new AppError('parameter_invalid', 'Invalid return_url: must be https (http only on localhost)', { param: 'return_url' });
  }
}

/** A new intent: its row and the view of it that the response and the creation event both show. */
export interface NewIntent {
  row: PaymentIntentRow;
  view: PaymentIntent;
}

/** Builds the row of a new intent: validates the money and methods and embeds the quote. */
export function buildIntentRow(ctx: IntentContext, scope: Scope, now: number, input: CreateIntentInput): PaymentIntentRow {
  return prepareIntent(ctx, scope, now, input).row;
}

function prepareIntent(ctx: IntentContext, scope: Scope, now: number, input: CreateIntentInput): NewIntent {
  const currency = requireFiat(input.currency, 'currency');
  const asset = requireAsset(input.settlement_currency ?? 'USDT', 'settlement_currency');
  const amount = requireAmount(input.amount, currency, 'amount');
  let methods: PaymentMethod[];
  if (input.payment_methods === undefined) {
    methods = methodsFor(currency, asset);
  } else {
    methods = [...new Set(input.payment_methods)];
    for (const m of methods) {
      if (!methodAllowed(m, currency, asset)) {
        throw new AppError('payment_method_unavailable', `Payment method ${m} is not available for ${currency} settling in ${asset}: ${whyUnavailable(m)}`, {
          param: 'payment_methods',
        });
      }
    }
  }
  if (input.return_url !== undefined) checkReturnUrl(input.return_url);
  const minutes = input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES;
  const rate = ctx.rates.price(asset, currency);
  const row: PaymentIntentRow = {
    id: newId('payment_intent'),
    merchant_id: scope.merchantId,
    environment: scope.environment,
    status: 'awaiting_payment',
    amount: formatAmount(amount, currency),
    currency,
    settlement_currency: asset,
    pay_amount: formatAmount(assetForFiat(amount, rate, asset), asset),
    rate: rate.toFixed(),
    description: input.description ?? null,
    merchant_reference: input.merchant_reference ?? null,
    payment_methods: JSON.stringify(methods),
    customer: input.customer === undefined ? null : JSON.stringify(input.customer),
    metadata: jsonTextOf(input.metadata ?? {}),
    return_url: input.return_url ?? null,
    payment_link: input.payment_link ?? null,
    payment_method: null,
    amount_received: formatAmount(new Decimal(0), asset),
    failure_code: null,
    expires_at: now + minutes * 60_000,
    created_at: now,
    paid_at: null,
    cancelled_at: null,
    updated_at: now,
  };
  const view = intentView(row, ctx.checkoutUrl, { payment_methods: methods, customer: input.customer ?? null });
  return { row, view };
}

/** Inserts an intent and records its creation move, inside the caller's transaction. */
export async function insertNewIntent(trx: Transaction<DB>, ctx: IntentContext, row: PaymentIntentRow): Promise<void> {
  await insertNewIntents(trx, ctx, [row]);
}

/** The intents, their creation events and those events' deliveries: three statements, sent together. */
async function insertNewIntents(trx: Transaction<DB>, ctx: IntentContext, rows: readonly PaymentIntentRow[], views?: readonly PaymentIntent[]): Promise<void> {
  const events = creationEvents(trx, ctx, rows, views);
  await events.written(await executeInOrder(trx, [repo.insertIntentsStatement(trx, rows), ...events.statements]));
}

/** insertNewIntents as a transaction of its own: on SQLite, BEGIN to COMMIT in one message. */
async function insertNewIntentsAlone(ctx: IntentContext, rows: readonly PaymentIntentRow[], views: readonly PaymentIntent[]): Promise<void> {
  const events = creationEvents(ctx.db, ctx, rows, views);
  await events.written(await executeTransaction(ctx.db, [repo.insertIntentsStatement(ctx.db, rows), ...events.statements]));
}

/**
 * Group commit of new intents: the intents created in one turn of the event loop (and those created while
 * two earlier groups are still committing) are written by one transaction, with one INSERT per table. If
 * that transaction fails, each intent is tried again on its own, so one bad row never fails the others.
 */
export function intentCreator(ctx: IntentContext): (intent: NewIntent) => Promise<void> {
  const insert = (intents: readonly NewIntent[]) =>
    insertNewIntentsAlone(
      ctx,
      intents.map((i) => i.row),
      intents.map((i) => i.view),
    );
  return batcher<NewIntent, void>(
    async (intents) => {
      try {
        await insert(intents);
        return intents.map(() => undefined);
      } catch (err) {
        if (intents.length === 1) throw err;
        return Promise.all(intents.map((i) => insert([i]).then(() => undefined, (e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
      }
    },
    { maxBatchSize: 100, maxRunning: 2 },
  );
}

export async function createIntent(ctx: IntentContext, scope: Scope, input: CreateIntentInput): Promise<PaymentIntent> {
  const clock = await clockFor(ctx, scope);
  const intent = prepareIntent(ctx, scope, clock.nowMs(), input);
  if (ctx.insertCreated) await ctx.insertCreated(intent);
  else await ctx.db.transaction().execute((trx) => insertNewIntent(trx, ctx, intent.row));
  return intent.view;
}

export function isOverdue(row: PaymentIntentRow, nowMs: number): boolean {
  return row.status === 'awaiting_payment' && row.expires_at <= nowMs;
}

/**
 * Expires one intent if it is overdue by its merchant's clock; answers the current row. Reads call this so
 * that an overdue intent never shows as awaiting payment, even before the sweep has run.
 */
export async function expireIfOverdue(ctx: IntentContext, scope: Scope, row: PaymentIntentRow, clock: Clock): Promise<PaymentIntentRow> {
  if (!isOverdue(row, clock.nowMs())) return row;
  return ctx.db.transaction().execute(async (trx) => {
    const locked = await repo.lockIntent(trx, scope, row.id);
    if (!locked || !isOverdue(locked, clock.nowMs())) return locked ?? row;
    return moveIntent(trx, ctx, locked, 'expired', { at: locked.expires_at });
  });
}

export async function getIntentRow(ctx: IntentContext, scope: Scope, id: string): Promise<PaymentIntentRow> {
  const row = await repo.findIntent(ctx.db, scope, id);
  if (!row) throw notFound('payment_intent', id);
  return expireIfOverdue(ctx, scope, row, await clockFor(ctx, scope));
}

export async function getIntent(ctx: IntentContext, scope: Scope, id: string): Promise<PaymentIntent> {
  return intentView(await getIntentRow(ctx, scope, id), ctx.checkoutUrl);
}

export async function listIntents(
  ctx: IntentContext,
  scope: Scope,
  opts: { limit: number; startingAfter?: string; status?: IntentStatus },
): Promise<Page<PaymentIntent>> {
  await expireOverdueIntents(ctx, { merchantId: scope.merchantId, environment: scope.environment });
  let cursor = null;
  if (opts.startingAfter !== undefined) {
    cursor = await repo.findIntent(ctx.db, scope, opts.startingAfter);
    if (!cursor) throw unknownCursor(opts.startingAfter);
  }
  const rows = await repo.listIntents(ctx.db, scope, { status: opts.status }, cursor, opts.limit);
  return toPage(rows, opts.limit, (r) => intentView(r, ctx.checkoutUrl));
}

export async function cancelIntent(ctx: IntentContext, scope: Scope, id: string): Promise<PaymentIntent> {
  const clock = await clockFor(ctx, scope);
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.lockIntent(trx, scope, id);
    if (!row) throw notFound('payment_intent', id);
    const now = clock.nowMs();
    if (isOverdue(row, now)) {
      // It expired before the cancel arrived: record the expiry, then refuse.
      const expired = await moveIntent(trx, ctx, row, 'expired', { at: row.expires_at });
      return { cancelled: null, status: expired.status };
    }
    if (row.status !== 'awaiting_payment') return { cancelled: null, status: row.status };
    const cancelled = await moveIntent(trx, ctx, row, 'cancelled', { at: now, patch: { cancelled_at: now } });
    return { cancelled, status: cancelled.status };
  }).catch((err: unknown) => {
    if (err instanceof IntentMoveConflict) return { cancelled: null, status: null };
    throw err;
  });
  if (!outcome.cancelled) {
    const status = outcome.status ?? (await repo.findIntent(ctx.db, scope, id))?.status ?? 'unknown';
    throw new AppError('intent_not_cancelable', `This payment intent is ${status}; only an intent awaiting payment can be cancelled.`);
  }
  return intentView(outcome.cancelled, ctx.checkoutUrl);
}

/** The expiry sweep: moves overdue intents to expired, each in its own transaction. Answers how many. */
export async function expireOverdueIntents(
  ctx: IntentContext,
  opts: { merchantId?: string; environment?: 'live' | 'test'; batch?: number } = {},
): Promise<number> {
  let expired = 0;
  for (;;) {
    const now = ctx.clock.nowMs();
    const due = await repo.findOverdueIntentIds(ctx.db, now, { ...opts, limit: opts.batch ?? 200 });
    if (due.length === 0) return expired;
    let progressed = 0;
    for (const d of due) {
      const scope = { merchantId: d.merchant_id, environment: d.environment };
      const clock = await clockFor(ctx, scope);
      const done = await ctx.db.transaction().execute(async (trx) => {
        const row = await repo.lockIntent(trx, scope, d.id);
        if (!row || !isOverdue(row, clock.nowMs())) return false;
        await moveIntent(trx, ctx, row, 'expired', { at: row.expires_at });
        return true;
      }).catch((err: unknown) => {
        if (err instanceof IntentMoveConflict) return false;
        throw err;
      });
      if (done) progressed++;
    }
    expired += progressed;
    if (progressed === 0 || due.length < (opts.batch ?? 200)) return expired;
  }
}
