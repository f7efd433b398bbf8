// Payment intents: create (with the embedded quote), retrieve, list, cancel, and expiry.
import type { Static } from 'typebox';
import { readPage, type Page } from '../../db/pagination.js';
import type { GroupCommit } from '../../db/group-commit.js';
import { WriteBatch, transaction, type CommitWith, type Db } from '../../db/transaction.js';
import { MINUTE_MS, type MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, assetForFiat, formatAmount, requireAmount, requireAsset, requireFiat } from '../../shared/money.js';
import { RawJson, jsonTextOf, serializeJson } from '../../shared/raw-json.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import type { PaymentIntentRow } from '../../db/schema.js';
import type { RateProvider } from '../rates/index.js';
import {
  intentView,
  type CheckoutUrlFor,
  type CreateIntentBody,
  type IntentCustomerValue,
  type IntentStatus,
  type PaymentIntent,
} from './payment-intent.schema.js';
import { methodAllowed, methodsFor, whyUnavailable, type PaymentMethod } from './payment-methods.js';
import type { CustomerService } from '../customers/index.js';
import type { RailRegistry } from './rails.js';
import * as repo from './payment-intents.repo.js';
import { IntentMoveConflict, addCreationEvents, expireIfOverdue, isOverdue, moveIntent } from './state-machine.js';

export const DEFAULT_EXPIRY_MINUTES = 30;

// The JSON text of a new intent's view, written once by prepare (see NewIntent.json).
const viewTexts = new WeakMap<PaymentIntent, string>();

/** The JSON text of a view made by prepare (the one its creation event carries), else undefined. */
export function viewJsonOf(view: PaymentIntent): string | undefined {
  return viewTexts.get(view);
}
export const MAX_EXPIRY_MINUTES = 1440;

/** The body of `POST /payment-intents`, and what a payment link adds when it mints an intent. */
export type CreateIntentInput = Omit<Static<typeof CreateIntentBody>, 'metadata' | 'customer'> & {
  /** Inline, or a stored customer's id (resolved by create) or its id, email and phone (prepare). */
  customer?: string | IntentCustomerValue;
  /** An object as parsed (its text kept), or the text of a link's metadata. */
  metadata?: object;
  /** Set when a payment link mints the intent. */
  payment_link?: string;
  /** The intent expires at this time (ms, merchant's clock) at the latest: a link's own expiry. */
  expires_not_after?: number;
};

/** A new intent: its row and the view of it that the response and the creation event both show. */
export interface NewIntent {
  row: PaymentIntentRow;
  view: PaymentIntent;
  /** The view's JSON text, written once: the creation event's data and the response's body both use it. */
  json?: string;
  /** What commits with it (an idempotent request's response). */
  commitWith?: CommitWith<PaymentIntent>;
}

/**
 * The writes of new intents, however many: one INSERT of the intents, their creation events and webhook
 * deliveries (on PostgreSQL all one statement), and what must commit with each. What the composition
 * root's group commit writes.
 */
export function creationBatch(db: Db, intents: readonly NewIntent[]): WriteBatch {
  const rows = intents.map((i) => i.row);
  const batch = new WriteBatch();
  // The intents are written with their events (one statement on PostgreSQL).
  addCreationEvents(
    db,
    batch,
    rows,
    intents.map((i) => (i.json === undefined ? i.view : new RawJson(i.json))),
    { name: 'payment_intents', insert: repo.insertIntentsQuery, rows },
  );
  for (const i of intents) i.commitWith?.addTo(batch, db, i.view);
  return batch;
}

export interface IntentServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  rates: RateProvider;
  checkoutUrl: CheckoutUrlFor;
  /** Which rail carries a method in an environment (a method no rail carries cannot be offered). */
  rails: Pick<RailRegistry, 'railFor'>;
  /** Stored customers, for `customer: "cus_…"`. */
  customers: Pick<CustomerService, 'find'>;
  /** Group commit of new intents (creationBatch), one per process. */
  creations: GroupCommit<NewIntent>;
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

export class IntentService {
  readonly checkoutUrl: CheckoutUrlFor;
  constructor(private readonly deps: IntentServiceDeps) {
    this.checkoutUrl = deps.checkoutUrl;
  }

