// (Named *.routes.ts because it takes HTTP types and src/http/forms.ts, which only route files may.)
// Anti-forgery for the checkout's actions (pay, PayPal approval, simulated deposit), through the app's CSRF
// plugin (src/http/forms.ts): the page's cookie holds a random nonce (SameSite=Strict, HttpOnly, scoped to
// the intent's checkout path), the secret is an HMAC of the intent id and that nonce under a per-database
// key, and the page's token, made from that secret, comes back in a request header. A cross-site page can
// neither read the token nor make the browser send the cookie with its request, a token works only for its
// intent and its browser, and the Origin header, when present, must be our own.
//
// A payment link's page has a visit token instead (bound to `link:<id>`, in a SameSite=Lax cookie on
// /pay/<id> and a hidden form field): more than a CSRF token, its nonce names the visit, which mints one
// intent, so a reload must show the same one.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkForm, FormRefused, formToken } from '../../../http/forms.js';
import { AppError } from '../../../shared/errors.js';

export const CSRF_COOKIE = 'cowrie_checkout';
export const CSRF_HEADER = 'x-checkout-token';
export const VISIT_COOKIE = 'cowrie_link_visit';

export class CheckoutTokens {
  constructor(
    private readonly app: FastifyInstance,
    private readonly key: Buffer,
  ) {}

  private mac(subject: string, nonce: string): string {
    return createHmac('sha256', this.key).update(`${subject}.${nonce}`).digest('base64url');
  }

  private mint(subject: string): string {
    const nonce = randomBytes(18).toString('base64url');
    return `${nonce}.${this.mac(subject, nonce)}`;
  }

  private valid(subject: string, token: string | undefined): boolean {
    if (!token) return false;
    const [nonce, mac, extra] = token.split('.');
    if (!nonce || !mac || extra !== undefined) return false;
    const want = Buffer.from(this.mac(subject, nonce));
    const got = Buffer.from(mac);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /** The CSRF secret of an intent's page in one browser (the nonce of its cookie). */
  private secret(intentId: string, nonce: string): string {
    return this.mac(`checkout:${intentId}`, nonce);
  }

  /** The page's token, from the nonce already in the customer's cookie (other tabs keep working), or a new one. */
  forPage(request: FastifyRequest, reply: FastifyReply, intentId: string, secureCookie: boolean): string {
    const existing = request.cookies[CSRF_COOKIE];
    const nonce = existing && /^[A-Za-z0-9_-]{24}$/.test(existing) ? existing : randomBytes(18).toString('base64url');
    reply.setCookie(CSRF_COOKIE, nonce, {
      path: `/checkout/${intentId}`,
      maxAge: 172_800,
      httpOnly: true,
      sameSite: 'strict',
      secure: secureCookie,
    });
    return formToken(request, reply, this.secret(intentId, nonce));
  }

  /**
   * A visit of a link's page: the token in the customer's cookie (a reload or another tab is the same
   * visit), or a new one. Lax, so that coming back to the link from a message keeps the visit.
   */
  forVisit(request: FastifyRequest, reply: FastifyReply, linkId: string, secureCookie: boolean): string {
    const subject = `link:${linkId}`;
    const existing = request.cookies[VISIT_COOKIE];
    const token = this.valid(subject, existing) ? existing! : this.mint(subject);
    reply.setCookie(VISIT_COOKIE, token, { path: `/pay/${linkId}`, maxAge: 86_400, httpOnly: true, sameSite: 'lax', secure: secureCookie });
    return token;
  }

  /** The visit a link's form was sent from (its token in the form and the cookie), or 403. */
  checkVisit(request: FastifyRequest, linkId: string, sent: string | undefined): string {
    // A form sent from a page with `Referrer-Policy: no-referrer` carries `Origin: null`: the visit's token,
    // in the form and in a SameSite cookie no other site's request carries, is what tells it is ours.
    if (request.headers.origin !== 'null') sameOrigin(request);
    const fromCookie = request.cookies[VISIT_COOKIE];
    if (!sent || sent !== fromCookie || !this.valid(`link:${linkId}`, sent)) {
      throw new AppError('checkout_token_invalid', 'This payment page has gone stale. Reload the page and try again.');
    }
    return sent.split('.')[0]!;
  }

  /** Refuses an action without a token of this intent's page in the header (and its cookie), or from another origin. */
  async check(request: FastifyRequest, intentId: string): Promise<void> {
    sameOrigin(request);
    const nonce = request.cookies[CSRF_COOKIE];
    try {
      await checkForm(this.app, request, nonce ? this.secret(intentId, nonce) : undefined);
    } catch (err) {
      if (!(err instanceof FormRefused)) throw err;
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
