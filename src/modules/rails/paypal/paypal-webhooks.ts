// PayPal's webhooks, `POST <live origin>/rails/paypal/webhook`: each is checked first by PayPal itself
// (`POST /v1/notifications/verify-webhook-signature` with the five `PAYPAL-*` transmission headers, the
// webhook's id and the event as received); anything but SUCCESS answers 400 and changes nothing. A verified
// event is answered at once and handled after, and is only a hint: the order's look-up (or the refund's)
// decides, so a repeated event id, a late one or one lost in a crash changes nothing the questions would not.
import type { Logger } from 'pino';
import type { RefundDecisions } from '../../refunds/index.js';
import type { PaypalApi, PaypalRail } from './paypal-rail.js';

export interface PaypalWebhookAnswer {
  status: 200 | 400;
  body: { received: boolean; error?: string };
}

type Json = Record<string, unknown>;
const HEADERS = ['paypal-auth-algo', 'paypal-cert-url', 'paypal-transmission-id', 'paypal-transmission-sig', 'paypal-transmission-time'];
/** Dispute outcomes at PayPal: the merchant keeps the money, or the buyer gets it. */
const WON = new Set(['RESOLVED_SELLER_FAVOUR', 'CANCELED_BY_BUYER', 'DENIED']);
const LOST = new Set(['RESOLVED_BUYER_FAVOUR', 'ACCEPTED', 'RESOLVED_WITH_PAYOUT']);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

export class PaypalWebhooks {
  private refunds: Pick<RefundDecisions, 'hint'> | null = null;

  constructor(
    private readonly rail: PaypalRail,
    private readonly client: Pick<PaypalApi, 'verifyWebhook'>,
    private readonly webhookId: string,
    private readonly logger?: Logger,
  ) {}

  /** Where refund events go (built after the rails). */
  refundsTo(refunds: Pick<RefundDecisions, 'hint'>): this {
    this.refunds = refunds;
    return this;
  }

  /** Verifies and accepts an event; what it leads to runs after the answer (`settled` resolves when it has). */
  async receive(rawBody: Buffer, headers: Record<string, unknown>): Promise<{ answer: PaypalWebhookAnswer; settled: Promise<void> }> {
    const done = Promise.resolve();
    const refused = (error: string) => ({ answer: { status: 400 as const, body: { received: false, error } }, settled: done });
    let event: Json;
    try {
      event = obj(JSON.parse(rawBody.toString('utf8')));
    } catch {
      return refused('not a PayPal event');
    }
    const type = str(event['event_type']);
    if (!type) return refused('not a PayPal event');
    const sent: Record<string, string | undefined> = {};
    for (const h of HEADERS) sent[h] = typeof headers[h] === 'string' ? headers[h] : undefined;
    if (HEADERS.some((h) => sent[h] === undefined)) return refused('missing PayPal transmission headers');
    let verified = false;
    try {
      verified = await this.client.verifyWebhook(sent, this.webhookId, event);
    } catch (err) {
      this.logger?.warn({ err }, 'PayPal webhook signature not checked; PayPal will send it again');
    }
    if (!verified) return refused('signature not verified');
    const settled = this.dispatch(type, obj(event['resource'])).catch((err: unknown) => {
      this.logger?.warn({ err, event: type }, 'PayPal webhook not handled; the questions will find it');
    });
    return { answer: { status: 200, body: { received: true } }, settled };
  }

  private async dispatch(type: string, resource: Json): Promise<void> {
    switch (type) {
      case 'CHECKOUT.ORDER.APPROVED': {
        const order = str(resource['id']);
        if (order) await this.rail.hint(order);
        return;
      }
      case 'PAYMENT.CAPTURE.COMPLETED':
      case 'PAYMENT.CAPTURE.DENIED':
      case 'PAYMENT.CAPTURE.PENDING': {
        const order = str(obj(obj(obj(resource['supplementary_data'])['related_ids']))['order_id']);
        if (order) await this.rail.hint(order);
        return;
      }
      case 'PAYMENT.CAPTURE.REFUNDED':
        await this.refunds?.hint('paypal', str(resource['id']), await this.intentOfRefund(resource));
        return;
      case 'PAYMENT.CAPTURE.REVERSED':
        await this.reversed(resource);
        return;
      case 'CUSTOMER.DISPUTE.CREATED':
      case 'CUSTOMER.DISPUTE.RESOLVED':
        await this.dispute(type, resource);
        return;
      default:
        this.logger?.info({ event: type }, 'PayPal webhook event not used');
    }
  }

  /** The intent a refund's capture paid: the refund's `up` link names the capture. */
  private async intentOfRefund(resource: Json): Promise<string | null> {
    const capture = captureOf(resource);
    return capture ? ((await this.rail.paymentOfCapture(capture))?.payment_intent_id ?? null) : null;
  }

  /**
   * PayPal took a capture's money back (a chargeback it settled for the buyer): a dispute, opened when none
   * was, and lost. A repeat changes nothing (the intent has its dispute, and it is not open).
   */
  private async reversed(resource: Json): Promise<void> {
    const capture = captureOf(resource);
    if (!capture) return;
    await this.rail.applyDispute(capture, 'dispute', 'PayPal reversed the payment');
    await this.rail.applyDispute(capture, 'dispute_lost');
  }

  /** A dispute on a capture: opened (its reason kept), or resolved won or lost by PayPal's outcome code. */
  private async dispute(type: string, resource: Json): Promise<void> {
    const transactions = Array.isArray(resource['disputed_transactions']) ? (resource['disputed_transactions'] as unknown[]).map(obj) : [];
    const capture = transactions.map((t) => str(t['seller_transaction_id'])).find((t) => t !== null);
    if (!capture) return;
    if (type === 'CUSTOMER.DISPUTE.CREATED') {
      await this.rail.applyDispute(capture, 'dispute', str(resource['reason']) ?? undefined);
      return;
    }
    const code = str(obj(resource['dispute_outcome'])['outcome_code']) ?? '';
    if (WON.has(code)) await this.rail.applyDispute(capture, 'dispute_won');
    else if (LOST.has(code)) await this.rail.applyDispute(capture, 'dispute_lost');
  }
}

/** The capture a refund or reversal belongs to: its `up` link, `/v2/payments/captures/{id}`. */
function captureOf(resource: Json): string | null {
  const links = Array.isArray(resource['links']) ? (resource['links'] as unknown[]).map(obj) : [];
  const up = links.map((l) => str(l['href']) ?? '').find((h) => /\/v2\/payments\/captures\/[^/]+$/.test(h));
  return up ? decodeURIComponent(up.slice(up.lastIndexOf('/') + 1)) : null;
}
