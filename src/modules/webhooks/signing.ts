// Delivery signatures. One secret signs two ways: `Service-Signature` is hex HMAC-SHA256 of
// `<timestamp>.<rawBody>`; `webhook-signature` is the Standard Webhooks form, `v1,` + base64 HMAC-SHA256 of
// `<id>.<timestamp>.<rawBody>`, keyed by the UTF-8 bytes of the whole `cwk_whsec_…` secret (the
// `standardwebhooks` library's raw key format).
import { createHmac } from 'node:crypto';
import { randomBase62 } from '../../shared/ids.js';

export const SECRET_PREFIX = 'cwk_whsec_';

export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBase62(32)}`;
}

export function serviceSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

/** Every header of one delivery attempt. `timestamp` is Unix seconds. */
export function deliveryHeaders(secret: string, eventId: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Cowrie-Webhooks/1.0',
    'service-event-id': eventId,
    'service-timestamp': String(timestamp),
    'service-signature': serviceSignature(secret, timestamp, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, eventId, timestamp, body),
  };
}
