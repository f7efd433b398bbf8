// Webhook signatures (the server's "Deliveries" section). One secret signs each delivery two ways:
// `Service-Signature`, hex HMAC-SHA256 of `<Service-Timestamp>.<raw body>`, and the Standard Webhooks
// `webhook-signature`, `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, both
// keyed with the UTF-8 bytes of the whole `cwk_whsec_…` secret. Either verifies a delivery.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureVerificationError } from './errors.js';
import type { Event } from './types.js';

/** A Fetch `Headers`, or Node's `req.headers` (lower-case names, a value or a list of values). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface ConstructEventOptions {
  /** Largest difference, in seconds, between the signature's timestamp and now (default 300). */
  toleranceSeconds?: number;
  /** Unix seconds now (tests). */
  now?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function header(headers: HeadersLike, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

const bytes = (body: string | Uint8Array): Uint8Array => (typeof body === 'string' ? encoder.encode(body) : body);

function hmac(secret: string, prefix: string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(prefix).update(body).digest();
}

/** Compares in constant time; unequal lengths compare unequal without a timing difference in the content. */
function equal(expected: Buffer, given: Buffer): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function fail(code: string, message: string): never {
  throw new SignatureVerificationError(message, { type: 'signature_verification_error', code });
}

/**
 * Verifies a delivery and answers its event. Pass the raw body exactly as received (a string or the
 * bytes; never a re-serialised object), the request's headers and the endpoint's `cwk_whsec_…` secret.
 * Throws `SignatureVerificationError` when the signature is missing or wrong or the timestamp is more
 * than `toleranceSeconds` (300) away from now.
 */
export function constructEvent(
  rawBody: string | Uint8Array,
  headers: HeadersLike,
  secret: string,
  options: ConstructEventOptions = {},
): Event {
  if (typeof secret !== 'string' || secret.length === 0) fail('secret_missing', 'No webhook signing secret was given');
  const body = bytes(rawBody);
  const serviceSignature = header(headers, 'service-signature');
  const standardSignature = header(headers, 'webhook-signature');
  let timestampText: string | null;
  let verified = false;
  if (serviceSignature !== null) {
    timestampText = header(headers, 'service-timestamp');
    if (timestampText === null) fail('timestamp_missing', 'The Service-Timestamp header is missing');
    const given = /^[0-9a-f]{64}$/i.test(serviceSignature.trim()) ? Buffer.from(serviceSignature.trim(), 'hex') : Buffer.alloc(0);
    verified = equal(hmac(secret, `${timestampText}.`, body), given);
  } else if (standardSignature !== null) {
    timestampText = header(headers, 'webhook-timestamp');
    const id = header(headers, 'webhook-id');
    if (timestampText === null || id === null) fail('timestamp_missing', 'The webhook-timestamp or webhook-id header is missing');
    const expected = hmac(secret, `${id}.${timestampText}.`, body);
    // Several signatures may be sent, space-separated, while a secret changes; any one of them verifies.
    for (const part of standardSignature.split(' ')) {
      const [version, value] = part.split(',', 2);
      if (version === 'v1' && value && equal(expected, Buffer.from(value, 'base64'))) verified = true;
    }
  } else {
    fail('signature_missing', 'The delivery carries no Service-Signature or webhook-signature header');
  }
  if (!/^\d{1,12}$/.test(timestampText.trim())) fail('timestamp_invalid', 'The signature timestamp is not Unix seconds');
  if (!verified) fail('signature_mismatch', 'The signature does not match: check the secret, and pass the raw body exactly as received');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestampText)) > tolerance) {
    fail(
      'timestamp_outside_tolerance',
      `The signature's timestamp is more than ${tolerance} s away from now: a replay, or a clock that is off`,
    );
  }
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    fail('payload_invalid', 'The body is not UTF-8');
  }
  try {
    return JSON.parse(text) as Event;
  } catch {
    fail('payload_invalid', 'The body is not JSON');
  }
}

/**
 * The headers of a delivery of `payload` signed with `secret`, exactly as the server sends them: for
 * your tests, and for `cowrie listen`, which forwards events signed this way.
 */
export function generateHeaders(input: {
  payload: string | Uint8Array;
  secret: string;
  id: string;
  timestamp?: number;
}): Record<string, string> {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const body = bytes(input.payload);
  return {
    'content-type': 'application/json',
    'service-event-id': input.id,
    'service-timestamp': String(timestamp),
    'service-signature': hmac(input.secret, `${timestamp}.`, body).toString('hex'),
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${hmac(input.secret, `${input.id}.${timestamp}.`, body).toString('base64')}`,
  };
}

export const webhooks = { constructEvent, generateHeaders };