  /** Writes a new intent with its creation event (and what must commit with it), group-committed. */
  insert(intent: NewIntent): Promise<void> {
    return this.deps.creations.write(intent);
  }

  view(row: PaymentIntentRow): PaymentIntent {
    return intentView(row, this.checkoutUrl);
  }

  /** A new intent's row and view: validates the money and methods and embeds the quote. Writes nothing. */
  prepare(scope: MerchantScope, now: number, input: CreateIntentInput): NewIntent {
    const currency = requireFiat(input.currency, 'currency');
    const asset = requireAsset(input.settlement_currency ?? 'USDT', 'settlement_currency');
    const amount = requireAmount(input.amount, currency, 'amount');
    let methods: PaymentMethod[];
    const carried = (m: PaymentMethod) => {
      const rail = this.deps.rails.railFor(scope.environment, m);
      return rail !== null && (rail.assets === undefined || rail.assets.includes(asset));
    };
    if (input.payment_methods === undefined) {
      methods = methodsFor(currency, asset).filter(carried);
      if (methods.length === 0) {
        throw new AppError(
          'payment_method_unavailable',
          `No payment method is available ${scope.environment === 'live' ? 'in live mode ' : ''}for ${currency} settling in ${asset}: no payment rail that takes ${currency} is configured.`,
          { param: 'currency' },
        );
      }
    } else {
      methods = [...new Set(input.payment_methods)];
      for (const m of methods) {
        if (!methodAllowed(m, currency, asset)) {
          throw new AppError(
            'payment_method_unavailable',
            `Payment method ${m} is not available for ${currency} settling in ${asset}: ${whyUnavailable(m)}`,
            {
              param: 'payment_methods',
            },
          );
        }
        if (!carried(m)) {
          throw new AppError(
            'payment_method_unavailable',
            `Payment method ${m} is not available in ${scope.environment === 'live' ? 'live mode' : 'the sandbox'}: no payment rail for it is configured.`,
            { param: 'payment_methods' },
          );
        }
      }
    }
    if (input.return_url !== undefined) checkReturnUrl(input.return_url);
    if (typeof input.customer === 'string') throw new Error('prepare: a customer id must be resolved first (create does)');
    const customer = input.customer ?? null;
    const minutes = input.expires_in_minutes ?? DEFAULT_EXPIRY_MINUTES;
    const rate = this.deps.rates.price(asset, currency);
    let expiresAt = now + minutes * MINUTE_MS;
    if (input.expires_not_after !== undefined && input.expires_not_after < expiresAt) expiresAt = input.expires_not_after;
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
      customer: customer === null ? null : JSON.stringify(customer),
      metadata: jsonTextOf(input.metadata ?? {}),
      return_url: input.return_url ?? null,
      payment_link: input.payment_link ?? null,
      payment_method: null,
      amount_received: formatAmount(new Decimal(0), asset),
      failure_code: null,
      last_payment_error: null,
      provider_reference: null,
      dispute: null,
      expires_at: expiresAt,
      created_at: now,
      paid_at: null,
      cancelled_at: null,
      updated_at: now,
    };
    const view = intentView(row, this.checkoutUrl, { payment_methods: methods, customer });
    const json = serializeJson(view);
    viewTexts.set(view, json);
    return { row, view, json };
  }

  async create(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    input: CreateIntentInput,
    commitWith?: CommitWith<PaymentIntent>,
  ): Promise<PaymentIntent> {
    if (typeof input.customer === 'string') input = { ...input, customer: await this.storedCustomer(scope, input.customer) };
    const intent = this.prepare(scope, await this.deps.clocks.nowMs(scope), input);
    await this.insert({ ...intent, ...(commitWith ? { commitWith } : {}) });
    return intent.view;
  }

  /** `customer: "cus_…"`: the stored customer's id, email and phone, or 400 naming `customer`. */
  private async storedCustomer(scope: MerchantScope, id: string): Promise<IntentCustomerValue> {
    const found = await this.deps.customers.find(scope, id);
    if (!found) throw new AppError('parameter_invalid', `Invalid customer: no customer '${id}' in this environment`, { param: 'customer' });
    return {
      id: found.id,
      ...(found.email === null ? {} : { email: found.email }),
      ...(found.phone === null ? {} : { phone: found.phone }),
    };
  }

  /** The intent's row as stored, or undefined (no expiry applied: for callers that check it themselves). */
  findRow(scope: MerchantScope, id: string): Promise<PaymentIntentRow | undefined> {
    return repo.findIntent(this.deps.db, scope, id);
  }

  /** The intent's row as it is now: an overdue one is expired first (reads never show it awaiting payment). */
  async getRow(scope: MerchantScope & { sandboxOffsetMs?: number }, id: string): Promise<PaymentIntentRow> {
    const row = await repo.findIntent(this.deps.db, scope, id);
    if (!row) throw notFound('payment_intent', id);
    const now = await this.deps.clocks.nowMs(scope);
    if (!isOverdue(row, now)) return row;
    return transaction(this.deps.db, async (tx) => {
      const locked = await repo.lockIntent(tx, scope, row.id);
      return locked ? expireIfOverdue(tx, this, locked, now) : row;
    });
  }

  async get(scope: MerchantScope & { sandboxOffsetMs?: number }, id: string): Promise<PaymentIntent> {
    return this.view(await this.getRow(scope, id));
  }

  async list(scope: MerchantScope, opts: { limit: number; startingAfter?: string; status?: IntentStatus }): Promise<Page<PaymentIntent>> {
    await this.expireOverdue({ merchantId: scope.merchantId, environment: scope.environment });
    const db = this.deps.db;
    return readPage(
      opts,
      (id) => repo.findIntent(db, scope, id),
      (cursor, limit) => repo.listIntents(db, scope, { status: opts.status }, cursor, limit),
      (row) => this.view(row),
    );
  }

  async cancel(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    id: string,
    commitWith?: CommitWith<PaymentIntent>,
  ): Promise<PaymentIntent> {
    const now = await this.deps.clocks.nowMs(scope);
    const outcome = await transaction(this.deps.db, async (tx) => {
      const row = await repo.lockIntent(tx, scope, id);
      if (!row) throw notFound('payment_intent', id);
      // An intent that expired before the cancel arrived: record the expiry, then refuse.
      const current = await expireIfOverdue(tx, this, row, now);
      if (current.status !== 'awaiting_payment') return { cancelled: null, status: current.status };
      const cancelled = await moveIntent(tx, this, current, 'cancelled', { at: now, patch: { cancelled_at: now } });
      await commitWith?.inTransaction(tx, this.view(cancelled));
      return { cancelled, status: cancelled.status };
    }).catch((err: unknown) => {
      if (err instanceof IntentMoveConflict) return { cancelled: null, status: null };
      throw err;
    });
    if (!outcome.cancelled) {
      const status = outcome.status ?? (await repo.findIntent(this.deps.db, scope, id))?.status ?? 'unknown';
      throw new AppError('intent_not_cancelable', `This payment intent is ${status}; only an intent awaiting payment can be cancelled.`);
    }
    return this.view(outcome.cancelled);
  }

  /** The expiry sweep: moves overdue intents to expired, each in its own transaction. Answers how many. */
  async expireOverdue(opts: { merchantId?: string; environment?: Environment; batch?: number } = {}): Promise<number> {
    const { db, clocks } = this.deps;
    const size = opts.batch ?? 200;
    let expired = 0;
    for (;;) {
      const due = await repo.findOverdueIntentIds(db, clocks.base.nowMs(), { ...opts, limit: size });
      if (due.length === 0) return expired;
      let progressed = 0;
      for (const d of due) {
        const scope = { merchantId: d.merchant_id, environment: d.environment };
        const now = await clocks.nowMs(scope);
        const done = await transaction(db, async (tx) => {
          const row = await repo.lockIntent(tx, scope, d.id);
          if (!row || !isOverdue(row, now)) return false;
          await expireIfOverdue(tx, this, row, now);
          return true;
        }).catch((err: unknown) => {
          if (err instanceof IntentMoveConflict) return false;
          throw err;
        });
        if (done) progressed++;
      }
      expired += progressed;
      if (progressed === 0 || due.length < size) return expired;
    }
  }
}
