// What the hosted checkout reads and does: the intent as the customer may see it, its live status, and
// pay actions handed to the rail of the chosen method. Nothing here reveals a key, a merchant id or any
// field the page does not show.
import type { PaymentIntentRow, RailPaymentRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import { isoTime, type MerchantClocks } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Environment } from '../../shared/scope.js';
import {
  findIntentWithMerchantName,
  isPayable,
  isOverdue,
  PAYMENT_METHODS,
  type IntentService,
  type PaymentMethod,
  type RailRegistry,
} from '../payment-intents/index.js';
import type { LinkService } from '../payment-links/index.js';
import { latestRailPayment, WALLET_NETWORKS, WALLET_NETWORK_NAMES, type WalletNetwork } from '../rails/index.js';

export interface CheckoutIntent {
  row: PaymentIntentRow;
  merchantName: string;
  /** The merchant's clock now (sandbox time for sandbox intents), ms. */
  now: number;
  /** Methods allowed on the intent, valid for it, and carried by a rail in this environment. */
  methods: PaymentMethod[];
  /** The wallet networks the environment's wallet rail offers (the configured ones, live). */
  walletNetworks: readonly WalletNetwork[];
  /** The intent came from a payment link that has no place left. */
  linkFull: boolean;
  attempt: RailPaymentRow | null;
}

export const METHOD_LABELS: Record<PaymentMethod, string> = {
  service_balance: 'Account balance',
  mpesa: 'M-Pesa',
  card: 'Card',
  paypal: 'PayPal',
  external_wallet: 'Crypto wallet',
};

export interface CheckoutDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  links: LinkService;
  rails: RailRegistry;
}

/** Loads an intent by its unguessable id within the request's environment; null when there is none. */
export async function loadCheckout(deps: CheckoutDeps, environment: Environment, id: string): Promise<CheckoutIntent | null> {
  if (!/^pi_[0-9A-Za-z]{1,64}$/.test(id)) return null;
  const found = await findIntentWithMerchantName(deps.db, environment, id);
  if (!found) return null;
  let row = found.row;
  const scope = { merchantId: row.merchant_id, environment: row.environment };
  const now = await deps.clocks.nowMs(scope);
  if (isOverdue(row, now)) row = await deps.intents.getRow(scope, row.id);
  let attempt = (await latestRailPayment(deps.db, row.id)) ?? null;
  if (attempt && attempt.state === 'pending') {
    // Ask the rail about a pending payment (the sandbox phone may have answered).
    const rail = deps.rails.railFor(row.environment, attempt.method as PaymentMethod);
    if (rail?.poll && attempt.resolve_at !== null && attempt.resolve_at <= now) {
      await rail.poll(scope, attempt.id);
      row = await deps.intents.getRow(scope, row.id);
      attempt = (await latestRailPayment(deps.db, row.id)) ?? null;
    }
  }
  if (attempt && attempt.state !== 'pending') {
    // Read the intent again after its attempt: the attempt's state and the intent's move commit together,
    // so a finished attempt is never shown beside the intent as it was before.
    row = await deps.intents.getRow(scope, row.id);
  }
  const allowed = JSON.parse(row.payment_methods) as PaymentMethod[];
  const methods = PAYMENT_METHODS.filter((m) => allowed.includes(m) && deps.rails.railFor(row.environment, m) !== null);
  const linkFull = row.payment_link !== null && isPayable(row, now) && (await deps.links.isFull(row.payment_link));
  const walletNetworks = deps.rails.railFor(row.environment, 'external_wallet')?.networks ?? WALLET_NETWORKS;
  return { row, merchantName: found.merchantName, now, methods, walletNetworks, linkFull, attempt };
}

export const FINAL_STATUSES = new Set(['paid', 'failed', 'expired', 'cancelled', 'refunded']);

export function statusHeadline(c: CheckoutIntent): string {
  switch (c.row.status) {
    case 'awaiting_payment':
      if (c.linkFull) return 'This payment link is no longer taking payments';
      if (c.attempt?.state === 'pending' && c.attempt.method === 'mpesa') return 'Check your phone';
      if (c.attempt?.state === 'pending' && c.attempt.method === 'card' && c.row.environment === 'live')
        return 'Checking your card payment';
      if (c.attempt?.state === 'pending' && c.attempt.method === 'paypal' && c.row.environment === 'live')
        return 'Checking your PayPal payment';
      return c.attempt?.state === 'failed' ? 'That payment did not go through' : 'Waiting for your payment';
    case 'confirming':
      return 'Payment received: being confirmed';
    case 'paid':
      return 'Paid. Thank you!';
    case 'failed':
      return 'Payment failed';
    case 'expired':
      return 'This payment has expired';
    case 'cancelled':
      return 'This payment was cancelled';
    case 'refunded':
      return 'This payment was refunded';
    default:
      return c.row.status;
  }
}

