// Helpers for the hosted checkout tests: open a checkout page like a browser (keeping its anti-forgery
// cookie and token) and call its public actions.
import { expect } from 'vitest';
import type { TestServer } from './harness.js';
import { waitFor } from './wait.js';

export interface CheckoutSession {
  path: string;
  html: string;
  status: number;
  headers: Headers;
  token: string;
  cookie: string;
  /** The listener the page came from (its actions go there too). */
  env?: 'test' | 'live';
}

export interface PublicResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A sandbox payment intent of 1500.00 KES (with `body` over it), created with the merchant's test secret key or `key`. */
export async function createIntent(s: TestServer, body: Record<string, unknown> = {}, key?: string): Promise<any> {
  const r = await s.call('test', 'POST', '/payment-intents', {
    key: key ?? s.merchant.keys.test_secret,
    body: { amount: '1500.00', currency: 'KES', ...body },
  });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

/** A sandbox payment intent as the API shows it. */
export async function sandboxIntent(s: TestServer, id: string): Promise<any> {
  const r = await s.sandbox('GET', `/payment-intents/${id}`);
  expect(r.status, r.text).toBe(200);
  return r.json;
}

/** The payment attempts recorded for an intent, oldest first, read from the database. */
export function attemptsOf(s: TestServer, intentId: string) {
  return s.running.database.db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('payment_intent_id', '=', intentId)
    .orderBy('created_at')
    .execute();
}

/** The path part of an absolute URL the API gave (checkout_url, link url): the harness listens elsewhere. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

export async function openCheckout(s: TestServer, checkoutUrl: string, env: 'test' | 'live' = 'test'): Promise<CheckoutSession> {
  const path = pathOf(checkoutUrl);
  const res = await fetch(s.url(env, path));
  const html = await res.text();
  const token = /<meta name="checkout-token" content="([^"]+)">/.exec(html)?.[1] ?? '';
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  return { path, html, status: res.status, headers: res.headers, token, cookie, env };
}

export async function publicCall(
  s: TestServer,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; env?: 'test' | 'live' } = {},
): Promise<PublicResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(s.url(opts.env ?? 'test', path), {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A checkout action as the page's script sends it: token header plus the cookie. */
export function action(s: TestServer, session: CheckoutSession, path: string, body: unknown): Promise<PublicResponse> {
  return publicCall(s, 'POST', `${session.path}${path}`, {
    body,
    headers: { 'x-checkout-token': session.token, cookie: session.cookie },
    env: session.env ?? 'test',
  });
}

export function pay(s: TestServer, session: CheckoutSession, body: Record<string, unknown>): Promise<PublicResponse> {
  return action(s, session, '/pay', body);
}

export async function checkoutStatus(s: TestServer, session: CheckoutSession): Promise<PublicResponse> {
  return publicCall(s, 'GET', `${session.path}/status`, { env: session.env ?? 'test' });
}

/** Polls the public status until `done` holds (or the time runs out). */
export async function waitForStatus(s: TestServer, session: CheckoutSession, done: (st: any) => boolean, timeoutMs = 10_000): Promise<any> {
  const r = await waitFor(
    `the checkout status of ${session.path}`,
    async () => {
      const { status, json } = await checkoutStatus(s, session);
      return { status, json };
    },
    (x) => x.status === 200 && done(x.json),
    { timeoutMs, intervalMs: 150 },
  );
  return r.json;
}

export async function eventTypes(s: TestServer, intentId: string): Promise<string[]> {
  const rows = await s.running.database.db
    .selectFrom('events')
    .select(['type', 'seq'])
    .where('payment_intent_id', '=', intentId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.type);
}

/** One visit of a payment link's page: the page, and the visit token of its form and cookie. */
export interface LinkVisit extends PublicResponse {
  path: string;
  token: string;
  cookie: string;
}

/** Opens a link's url like a browser (GET): mints nothing; keeps the visit's token and cookie. */
export async function visitLink(
  s: TestServer,
  linkUrl: string,
  opts: { cookie?: string; env?: 'test' | 'live'; headers?: Record<string, string> } = {},
): Promise<LinkVisit> {
  const path = pathOf(linkUrl);
  const headers = { ...(opts.cookie ? { cookie: opts.cookie } : {}), ...opts.headers };
  const res = await fetch(s.url(opts.env ?? 'test', path), { redirect: 'manual', headers });
  const text = await res.text();
  const token = /<input type="hidden" name="visit" value="([^"]+)">/.exec(text)?.[1] ?? '';
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { path: new URL(linkUrl).pathname, status: res.status, headers: res.headers, text, json: undefined, token, cookie };
}

/** Sends a visit's form as the browser does (urlencoded, with its cookie); answers without following. */
export async function sendLinkForm(
  s: TestServer,
  visit: LinkVisit,
  fields: Record<string, string> = {},
  opts: { token?: string; cookie?: string; headers?: Record<string, string> } = {},
): Promise<PublicResponse> {
  const body = new URLSearchParams({ visit: opts.token ?? visit.token, ...fields }).toString();
  const res = await fetch(s.url('test', visit.path), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: opts.cookie ?? visit.cookie, ...opts.headers },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text(), json: undefined };
}

let customers = 0;

/**
 * A new visit that goes on to pay: answers the intent id it minted (the 303 to its checkout). Each is a
 * new customer, with an address of its own (X-Forwarded-For, read when the server trusts the test's proxy
 * address, COWRIE_TRUST_PROXY=127.0.0.1), so that a file minting many is not held to one address's budget.
 */
export async function mintFromLink(s: TestServer, linkUrl: string, amount?: string): Promise<string> {
  customers++;
  const headers = { 'x-forwarded-for': `198.18.${(customers >> 8) & 255}.${customers & 255}` };
  const visit = await visitLink(s, linkUrl, { headers });
  if (visit.status !== 200) throw new Error(`link page answered ${visit.status}: ${visit.text.slice(0, 200)}`);
  const r = await sendLinkForm(s, visit, amount === undefined ? {} : { amount }, { headers });
  const location = r.headers.get('location') ?? '';
  if (r.status !== 303 || !/^\/checkout\/pi_[0-9A-Za-z]{24}$/.test(location)) {
    throw new Error(`link form answered ${r.status} ${location}: ${r.text.slice(0, 200)}`);
  }
  return location.split('/').pop()!;
}
