// Payment links: create, update, list and retrieve; mint a payment intent when a customer sends the link
// page's form (once per visit); and the cap on paid payments.
import { readPage, type Page } from '../../db/pagination.js';
import type { PaymentLinkRow } from '../../db/schema.js';
import { transaction, type CommitWith, type Db, type Q, type Tx } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import {
  MAX_INTEGER_DIGITS,
  formatAmount,
  isAmountTooLong,
  requireAmount,
  requireAsset,
  requireFiat,
  type FiatCurrency,
} from '../../shared/money.js';
import { RawJson, jsonTextOf } from '../../shared/raw-json.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import { countPaidIntentsOfLink, countPaidIntentsOfLinks, isPayable, type IntentService } from '../payment-intents/index.js';
import {
  linkStatus,
  linkView,
  type CreateLinkInput,
  type LinkStatus,
  type LinkUrlFor,
  type PaymentLink,
  type UpdateLinkInput,
} from './payment-link.schema.js';
import * as repo from './payment-links.repo.js';

/** Intents a link page's form may mint per client address a minute, across every link. */
export const LINK_MINTS_PER_MINUTE = 30;

/** A budget of mints per client address (built on the server's shared rate-limit store). */
export interface MintLimiter {
  consume(client: string): Promise<{ allowed: boolean; resetSeconds: number }>;
}

export interface LinkServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  linkUrl: LinkUrlFor;
  /** LINK_MINTS_PER_MINUTE per client address. */
  mintLimiter: MintLimiter;
}

/** What the link's page shows on a GET (nothing is minted), or after the customer sent its form. */
export type OpenLinkResult =
  | { kind: 'inactive'; link: PaymentLinkRow; status: Exclude<LinkStatus, 'active'> }
  | { kind: 'page'; link: PaymentLinkRow; error: string | null }
  | { kind: 'minted'; link: PaymentLinkRow; intentId: string }
  /** The client address minted its LINK_MINTS_PER_MINUTE: nothing was minted; try again after `retryAfterS`. */
  | { kind: 'limited'; link: PaymentLinkRow; retryAfterS: number };

const scopeOf = (link: PaymentLinkRow): MerchantScope => ({ merchantId: link.merchant_id, environment: link.environment });

export class LinkService {
  constructor(private readonly deps: LinkServiceDeps) {}

  private async view(link: PaymentLinkRow, db: Q = this.deps.db): Promise<PaymentLink> {
    const paid = await countPaidIntentsOfLink(db, link.id);
    return linkView(link, this.deps.linkUrl, paid, await this.deps.clocks.nowMs(scopeOf(link)));
  }

  async create(
    scope: MerchantScope & { sandboxOffsetMs?: number },
    input: CreateLinkInput,
    commitWith?: CommitWith<PaymentLink>,
  ): Promise<PaymentLink> {
    const title = input.title.trim();
    if (title.length === 0) throw new AppError('parameter_invalid', 'Invalid title: must not be empty', { param: 'title' });
    const currency = requireFiat(input.currency, 'currency');
    const asset = requireAsset(input.settlement_currency ?? 'USDT', 'settlement_currency');
    const amount = input.amount === undefined ? null : formatAmount(requireAmount(input.amount, currency, 'amount'), currency);
    const now = await this.deps.clocks.nowMs(scope);
    const expiresAt = input.expires_at === undefined ? null : futureTime(input.expires_at, now);
    const row: PaymentLinkRow = {
      id: newId('payment_link'),
      merchant_id: scope.merchantId,
      environment: scope.environment,
      title,
      amount,
      currency,
      settlement_currency: asset,
      max_payments: input.max_payments ?? null,
      expires_at: expiresAt,
      metadata: jsonTextOf(input.metadata ?? {}),
      active: 1,
      created_at: now,
    };
    const view = linkView(row, this.deps.linkUrl, 0, now);
    await transaction(this.deps.db, async (tx) => {
      await repo.insertLink(tx, row);
      await commitWith?.inTransaction(tx, view);
    });
    return view;
  }