/** Why an attempt failed, said to the customer. */
const FAILURE_WORDS: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'There was not enough money in the account to pay.',
  invalid_pin: 'The PIN entered was wrong.',
  timeout: 'The payment request was not answered in time.',
  customer_cancelled: 'The payment request was cancelled on the phone.',
  provider_error: 'The payment provider could not complete the payment.',
  payment_failed: 'The payment did not go through.',
};

/** What the customer is told about the outcome or the attempt in progress, in plain words. */
export function statusDetail(c: CheckoutIntent): string {
  const a = c.attempt;
  switch (c.row.status) {
    case 'paid':
      return `${c.merchantName} has received your payment.`;
    case 'confirming':
      return `Your payment was received and is being reviewed. ${c.merchantName} will let you know when it is confirmed.`;
    case 'failed':
      return `${FAILURE_WORDS[c.row.failure_code ?? ''] ?? 'The payment did not go through.'} Nothing was taken from you. Ask ${c.merchantName} for a new payment link.`;
    case 'expired':
      return `The time to pay has run out. Ask ${c.merchantName} for a new payment link.`;
    case 'cancelled':
      return a?.method === 'mpesa' && a.state === 'cancelled'
        ? 'You cancelled the M-Pesa request on your phone.'
        : `The payment was cancelled; nothing more is due.`;
    case 'awaiting_payment':
      if (c.linkFull) return `${c.merchantName} has received all the payments this link accepts. Nothing was taken from you.`;
      if (a?.state === 'pending' && a.method === 'mpesa') {
        const phone = (JSON.parse(a.details) as { phone?: string }).phone ?? 'your phone';
        return `We sent a payment request to ${phone}. Enter your M-Pesa PIN on your phone to pay.`;
      }
      if (a?.state === 'declined' && a.failure_code) return declineWords(a.failure_code, c.merchantName);
      if (a?.state === 'failed' && a.method === 'paypal' && a.failure_code === 'customer_cancelled') {
        return 'You cancelled on PayPal without paying. Nothing was taken from you. Try again, with this method or another one.';
      }
      if (a?.state === 'failed' && a.method === 'card' && a.failure_code === 'customer_cancelled') {
        return 'You left the card payment page without paying. Nothing was taken from you. Try again, with this method or another one.';
      }
      if (a?.state === 'failed' && a.failure_code) {
        return `${FAILURE_WORDS[a.failure_code] ?? FAILURE_WORDS['payment_failed']} Nothing was taken from you. Try again, with this method or another one.`;
      }
      return '';
    default:
      return '';
  }
}

/** A refused payment, in the customer's words. */
export function declineWords(code: string, merchantName: string): string {
  switch (code) {
    case 'MERCHANT_LIMIT_EXCEEDED':
      return `This payment is more than ${merchantName} can receive right now (MERCHANT_LIMIT_EXCEEDED), so it was declined. Nothing was taken from you, and this payment is still open: you can try again later or contact ${merchantName}.`;
    case 'payment_link_completed':
      return `${merchantName} has already received all the payments this link accepts, so this payment was declined. Nothing was taken from you.`;
    case 'intent_not_payable':
      return 'This payment can no longer be paid.';
    default:
      return 'The payment could not be completed. Nothing was taken from you; please try again.';
  }
}

/** The return URL with the intent's id added, when the merchant gave one. */
export function returnUrlOf(row: PaymentIntentRow): string | null {
  if (!row.return_url) return null;
  const url = new URL(row.return_url);
  url.searchParams.set('payment_intent', row.id);
  return url.toString();
}

/** The public status document the page polls: only what the page itself shows. */
export function statusView(c: CheckoutIntent) {
  return {
    status: c.row.status,
    final: FINAL_STATUSES.has(c.row.status) || c.linkFull,
    headline: statusHeadline(c),
    detail: statusDetail(c),
    expires_at: isoTime(c.row.expires_at),
    seconds_left: Math.max(0, Math.floor((c.row.expires_at - c.now) / 1000)),
    attempt: c.attempt === null ? null : { method: c.attempt.method, state: c.attempt.state },
    return_url: returnUrlOf(c.row),
  };
}

/** Rewrites a refusal for the customer (same code and field), keeps field messages that are already plain. */
export function customerError(err: unknown, merchantName: string): unknown {
  if (!(err instanceof AppError)) return err;
  if (err.code === 'MERCHANT_LIMIT_EXCEEDED' || err.code === 'payment_link_completed' || err.code === 'intent_not_payable') {
    return new AppError(err.code, declineWords(err.code, merchantName), { param: err.param });
  }
  return err;
}

export async function qrDataUrl(text: string): Promise<string> {
  // Loaded on first use: only wallet checkouts draw a QR code.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

export function networkName(network: string): string {
  return WALLET_NETWORK_NAMES[network as WalletNetwork] ?? network;
}
