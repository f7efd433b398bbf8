// What the console's HTTP tests share: a browser-like client of the console's pages and forms (the
// session cookie, the CSRF token read from a page, the client address a trusted proxy would pass on), and
// a signed-in user made through the same service the operator's `cowrie users create` uses.
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

export interface ConsoleResponse {
  status: number;
  html: string;
  location: string | null;
  setCookie: string | null;
  type: string | null;
  disposition: string | null;
}

export interface ConsoleRequest {
  cookie?: string;
  /** Form fields, urlencoded; repeated names (checkboxes) as pairs. */
  form?: Record<string, string> | Array<[string, string]>;
  /** X-Forwarded-For (believed only by a server that trusts 127.0.0.1 as a proxy). */
  ip?: string;
  origin?: string;
  /** Sent as through a TLS-terminating proxy (X-Forwarded-Proto: https; believed only from a trusted proxy). */
  https?: boolean;
}

/** The CSRF token of a console page's forms. */
export const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export function consoleHttp(server: () => TestServer) {
  async function request(method: 'GET' | 'POST', path: string, o: ConsoleRequest = {}): Promise<ConsoleResponse> {
    const headers: Record<string, string> = { 'x-forwarded-for': o.ip ?? '198.51.100.1' };
    if (o.cookie) headers['cookie'] = o.cookie;
    if (o.origin) headers['origin'] = o.origin;
    if (o.https) headers['x-forwarded-proto'] = 'https';
    if (o.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(server().url('test', path), {
      method,
      headers,
      body: o.form ? new URLSearchParams(o.form).toString() : undefined,
      redirect: 'manual',
    });
    return {
      status: res.status,
      html: await res.text(),
      location: res.headers.get('location'),
      setCookie: res.headers.get('set-cookie'),
      type: res.headers.get('content-type'),
      disposition: res.headers.get('content-disposition'),
    };
  }

  /** Signs in; answers the response and the session cookie ('' when refused). */
  async function login(email: string, password: string, ip?: string, code?: string) {
    const r = await request('POST', '/console/login', { form: { email, password, ...(code ? { code } : {}) }, ip });
    return { ...r, cookie: r.setCookie?.split(';')[0] ?? '' };
  }

  /** A new console user of a merchant, signed in: answers its session cookie and password. */
  async function signedInUser(merchantId: string, email: string, role: 'owner' | 'developer' | 'viewer') {
    const u = await server().running.services.console.createUser(merchantId, email, role);
    const r = await login(u.user.email, u.password);
    expect(r.status).toBe(303);
    return { cookie: r.cookie, password: u.password, user: u.user };
  }

  return { request, login, signedInUser, csrfOf };
}
