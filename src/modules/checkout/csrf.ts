// Anti-forgery for the checkout's actions (pay, PayPal approval, simulated deposit): a per-page token bound
// to the intent (random nonce + HMAC of intent id and nonce under a per-database key), sent back both as a
// SameSite=Strict, HttpOnly cookie scoped to the intent's checkout path and in a request header. A
// cross-site page can neither read the token nor make the browser send the cookie with its request, and
// the Origin header, when present, must be our own.
//
// A payment link's page works the same way with a visit token (bound to `link:<id>`, in a SameSite=Lax
// cookie on /pay/<id> and a hidden form field): its nonce names the visit, which mints one intent.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';

export const CSRF_COOKIE = 'cowrie_checkout';
export const CSRF_HEADER = 'x-checkout-token';
export const VISIT_COOKIE = 'cowrie_link_visit';

export class CheckoutTokens {
  constructor(private readonly key: Buffer) {}

  private mac(intentId: string, nonce: string): string {
    return createHmac('sha256', this.key).update(`${intentId}.${nonce}`).digest('base64url');
  }

  mint(intentId: string): string {
    const nonce = randomBytes(18).toString('base64url');
    return `${nonce}.${this.mac(intentId, nonce)}`;
  }

  valid(intentId: string, token: string | undefined): boolean {
    if (!token) return false;
    const [nonce, mac, extra] = token.split('.');
    if (!nonce || !mac || extra !== undefined) return false;
    const want = Buffer.from(this.mac(intentId, nonce));
    const got = Buffer.from(mac);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /** The page's token: the one already in the customer's cookie (other tabs keep working), or a new one. */
  forPage(request: FastifyRequest, reply: FastifyReply, intentId: string, secureCookie: boolean): string {
    const existing = cookie(request, CSRF_COOKIE);
    const token = this.valid(intentId, existing) ? existing! : this.mint(intentId);
    reply.header(
      'set-cookie',
      `${CSRF_COOKIE}=${token}; Path=/checkout/${intentId}; Max-Age=172800; HttpOnly; SameSite=Strict${secureCookie ? '; Secure' : ''}`,
    );
    return token;
  }

  /**
   * A visit of a link's page: the token in the customer's cookie (a reload or another tab is the same
   * visit), or a new one. Lax, so that coming back to the link from a message keeps the visit.
   */
  forVisit(request: FastifyRequest, reply: FastifyReply, linkId: string, secureCookie: boolean): string {
    const subject = `link:${linkId}`;
    const existing = cookie(request, VISIT_COOKIE);
    const token = this.valid(subject, existing) ? existing! : this.mint(subject);
    reply.header(
      'set-cookie',
      `${VISIT_COOKIE}=${token}; Path=/pay/${linkId}; Max-Age=86400; HttpOnly; SameSite=Lax${secureCookie ? '; Secure' : ''}`,
    );
    return token;
  }

  /** The visit a link's form was sent from (its token in the form and the cookie), or 403. */
  checkVisit(request: FastifyRequest, linkId: string, sent: string | undefined): string {
    // A form sent from a page with `Referrer-Policy: no-referrer` carries `Origin: null`: the visit's token,
    // in the form and in a SameSite cookie no other site's request carries, is what tells it is ours.
    if (request.headers.origin !== 'null') sameOrigin(request);
    const fromCookie = cookie(request, VISIT_COOKIE);
    if (!sent || sent !== fromCookie || !this.valid(`link:${linkId}`, sent)) {
      throw new AppError('checkout_token_invalid', 'This payment page has gone stale. Reload the page and try again.');
    }
    return sent.split('.')[0]!;
  }

  /** Refuses an action without the page's token in both the header and the cookie, or from another origin. */
  check(request: FastifyRequest, intentId: string): void {
    sameOrigin(request);
    const header = request.headers[CSRF_HEADER];
    const sent = Array.isArray(header) ? header[0] : header;
    const fromCookie = cookie(request, CSRF_COOKIE);
    if (!sent || sent !== fromCookie || !this.valid(intentId, sent)) {
      throw new AppError('checkout_token_invalid', 'This checkout page has gone stale. Reload the page and try again.');
    }
  }
}

/** An Origin header, when sent, must be the page's own. */
function sameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (host === null || host !== request.headers.host) {
    throw new AppError('checkout_token_invalid', 'This request did not come from the checkout page. Reload the page and try again.');
  }
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
