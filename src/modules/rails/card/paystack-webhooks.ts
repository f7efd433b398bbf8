// Paystack's webhooks, `POST <live origin>/rails/paystack/webhook`: the signature (`x-paystack-signature`,
// the hex HMAC-SHA512 of the raw body keyed with the secret key) is checked first, in constant time; a
// missing or wrong one changes nothing. A valid event is answered at once and handled after: each is only a
// hint, confirmed with Paystack's own look-up (verify, the refund's status) before anything moves, so a
// duplicate, a late one or one lost in a crash changes nothing that the questions would not.
import type { Logger } from 'pino';
import type { RefundDecisions } from '../../refunds/index.js';
import type { CardRail } from './card-rail.js';
import { parseWebhookEvent, signatureValid } from './paystack-client.js';

export interface WebhookAnswer {
  status: 200 | 400 | 401;
  body: { received: boolean; error?: string };
}

export class PaystackWebhooks {
  private refunds: Pick<RefundDecisions, 'hint'> | null = null;

  constructor(
    private readonly rail: CardRail,
    private readonly secretKey: string,
    private readonly logger?: Logger,
  ) {}

  /** Where refund events go (built after the rails). */
  refundsTo(refunds: Pick<RefundDecisions, 'hint'>): this {
    this.refunds = refunds;
    return this;
  }

  /** Checks and accepts an event; what it leads to runs after the answer (`settled` resolves when it has). */
  receive(rawBody: Buffer, signature: string | undefined): { answer: WebhookAnswer; settled: Promise<void> } {
    const done = Promise.resolve();
    if (!signatureValid(this.secretKey, rawBody, signature)) {
      return { answer: { status: 401, body: { received: false, error: 'invalid signature' } }, settled: done };
    }
    const event = parseWebhookEvent(rawBody);
    if (!event) return { answer: { status: 400, body: { received: false, error: 'not a Paystack event' } }, settled: done };
    const settled = this.dispatch(event.event, event.data).catch((err: unknown) => {
      this.logger?.warn({ err, event: event.event }, 'Paystack webhook not handled; the questions will find it');
    });
    return { answer: { status: 200, body: { received: true } }, settled };
  }

  /** A chargeback opened, or resolved: `declined` (the merchant contested) is won, `merchant-accepted` lost. */
  private async dispute(event: string, data: Record<string, unknown>): Promise<void> {
    const transaction = data['transaction'] as Record<string, unknown> | undefined;
    const reference = typeof transaction?.['reference'] === 'string' ? transaction['reference'] : null;
    if (reference === null) return;
    if (event === 'charge.dispute.create') {
      const reason = typeof data['category'] === 'string' ? data['category'] : undefined;
      await this.rail.applyDispute(reference, 'dispute', reason);
      return;
    }
    const resolution = data['resolution'];
    if (resolution === 'declined') await this.rail.applyDispute(reference, 'dispute_won');
    else if (resolution === 'merchant-accepted') await this.rail.applyDispute(reference, 'dispute_lost');
  }

  private async dispatch(event: string, data: Record<string, unknown>): Promise<void> {
    if (event === 'charge.success' && typeof data['reference'] === 'string') {
      await this.rail.hint(data['reference'], false);
      return;
    }
    if ((event === 'refund.processed' || event === 'refund.failed') && this.refunds) {
      const reference = data['id'] === undefined || data['id'] === null ? null : String(data['id']);
      const paid = typeof data['transaction_reference'] === 'string' ? await this.rail.paymentOf(data['transaction_reference']) : null;
      await this.refunds.hint('card', reference, paid?.payment_intent_id ?? null);
      return;
    }
    if (event === 'charge.dispute.create' || event === 'charge.dispute.resolve') {
      await this.dispute(event, data);
    }
  }
}