  /**
   * Changes what is sent (null clears amount, cap and expiry); intents already minted keep what they were
   * minted with. A cap below the link's paid payments is refused; an expiry must be in the future.
   */
  async update(scope: MerchantScope, id: string, input: UpdateLinkInput, commitWith?: CommitWith<PaymentLink>): Promise<PaymentLink> {
    const db = this.deps.db;
    const link = await repo.findLink(db, scope, id);
    if (!link) throw notFound('payment_link', id);
    const patch: Partial<PaymentLinkRow> = {};
    if (input.title !== undefined) {
      const title = input.title.trim();
      if (title.length === 0) throw new AppError('parameter_invalid', 'Invalid title: must not be empty', { param: 'title' });
      patch.title = title;
    }
    if (input.amount !== undefined) {
      const currency = link.currency as FiatCurrency;
      patch.amount = input.amount === null ? null : formatAmount(requireAmount(input.amount, currency, 'amount'), currency);
    }
    if (input.max_payments !== undefined) {
      if (input.max_payments !== null) {
        const paid = await countPaidIntentsOfLink(db, link.id);
        if (input.max_payments < paid) {
          throw new AppError('parameter_invalid', `Invalid max_payments: the link already has ${paid} paid payments`, {
            param: 'max_payments',
          });
        }
      }
      patch.max_payments = input.max_payments;
    }
    if (input.expires_at !== undefined) {
      patch.expires_at = input.expires_at === null ? null : futureTime(input.expires_at, await this.deps.clocks.nowMs(scope));
    }
    if (input.active !== undefined) patch.active = input.active ? 1 : 0;
    if (input.metadata !== undefined) patch.metadata = jsonTextOf(input.metadata);
    return transaction(db, async (tx) => {
      if (Object.keys(patch).length > 0 && !(await repo.updateLink(tx, scope, id, patch))) throw notFound('payment_link', id);
      const view = await this.view({ ...link, ...patch }, tx);
      await commitWith?.inTransaction(tx, view);
      return view;
    });
  }

  async list(scope: MerchantScope, opts: { limit: number; startingAfter?: string; active?: boolean }): Promise<Page<PaymentLink>> {
    const db = this.deps.db;
    const now = await this.deps.clocks.nowMs(scope);
    let paid = new Map<string, number>();
    const page = await readPage(
      opts,
      (id) => repo.findLink(db, scope, id),
      async (cursor, limit) => {
        const rows = await repo.listLinks(db, scope, cursor, limit, opts.active);
        paid = await countPaidIntentsOfLinks(
          db,
          rows.slice(0, limit).map((r) => r.id),
        );
        return rows;
      },
      (row) => row,
    );
    return { ...page, data: page.data.map((row) => linkView(row, this.deps.linkUrl, paid.get(row.id) ?? 0, now)) };
  }

  async get(scope: MerchantScope, id: string): Promise<PaymentLink> {
    const row = await repo.findLink(this.deps.db, scope, id);
    if (!row) throw notFound('payment_link', id);
    return this.view(row);
  }

  /** A link by its unguessable id within an environment (the public page). */
  findPublic(environment: Environment, id: string): Promise<PaymentLinkRow | undefined> {
    return repo.findLinkInEnvironment(this.deps.db, environment, id);
  }

  /** Whether the link that minted an intent has no place left for one more paid payment. */
  async isFull(linkId: string): Promise<boolean> {
    const link = await repo.findLinkCap(this.deps.db, linkId);
    return link?.max_payments != null && (await countPaidIntentsOfLink(this.deps.db, linkId)) >= link.max_payments;
  }

  /**
   * The cap, inside a payment's transaction: locks the link and answers the refusal when it has no place
   * left for one more paid intent, else null. Of any number of concurrent payments, exactly as many as
   * there are places left end paid.
   */
  async capCheck(tx: Tx, linkId: string): Promise<AppError | null> {
    const link = await repo.lockLinkCap(tx, linkId);
    if (!link || link.max_payments === null) return null;
    if ((await countPaidIntentsOfLink(tx, linkId)) < link.max_payments) return null;
    return new AppError(
      'payment_link_completed',
      `The payment link ${linkId} already has its ${link.max_payments} paid payment${link.max_payments === 1 ? '' : 's'}; this payment was declined and the intent is still unpaid.`,
    );
  }

  /** What a GET of the link's page shows: its form, or why it takes no payment. Mints nothing. */
  async open(link: PaymentLinkRow): Promise<OpenLinkResult> {
    const status = await this.statusOf(link);
    return status === 'active' ? { kind: 'page', link, error: null } : { kind: 'inactive', link, status };
  }

