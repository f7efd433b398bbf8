// Payment links (section 2.2, 3.3, 4.5; DECISIONS "Payment links"): create, retrieve, mint a fresh payment
// intent each time a customer opens the link's url, and the cap on paid payments.
import type { PaymentIntentRow, PaymentLinkRow } from '../../db/schema.js';
import type { Db, Tx } from '../../db/transaction.js';
import type { MerchantClocks } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { formatAmount, requireAmount, requireAsset, requireFiat, type FiatCurrency } from '../../shared/money.js';
import { RawJson, jsonTextOf } from '../../shared/raw-json.js';
import type { Environment, MerchantScope } from '../../shared/scope.js';
import type { IntentService } from '../payment-intents/index.js';
import { linkStatus, linkView, type CreateLinkInput, type LinkStatus, type LinkUrlFor, type PaymentLink } from './payment-link.schema.js';
import * as repo from './payment-links.repo.js';

export interface LinkServiceDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  linkUrl: LinkUrlFor;
}

export type OpenLinkResult =
  | { kind: 'inactive'; link: PaymentLinkRow; status: Exclude<LinkStatus, 'active'> }
  | { kind: 'needs_amount'; link: PaymentLinkRow; error: string | null }
  | { kind: 'minted'; link: PaymentLinkRow; intent: PaymentIntentRow };

const scopeOf = (link: PaymentLinkRow): MerchantScope => ({ merchantId: link.merchant_id, environment: link.environment });

export class LinkService {
  constructor(private readonly deps: LinkServiceDeps) {}

  private async view(link: PaymentLinkRow): Promise<PaymentLink> {
    const paid = await repo.countPaidIntents(this.deps.db, link.id);
    return linkView(link, this.deps.linkUrl, paid, await this.deps.clocks.nowMs(scopeOf(link)));
  }

  async create(scope: MerchantScope & { sandboxOffsetMs?: number }, input: CreateLinkInput): Promise<PaymentLink> {
    const title = input.title.trim();
    if (title.length === 0) throw new AppError('parameter_invalid', 'Invalid title: must not be empty', { param: 'title' });
    const currency = requireFiat(input.currency, 'currency');
    const asset = requireAsset(input.settlement_currency ?? 'USDT', 'settlement_currency');
    const amount = input.amount === undefined ? null : formatAmount(requireAmount(input.amount, currency, 'amount'), currency);
    const now = await this.deps.clocks.nowMs(scope);
    let expiresAt: number | null = null;
    if (input.expires_at !== undefined) {
      expiresAt = Date.parse(input.expires_at);
      if (!Number.isFinite(expiresAt))
        throw new AppError('parameter_invalid', 'Invalid expires_at: must be an ISO 8601 date-time', { param: 'expires_at' });
      if (expiresAt <= now) throw new AppError('parameter_invalid', 'Invalid expires_at: must be in the future', { param: 'expires_at' });
    }
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
      created_at: now,
    };
    await repo.insertLink(this.deps.db, row);
    return this.view(row);
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
    return link?.max_payments != null && (await repo.countPaidIntents(this.deps.db, linkId)) >= link.max_payments;
  }

  /**
   * The cap, inside a payment's transaction: locks the link and answers the refusal when it has no place
   * left for one more paid intent, else null. Of any number of concurrent payments, exactly as many as
   * there are places left end paid.
   */
  readonly capCheck = async (tx: Tx, linkId: string): Promise<AppError | null> => {
    const link = await repo.lockLinkCap(tx, linkId);
    if (!link || link.max_payments === null) return null;
    if ((await repo.countPaidIntents(tx, linkId)) < link.max_payments) return null;
    return new AppError(
      'payment_link_completed',
      `The payment link ${linkId} already has its ${link.max_payments} paid payment${link.max_payments === 1 ? '' : 's'}; this payment was declined and the intent is still unpaid.`,
    );
  };

  /**
   * A customer opens the link: an inactive link mints nothing; a link without an amount asks for one
   * (validated like any amount of its currency); otherwise a fresh intent is minted with payment_link set.
   */
  async open(link: PaymentLinkRow, amountText: string | undefined): Promise<OpenLinkResult> {
    const scope = scopeOf(link);
    const now = await this.deps.clocks.nowMs(scope);
    const status = linkStatus(link, await repo.countPaidIntents(this.deps.db, link.id), now);
    if (status !== 'active') return { kind: 'inactive', link, status };
    let amount = link.amount;
    if (amount === null) {
      if (amountText === undefined || amountText.trim() === '') return { kind: 'needs_amount', link, error: null };
      const text = amountText.trim();
      if (text.length > 32) return { kind: 'needs_amount', link, error: 'Enter a shorter amount.' };
      const currency = link.currency as FiatCurrency;
      try {
        amount = formatAmount(requireAmount(text, currency, 'amount'), currency);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return { kind: 'needs_amount', link, error: plainAmountError(text, link.currency) };
      }
    }
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
    await this.deps.intents.insert(intent);
    return { kind: 'minted', link, intent: intent.row };
  }
}

function plainAmountError(text: string, currency: string): string {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text))
    return `Enter the amount as a number, such as 250${currency === 'UGX' || currency === 'RWF' ? '' : '.00'}.`;
  if (/^[0.]+$/.test(text)) return 'Enter an amount greater than zero.';
  return currency === 'UGX' || currency === 'RWF'
    ? `${currency} amounts have no decimals.`
    : `${currency} amounts have at most 2 decimals.`;
}
