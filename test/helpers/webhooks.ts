// What the webhook tests share: a worker tuned for tests (a tiny backoff, short timeouts), a test file's
// server and local receiver, and the receiver-side check of `Service-Signature` with node:crypto alone.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { WebhookDeliveryStatus } from '../../src/db/schema.js';
import type { Db } from '../../src/db/transaction.js';
import type { CreatedMerchant } from '../../src/modules/merchants/index.js';
import { startTestServer, type ApiResponse, type TestServer } from './harness.js';
import { waitFor, type WaitOptions } from './wait.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

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

/**
 * A test file's server, its webhook worker set by `env` (or by what `env` answers, for values known only
 * at start), and a local webhook receiver: started before the tests of the enclosing describe and stopped
 * after them. Read them inside tests and hooks.
 */
export function serverAndReceiver(env: Record<string, string> | (() => Promise<Record<string, string>>) = WEBHOOK_ENV): {
  server: () => TestServer;
  receiver: () => Receiver;
} {
  let s: TestServer | undefined;
  let rx: Receiver | undefined;
  beforeAll(async () => {
    s = await startTestServer({ env: typeof env === 'function' ? await env() : env });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await s?.stop();
    await rx?.close();
  });
  const started = <T>(it: T | undefined, what: string): T => {
    if (it === undefined) throw new Error(`${what} is started in beforeAll: read it inside a test or a hook`);
    return it;
  };
  return { server: () => started(s, 'the server'), receiver: () => started(rx, 'the receiver') };
}

/** The receiver-side check of `Service-Signature`, with node:crypto alone. */
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

export interface RestingDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
}

/**
 * The merchant's webhook deliveries once the worker is done with them for now: none due, claimed or with an
 * attempt under way, so each has succeeded, failed or been cancelled, or is parked for a paused endpoint
 * (pending with no due time). Whatever the worker sent has reached the receiver by then, so a test showing
 * that something was not sent, or not sent again, waits for this rather than for a while. (Not after a
 * worker was killed: the attempts it had under way stay open.)
 */
export async function deliveriesAtRest(db: Db, merchantId: string, opts: WaitOptions = {}): Promise<RestingDelivery[]> {
  const { deliveries } = await waitFor(
    `the webhook deliveries of ${merchantId} at rest`,
    async () => ({
      deliveries: await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'event_id', 'endpoint_id', 'status', 'attempt_count', 'next_attempt_at'])
        .where('merchant_id', '=', merchantId)
        .execute(),
      open: (
        await db
          .selectFrom('webhook_attempts as a')
          .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
          .select('a.id')
          .where('d.merchant_id', '=', merchantId)
          .where('a.outcome', '=', 'pending')
          .execute()
      ).length,
    }),
    (v) => v.open === 0 && v.deliveries.every((d) => d.next_attempt_at === null),
    opts,
  );
  return deliveries.map((d) => ({
    id: d.id,
    event_id: d.event_id,
    endpoint_id: d.endpoint_id,
    status: d.status,
    attempt_count: Number(d.attempt_count),
  }));
}

/**
 * Returns once the delivery worker has claimed and sent something made after this call: an event of a
 * fresh merchant, delivered to `rx`. Claims take the oldest due first, so anything due before it has been
 * claimed by then; a test showing that something is not sent waits for this rather than for a while.
 * Answers that merchant's id.
 */
export async function workerPass(s: TestServer, rx: Receiver): Promise<string> {
  const m = await freshMerchant(s);
  const path = `/worker-pass/${m.merchant.id}`;
  const ep = await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}${path}` });
  expect(ep.status, ep.text).toBe(201);
  const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
  expect(t.status, t.text).toBe(200);
  await rx.waitFor((got) => got.some((r) => r.path === path), 10_000, 'a delivery made after this moment');
  return m.merchant.id;
}
