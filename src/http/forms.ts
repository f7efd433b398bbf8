// Cookies, form bodies and CSRF tokens of the HTML areas (the merchant console, the checkout, and any other
// signed-in area such as the payer's), through Fastify's own plugins registered once for the whole app:
// @fastify/cookie (request.cookies, reply.setCookie), @fastify/formbody (urlencoded forms) and
// @fastify/csrf-protection (tokens from @fastify/csrf: a random salt and an HMAC of it under a secret).
//
// The CSRF secret is the area's, kept server-side (the plugin's session mode): before a check or a new
// token, the area puts its secret on `request.session._csrf` (the console: its server-side session's secret;
// the checkout: one derived from the intent and the page's cookie). A token is therefore valid only with
// the session (or checkout page) it was made for. A check that fails throws a FormRefused error (403), which
// the area answers in its own words; nothing has changed by then.
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The area's CSRF secret for this request, set by the area before a token is made or checked. */
    session?: { _csrf?: string };
  }
}

/** The largest urlencoded form any page sends (a route may set a smaller `bodyLimit`). */
export const FORM_BODY_LIMIT = 16_384;

/** A form or token refused: no valid CSRF token for the session, or an Origin not our own. Nothing changed. */
export class FormRefused extends Error {
  readonly statusCode = 403;
  constructor(readonly reason: 'token' | 'origin') {
    super(reason === 'token' ? 'The form has no valid token for this session.' : 'The form came from another site.');
    this.name = 'FormRefused';
  }
}

/** Cookies and CSRF tokens, for the whole app (the API's routes read neither). */
export async function registerForms(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie);
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/session',
    // A form sends `_csrf`; the checkout's script sends its page token in a header.
    getToken: (request) => {
      const field = (request.body as Record<string, unknown> | undefined)?.['_csrf'];
      if (typeof field === 'string') return field;
      const header = request.headers['x-checkout-token'] ?? request.headers['x-csrf-token'];
      return Array.isArray(header) ? header[0] : header;
    },
  });
}

/**
 * Urlencoded form bodies, for the routes of the plugin that calls it only (an HTML area): the API keeps
 * answering 415 to a form body.
 */
export async function acceptForms(app: FastifyInstance): Promise<void> {
  await app.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT });
}

/** A form's fields as text: a repeated field (checkboxes) is its values joined by commas. */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (body === null || typeof body !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.map(String).join(',');
  }
  return out;
}

/** A new token for the forms of a page, made from the area's secret (`secret`). */
export function formToken(request: FastifyRequest, reply: FastifyReply, secret: string): string {
  request.session = { _csrf: secret };
  return reply.generateCsrf();
}

/**
 * Checks that the token in a state-changing request's form (or header) was made from the area's `secret`;
 * throws FormRefused otherwise. (The area checks the Origin header too: see sameOrigin.)
 */
export async function checkForm(app: FastifyInstance, request: FastifyRequest, secret: string | undefined): Promise<void> {
  if (!secret) throw new FormRefused('token');
  request.session = { _csrf: secret };
  // The plugin's check answers a refusal through reply.send; here the refusal is thrown to the caller
  // instead, so each area decides its answer (a page, or the checkout's JSON error) and its order of checks.
  await new Promise<void>((resolve, reject) =>
    app.csrfProtection(request, { send: () => reject(new FormRefused('token')) } as unknown as FastifyReply, () => resolve()),
  );
}

/** Whether an Origin header, when sent, names the request's own scheme and host. */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === `${request.protocol}://${request.headers.host ?? ''}`;
}

/** The Secure flag follows the request's scheme (as a trusted proxy tells it). */
const secure = (request: FastifyRequest) => request.protocol === 'https';

/** Sets a signed-in area's session cookie: HttpOnly, SameSite=Lax, Secure over https, scoped to the area's path. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, name: string, token: string, path: string): void {
  reply.setCookie(name, token, { path, httpOnly: true, sameSite: 'lax', secure: secure(request) });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, name: string, path: string): void {
  reply.setCookie(name, '', { path, httpOnly: true, sameSite: 'lax', secure: secure(request), maxAge: 0 });
}

/** The Content-Security-Policy of a page without any script: our own stylesheet and images only. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Sends an HTML page of a signed-in area with its security headers; never cached. */
export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return (
    reply
      .code(status)
      .header('content-security-policy', PAGE_CSP)
      .header('x-frame-options', 'DENY')
      // same-origin, not no-referrer: with no-referrer the browser sends `Origin: null` on our own forms.
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(html)
  );
}