  /**
   * The customer acts on the link's page (sends its form, with the amount when the link has none): the
   * intent of this visit, minted once. A visit whose intent is still open and for the same amount goes back
   * to it (a double-submitted form, the back button); otherwise a fresh intent is minted and the visit
   * follows it. Of concurrent sends of one visit, one mints and the others go to its intent. Only a send
   * that mints spends the client address's budget (LINK_MINTS_PER_MINUTE); past it, nothing is minted.
   */
  async mint(link: PaymentLinkRow, visit: string, amountText: string | undefined, client: string): Promise<OpenLinkResult> {
    const status = await this.statusOf(link);
    if (status !== 'active') return { kind: 'inactive', link, status };
    let amount = link.amount;
    if (amount === null) {
      const text = (amountText ?? '').trim();
      if (text === '') return { kind: 'page', link, error: 'Enter the amount to pay.' };
      if (text.length > 32) return { kind: 'page', link, error: 'Enter a shorter amount.' };
      const currency = link.currency as FiatCurrency;
      try {
        amount = formatAmount(requireAmount(text, currency, 'amount'), currency);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return { kind: 'page', link, error: plainAmountError(text, link.currency) };
      }
    }
    const db = this.deps.db;
    const scope = scopeOf(link);
    const now = await this.deps.clocks.nowMs(scope);
    const previous = await repo.findVisit(db, link.id, visit);
    if (previous) {
      const intent = await this.deps.intents.findRow(scope, previous.payment_intent_id);
      // Not yet there: a concurrent send of this visit is minting it.
      if (!intent || (isPayable(intent, now) && intent.amount === amount)) {
        return { kind: 'minted', link, intentId: previous.payment_intent_id };
      }
    }
    const budget = await this.deps.mintLimiter.consume(client);
    if (!budget.allowed) return { kind: 'limited', link, retryAfterS: budget.resetSeconds };
    const intent = this.deps.intents.prepare(scope, now, {
      amount,
      currency: link.currency,
      settlement_currency: link.settlement_currency,
      description: link.title,
      payment_link: link.id,
      metadata: new RawJson(link.metadata),
      // An intent never outlives its link.
      ...(link.expires_at === null ? {} : { expires_not_after: link.expires_at }),
    });
    const id = intent.row.id;
    const claimed = previous
      ? await repo.moveVisit(db, link.id, visit, previous.payment_intent_id, id)
      : await repo.claimVisit(db, { link_id: link.id, visit, payment_intent_id: id, created_at: now });
    if (!claimed) {
      // Another send of this visit won: go where it went.
      const winner = await repo.findVisit(db, link.id, visit);
      return { kind: 'minted', link, intentId: winner?.payment_intent_id ?? id };
    }
    await this.deps.intents.insert(intent);
    return { kind: 'minted', link, intentId: id };
  }

  private async statusOf(link: PaymentLinkRow): Promise<LinkStatus> {
    const now = await this.deps.clocks.nowMs(scopeOf(link));
    return linkStatus(link, await countPaidIntentsOfLink(this.deps.db, link.id), now);
  }
}

/** An expiry sent by the merchant: a date-time in the future by the merchant's clock, or 400 naming expires_at. */
function futureTime(text: string, now: number): number {
  const at = Date.parse(text);
  if (!Number.isFinite(at))
    throw new AppError('parameter_invalid', 'Invalid expires_at: must be an ISO 8601 date-time', { param: 'expires_at' });
  if (at <= now) throw new AppError('parameter_invalid', 'Invalid expires_at: must be in the future', { param: 'expires_at' });
  return at;
}

function plainAmountError(text: string, currency: string): string {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text))
    return `Enter the amount as a number, such as 250${currency === 'UGX' || currency === 'RWF' ? '' : '.00'}.`;
  if (isAmountTooLong(text)) return `Enter a smaller amount: at most ${MAX_INTEGER_DIGITS} digits before the decimal point.`;
  if (/^[0.]+$/.test(text)) return 'Enter an amount greater than zero.';
  return currency === 'UGX' || currency === 'RWF'
    ? `${currency} amounts have no decimals.`
    : `${currency} amounts have at most 2 decimals.`;
}
