// What the authentication tests share: the scopes of each route, the checks of every authenticated
// response (errors are checked by expect.ts's expectError), and whether this machine can listen on an
// IPv4-mapped IPv6 address.
import { createServer } from 'node:net';
import { expect } from 'vitest';
import { type ApiResponse } from './harness.js';
import { randomBase62 } from '../../src/shared/ids.js';

export type Env = 'test' | 'live';

export interface Route {
  method: string;
  /** OpenAPI path, without the /v1 prefix. */
  path: string;
  /** Scopes the operation accepts (any one suffices); empty for any valid key. */
  scopes: string[];
  label: string;
}

export const VERIFY = 'GET /auth/verify';
export const DUMMY_ID = `xx_${randomBase62(24)}`;
export const ENVS: Env[] = ['test', 'live'];

/** The scopes each route accepts, as docs/api-reference.md lists them, with the link aliases in canonical form. */
export const SPEC_SCOPES: Record<string, string[]> = {
  'GET /auth/verify': [],
  'GET /rates': ['payments:read'],
  'POST /quotes': ['payments:read'],
  'POST /payment-intents': ['payments:write'],
  'GET /payment-intents': ['payments:read'],
  'GET /payment-intents/{id}': ['payments:read'],
  'POST /payment-intents/{id}/cancel': ['payments:write'],
  'POST /payment-intents/{id}/refund-request': ['refunds:write'],
  'POST /refunds': ['refunds:write'],
  'GET /refunds': ['refunds:read'],
  'GET /refunds/{id}': ['refunds:read'],
  'POST /payouts': ['payouts:write'],
  'GET /payouts': ['payouts:read'],
  'GET /payouts/{id}': ['payouts:read'],
  'POST /sandbox/payouts/{id}/fail': ['payouts:write'],
  'POST /payment-links': ['payment_links:write', 'checkout:write'],
  'GET /payment-links/{id}': ['payment_links:read', 'payments:read'],
  'GET /balances': ['balances:read'],
  'GET /settlements': ['settlements:read'],
  'GET /reports/payments': ['reports:read'],
  'GET /reports/settlements': ['reports:read'],
  'POST /webhook_endpoints': ['webhooks:write'],
  'GET /webhook_endpoints': ['webhooks:read'],
  'GET /webhook_endpoints/{id}': ['webhooks:read'],
  'DELETE /webhook_endpoints/{id}': ['webhooks:write'],
  'GET /webhook_events': ['webhooks:read'],
  'GET /webhook_events/{id}': ['webhooks:read'],
  'POST /webhook_events/{id}/resend': ['webhooks:write'],
  'GET /events': ['payments:read'],
  'POST /sandbox/webhooks/trigger': ['payments:write'],
  'POST /customers': ['customers:write'],
  'GET /customers': ['customers:read'],
  'GET /customers/{id}': ['customers:read'],
  'POST /sandbox/payment-intents/{id}/simulate': ['payments:write'],
};

/** Headers of an authenticated response (the key was recognised), success or 403 alike. */
export function expectAuthenticatedHeaders(r: ApiResponse, env: Env, limit: number, label: string): void {
  const where = `${label}: ${r.status} ${r.text.slice(0, 200)}`;
  expect(r.headers.get('service-environment'), where).toBe(env);
  expect(r.headers.get('service-ratelimit-limit'), where).toBe(String(limit));
  const remaining = r.headers.get('service-ratelimit-remaining');
  expect(remaining, where).toMatch(/^\d+$/);
  expect(Number(remaining), where).toBeLessThan(limit);
  expect(r.headers.get('service-ratelimit-reset'), where).toMatch(/^\d+$/);
  expect(r.headers.get('service-request-id'), where).toMatch(/^req_[0-9A-Za-z]+$/);
}

/** The request got past authentication and authorisation (whatever the route then answered). */
export function expectPassedAuth(r: ApiResponse, label: string): void {
  const where = `${label}: ${r.status} ${r.text.slice(0, 300)}`;
  expect([401, 403, 429], where).not.toContain(r.status);
  if (r.status === 400) expect(r.json?.error?.code, where).not.toBe('environment_mismatch');
}

export function unknownKey(env: Env, tag: 'sk' | 'rk' | 'pk' = 'sk'): string {
  return `cwk_${env}_${tag}_${randomBase62(40)}`;
}

export async function listen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(0, host, () => srv.close(() => resolve(true)));
  });
}
export const MAPPED_LISTEN_OK = await listen('::ffff:127.0.0.1');
