// What the tests of sealed webhook secrets share: servers started and stopped on one database with the keys
// a test chooses, an endpoint and a delivery checked with the secret shown at its creation, and the
// command line run in-process.
import { expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { runCli } from '../../src/cli/program.js';
import { startTestServer, type TestServer } from './harness.js';
import { TEST_SERVER_ENV } from './test-env.js';
import type { Receiver } from './webhook-receiver.js';
import { WEBHOOK_ENV, verifyServiceSignature } from './webhooks.js';

/** Two keys in the two spellings an operator may use. */
export const KEY_A = Buffer.alloc(32, 0xa1).toString('base64');
export const KEY_B = Buffer.alloc(32, 0xb2).toString('hex');

/** A server on `databaseUrl` with the webhook worker set for tests and `env` over the test defaults. */
export function serverOn(databaseUrl: string, env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ databaseUrl, env: { ...WEBHOOK_ENV, ...env } });
}

export interface Endpoint {
  id: string;
  secret: string;
  path: string;
  /** The sandbox secret key of its merchant. */
  key: string;
}

/** A fresh merchant's endpoint on `rx`, with the secret its creation showed. */
export async function createEndpoint(s: TestServer, rx: Receiver): Promise<Endpoint> {
  const m = await s.newMerchant({ verified: true });
  const path = `/secrets/${m.merchant.id}`;
  const r = await s.call('test', 'POST', '/webhook_endpoints', { key: m.keys.test_secret, body: { url: `${rx.url}${path}` } });
  expect(r.status, r.text).toBe(201);
  expect(r.json.secret).toMatch(/^cwk_whsec_[0-9A-Za-z]{32}$/);
  return { id: r.json.id, secret: r.json.secret, path, key: m.keys.test_secret };
}

/** The endpoint's secret as the database holds it. */
export async function storedSecret(s: TestServer, endpointId: string): Promise<string> {
  const row = await s.running.database.db
    .selectFrom('webhook_endpoints')
    .select('secret')
    .where('id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return row.secret;
}

/**
 * Fires a sandbox event for the endpoint's merchant and checks that its delivery arrives signed with
 * `secret`: the Service-Signature header, and the Standard Webhooks headers through the standardwebhooks
 * library.
 */
export async function expectVerifiedDelivery(s: TestServer, rx: Receiver, ep: Endpoint, secret = ep.secret): Promise<void> {
  const before = rx.received.filter((r) => r.path === ep.path).length;
  const t = await s.call('test', 'POST', '/sandbox/webhooks/trigger', { key: ep.key, body: { type: 'payment_intent.paid' } });
  expect(t.status, t.text).toBe(200);
  const got = await rx.waitFor((all) => all.filter((r) => r.path === ep.path).length > before, 10_000, `a delivery to ${ep.path}`);
  const delivery = got.filter((r) => r.path === ep.path).at(-1)!;
  expect(verifyServiceSignature(secret, delivery.headers, delivery.body)).toBe(true);
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
  expect(new Webhook(secret, { format: 'raw' }).verify(delivery.body, headers)).toEqual(JSON.parse(delivery.body));
}

/** `cowrie …` run in-process on `databaseUrl` with `env` over the test defaults. */
export async function cowrie(databaseUrl: string, env: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { ...TEST_SERVER_ENV, COWRIE_DATABASE_URL: databaseUrl, ...env },
  });
  return { code, out, err };
}
