// Helpers for the hosted checkout tests: open a checkout page like a browser (keeping its anti-forgery
// cookie and token) and call its public actions.
import type { TestServer } from './harness.js';

export interface CheckoutSession {
  path: string;
  html: string;
  status: number;
  headers: Headers;
  token: string;
  cookie: string;
}

export interface PublicResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
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
  return { path, html, status: res.status, headers: res.headers, token, cookie };
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
  return publicCall(s, 'POST', `${session.path}${path}`, { body, headers: { 'x-checkout-token': session.token, cookie: session.cookie } });
}

export function pay(s: TestServer, session: CheckoutSession, body: Record<string, unknown>): Promise<PublicResponse> {
  return action(s, session, '/pay', body);
}

export async function checkoutStatus(s: TestServer, session: CheckoutSession): Promise<PublicResponse> {
  return publicCall(s, 'GET', `${session.path}/status`);
}

/** Polls the public status until `done` holds (or the time runs out). */
export async function waitForStatus(s: TestServer, session: CheckoutSession, done: (st: any) => boolean, timeoutMs = 10_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await checkoutStatus(s, session);
    if (r.status === 200 && done(r.json)) return r.json;
    if (Date.now() > until) throw new Error(`status never matched; last: ${r.text}`);
    await new Promise((res) => setTimeout(res, 150));
  }
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
