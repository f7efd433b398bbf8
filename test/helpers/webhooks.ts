// What the webhook tests share: a worker tuned for tests (a tiny backoff, short timeouts) and the
// receiver-side signature check of section 6.2 with node:crypto alone.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { expect } from 'vitest';
import type { CreatedMerchant } from '../../src/modules/merchants/index.js';
import type { ApiResponse, TestServer } from './harness.js';

export const SCALE = 0.00005;
export const WEBHOOK_ENV = {
  COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
  COWRIE_WEBHOOK_BACKOFF_SCALE: String(SCALE),
  COWRIE_WEBHOOK_TIMEOUT_MS: '1500',
  COWRIE_WEBHOOK_LEASE_MS: '4000',
};
export const ENDPOINT_KEYS = ['created_at', 'events', 'id', 'livemode', 'object', 'status', 'url'];
export const META_KEYS = ['environment', 'request_id'];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The receiver-side check of section 6.2, with node:crypto alone. */
export function verifyServiceSignature(secret: string, headers: Record<string, unknown>, rawBody: string, toleranceS = 300): boolean {
  const timestamp = String(headers['service-timestamp']);
  const signature = String(headers['service-signature']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(signature, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export type Sandbox = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/** A fresh merchant of the server, so each test sees only its own endpoints and events. */
export async function freshMerchant(s: TestServer): Promise<CreatedMerchant & { sb: Sandbox }> {
  const m = await s.newMerchant({ verified: true });
  return { ...m, sb: (method, path, body) => s.call('test', method, path, { key: m.keys.test_secret, body }) };
}

/** A paid sandbox intent of the merchant behind `sb`. */
export async function paidIntent(sb: Sandbox): Promise<string> {
  const pi = await sb('POST', '/payment-intents', { amount: '1500.00', currency: 'KES', merchant_reference: 'order-42' });
  expect(pi.status, pi.text).toBe(201);
  const paid = await sb('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, { outcome: 'success', payment_method: 'mpesa' });
  expect(paid.status, paid.text).toBe(200);
  expect(paid.json.status).toBe('paid');
  return pi.json.id as string;
}
