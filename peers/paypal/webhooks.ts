// The PayPal peer's webhooks: each event goes out with the five PAYPAL-* transmission headers; the peer
// remembers what it sent under each transmission id, so its verify-webhook-signature answers SUCCESS only
// for those headers, that webhook id and that event exactly. A fault sends it once, twice, late, never, or
// with a signature that will not verify.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

export type PaypalWebhookFault = 'once' | 'twice' | 'late' | 'never' | 'bad_signature';

export interface PaypalWebhookSenderOptions {
  webhookId: string;
  url(): string | undefined;
  fault(): PaypalWebhookFault;
  later(ms: number, fn: () => void): void;
  lateMs: number;
}

const KEY = randomBytes(32);

export function paypalWebhookSender(opts: PaypalWebhookSenderOptions) {
  const sent: Array<{ event: string; status: number }> = [];
  const transmissions = new Map<string, { sig: string; body: string }>();

  const post = async (eventType: string, body: string, badSignature: boolean) => {
    const transmissionId = randomUUID();
    const time = new Date().toISOString();
    const sig = createHmac('sha256', KEY).update(`${transmissionId}|${time}|${opts.webhookId}|${body}`).digest('base64');
    transmissions.set(transmissionId, { sig, body });
    let status = 0;
    try {
      const res = await fetch(opts.url()!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'paypal-auth-algo': 'SHA256withRSA',
          'paypal-cert-url': 'https://api-m.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-peer',
          'paypal-transmission-id': transmissionId,
          'paypal-transmission-sig': badSignature ? `x${sig.slice(1)}` : sig,
          'paypal-transmission-time': time,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
    } catch {
      status = 0;
    }
    sent.push({ event: eventType, status });
  };

  return {
    sent,
    /** Sends an event as the current fault says (never awaited by the action that caused it). */
    send(eventType: string, resourceType: string, resource: unknown): void {
      if (!opts.url() || opts.fault() === 'never') return;
      const fault = opts.fault();
      const event = {
        id: `WH-${randomBytes(9).toString('hex').toUpperCase()}`,
        event_version: '1.0',
        create_time: new Date().toISOString(),
        resource_type: resourceType,
        resource_version: '2.0',
        event_type: eventType,
        summary: eventType,
        resource,
      };
      const body = JSON.stringify(event);
      if (fault === 'late') {
        opts.later(opts.lateMs, () => void post(eventType, body, false));
        return;
      }
      void post(eventType, body, fault === 'bad_signature').then(() => (fault === 'twice' ? post(eventType, body, false) : undefined));
    },
    /** verify-webhook-signature: the headers of a transmission the peer sent, its webhook id, the event as sent. */
    verify(body: Record<string, unknown>): boolean {
      const t = transmissions.get(String(body['transmission_id'] ?? ''));
      if (!t || body['webhook_id'] !== opts.webhookId || body['transmission_sig'] !== t.sig) return false;
      return JSON.stringify(body['webhook_event']) === t.body;
    },
  };
}
