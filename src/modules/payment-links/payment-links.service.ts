// Payment links (section 2.2, 3.3, 4.5; DECISIONS "Payment links"): create, retrieve, and mint a fresh
// payment intent each time a customer opens the link's url.
import { originOf, type Config } from '../../config.js';
import type { PaymentIntentRow } from '../../db/schema.js';
import type { PaymentLinkRow } from '../../db/schema-checkout.js';
import { isoTime } from '../../shared/clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { formatAmount } from '../../shared/money.js';
import { RawJson, jsonTextOf } from '../../shared/raw-json.js';
import { buildIntentRow, insertNewIntent, type IntentContext } from '../payment-intents/index.js';
import { requireAmount, requireAsset, requireFiat } from '../quotes/quotes.service.js';
import { merchantClock } from '../sandbox/sandbox-clock.js';
import { countPaidIntents } from './link-cap.js';
import * as repo from './payment-links.repo.js';

export type LinkStatus = 'active' | 'completed' | 'expired';

export interface PaymentLink {
  id: string;
  object: 'payment_link';
  url: string;
  status: LinkStatus;
  title: string;
  amount: string | null;
  currency: string;
  settlement_currency: string;
  paid_count: number;
  max_payments: number | null;
  expires_at: string | null;
  metadata: RawJson;
  created_at: string;
  livemode: boolean;
}

export interface CreateLinkInput {
  title: string;
  currency: string;
  amount?: string;
  settlement_currency?: string;
  max_payments?: number;
  expires_at?: string;
  metadata?: object;
}

export type LinkUrlFor = (environment: 'live' | 'test', linkId: string) => string;

export function linkUrlFor(config: Config): LinkUrlFor {
  const live = originOf(config.liveUrl);
  const sandbox = originOf(config.sandboxUrl);
  return (environment, id) => `${environment === 'live' ? live : sandbox}/pay/${id}`;
}

/** Completed (cap reached) wins over expired: both are final, and the cap is the stronger fact. */
export function linkStatus(link: PaymentLinkRow, paidCount: number, nowMs: number): LinkStatus {
  if (link.max_payments !== null && paidCount >= link.max_payments) return 'completed';
  if (link.expires_at !== null && link.expires_at <= nowMs) return 'expired';
  return 'active';
}

async function nowFor(ctx: IntentContext, link: Pick<PaymentLinkRow, 'merchant_id' | 'environment'>): Promise<number> {
  return (await merchantClock(ctx.db, ctx.clock, link.merchant_id, link.environment)).nowMs();
}

export async function linkView(ctx: IntentContext, urlFor: LinkUrlFor, link: PaymentLinkRow): Promise<PaymentLink> {
  const paid = await countPaidIntents(ctx.db, link.id);
  return {
    id: link.id,
    object: 'payment_link',
    url: urlFor(link.environment, link.id),
    status: linkStatus(link, paid, await nowFor(ctx, link)),
    title: link.title,
    amount: link.amount,
    currency: link.currency,
    settlement_currency: link.settlement_currency,
    paid_count: paid,
    max_payments: link.max_payments,
    expires_at: link.expires_at === null ? null : isoTime(link.expires_at),
    metadata: new RawJson(link.metadata),
    created_at: isoTime(link.created_at),
    livemode: link.environment === 'live',
  };
}

export async function createLink(ctx: IntentContext, urlFor: LinkUrlFor, scope: repo.Scope, input: CreateLinkInput): Promise<PaymentLink> {
  const title = input.title.trim();
  if (title.length === 0) throw new AppError('parameter_invalid', 'Invalid title: must not be empty', { param: 'title' });
  const currency = requireFiat(input.currency, 'currency');
  const asset = requireAsset(input.settlement_currency ?? 'USDT', 'settlement_currency');
  const amount = input.amount === undefined ? null : formatAmount(requireAmount(input.amount, currency, 'amount'), currency);
  const now = (await merchantClock(ctx.db, ctx.clock, scope.merchantId, scope.environment)).nowMs();
  let expiresAt: number | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = Date.parse(input.expires_at);
    if (!Number.isFinite(expiresAt)) throw new AppError('parameter_invalid', 'Invalid expires_at: must be an ISO 8601 date-time', { param: 'expires_at' });
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
  await repo.insertLink(ctx.db, row);
  return linkView(ctx, urlFor, row);
}

export async function getLink(ctx: IntentContext, urlFor: LinkUrlFor, scope: repo.Scope, id: string): Promise<PaymentLink> {
  const row = await repo.findLink(ctx.db, scope, id);
  if (!row) throw notFound('payment_link', id);
  return linkView(ctx, urlFor, row);
}

export type OpenLinkResult =
  | { kind: 'inactive'; link: PaymentLinkRow; status: Exclude<LinkStatus, 'active'> }
  | { kind: 'needs_amount'; link: PaymentLinkRow; error: string | null }
  | { kind: 'minted'; link: PaymentLinkRow; intent: PaymentIntentRow };

/**
 * A customer opens the link: an inactive link mints nothing; a link without an amount asks for one
 * (validated like any amount of its currency); otherwise a fresh intent is minted with payment_link set.
 */
export async function openLink(ctx: IntentContext, link: PaymentLinkRow, amountText: string | undefined): Promise<OpenLinkResult> {
  const now = await nowFor(ctx, link);
  const status = linkStatus(link, await countPaidIntents(ctx.db, link.id), now);
  if (status !== 'active') return { kind: 'inactive', link, status };
  let amount = link.amount;
  if (amount === null) {
    if (amountText === undefined || amountText.trim() === '') return { kind: 'needs_amount', link, error: null };
    const text = amountText.trim();
    if (text.length > 32) return { kind: 'needs_amount', link, error: 'Enter a shorter amount.' };
    try {
      amount = formatAmount(requireAmount(text, link.currency as never, 'amount'), link.currency as never);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return { kind: 'needs_amount', link, error: plainAmountError(text, link.currency) };
    }
  }
  const scope = { merchantId: link.merchant_id, environment: link.environment };
  const intent = buildIntentRow(ctx, scope, now, {
    amount,
    currency: link.currency,
    settlement_currency: link.settlement_currency,
    description: link.title,
    payment_link: link.id,
    metadata: new RawJson(link.metadata),
  });
  // An intent never outlives its link.
  if (link.expires_at !== null && link.expires_at < intent.expires_at) intent.expires_at = link.expires_at;
  await ctx.db.transaction().execute((trx) => insertNewIntent(trx, ctx, intent));
  return { kind: 'minted', link, intent };
}

function plainAmountError(text: string, currency: string): string {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) return `Enter the amount as a number, such as 250${currency === 'UGX' || currency === 'RWF' ? '' : '.00'}.`;
  if (/^[0.]+$/.test(text)) return 'Enter an amount greater than zero.';
  return currency === 'UGX' || currency === 'RWF' ? `${currency} amounts have no decimals.` : `${currency} amounts have at most 2 decimals.`;
}

