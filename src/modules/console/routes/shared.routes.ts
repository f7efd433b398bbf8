// What every console route uses: the services the console's routes call (ConsoleRouteDeps), the form
// parser and the stylesheet registered once for all of them, and the kit (ConsoleKit): the page sender with
// its security headers, the session check (`signedIn`), the session-and-CSRF check of a form (`acting`),
// the page context and the environment a page shows. Named *.routes.ts because it registers routes and
// takes HTTP types (src/http/), which only route files may.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WindowLimiter } from '../../../http/rate-limit.js';
import { serveAssets } from '../../../http/static-assets.js';
import type { MerchantScope } from '../../../shared/scope.js';
import type { CustomerService } from '../../customers/index.js';
import { findMerchant, verificationOf } from '../../merchants/index.js';
import type { LinkService } from '../../payment-links/index.js';
import type { RefundDecisions, RefundService } from '../../refunds/index.js';
import type { PayoutService } from '../../payouts/index.js';
import type { Config } from '../../../config.js';
import type { RateProvider } from '../../rates/index.js';
import type { ReportService } from '../../reports/index.js';
import type { SandboxService } from '../../sandbox/index.js';
import type { IntentService } from '../../payment-intents/index.js';
import type { Db } from '../../../db/transaction.js';
import type { MerchantClocks } from '../../../shared/clock.js';
import type { WebhookService } from '../../webhooks/index.js';
import type { ConsoleAuth, ConsoleSession } from '../console-auth.service.js';
import { liveClosedPage } from '../pages/home-page.js';
import { messagePage, type Env, type PageContext } from '../pages/layout.js';

/** The services the console's routes call, each the service itself. */
export interface ConsoleRouteDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
  /** The sandbox tools: the payment driver and the clock. */
  sandbox: SandboxService;
  /** The console's users, sessions and audit log. */
  console: ConsoleAuth;
  /** Sign-in attempts per client address (LOGINS_PER_MINUTE a minute), checked before any password. */
  consoleLogins: WindowLimiter;
  customers: CustomerService;
  links: LinkService;
  refunds: RefundService;
  /** Payouts: the owner's requests (with the PIN) and the sandbox test driver's failures. */
  payouts: PayoutService;
  /** An owner's approve and reject of requested live refunds. */
  refundDecisions: Pick<RefundDecisions, 'approve' | 'reject'>;
  reports: ReportService;
  webhooks: WebhookService;
  /** The reference prices the home page shows, and where they come from. */
  rates: RateProvider;
  config: Pick<Config, 'rates' | 'mpesa' | 'card' | 'paypal' | 'chains'>;
}

/** Every console route: reachable without an API key (the session is checked instead), not in the API reference. */
export const CONSOLE_ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };

export const SESSION_COOKIE = 'cowrie_console';

export type Form = Record<string, string>;

/** qrcode, loaded on the first page that draws a code (payment links, TOTP setup). */
export const qrCode = async () => (await import('qrcode')).default;

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function sameToken(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Registers the console's stylesheet and its form parser; answers the kit its routes take. */
export function consoleKit(app: FastifyInstance, deps: ConsoleRouteDeps): ConsoleKit {
  const files = serveAssets(app, 'console', '/console/assets', ['console.css']);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    // A repeated field (the scope checkboxes) arrives as its values joined by commas.
    const params = new URLSearchParams(body as string);
    done(null, Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k).join(',')])));
  });
  return new ConsoleKit(deps, files['console.css']!);
}

export class ConsoleKit {
  constructor(
    readonly deps: ConsoleRouteDeps,
    /** The stylesheet's address. */
    readonly style: string,
  ) {}

  /** Sends a page with the console's security headers; never cached. */
  send(reply: FastifyReply, status: number, html: string) {
    return (
      reply
        .code(status)
        .header(
          'content-security-policy',
          "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        )
        .header('x-frame-options', 'DENY')
        // same-origin, not no-referrer: with no-referrer the browser sends `Origin: null` on our own forms.
        .header('referrer-policy', 'same-origin')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(html)
    );
  }

  /** What the page frame shows: the merchant, whether live is open and (`withEnv`) the environment asked for. */
  async context(request: FastifyRequest, session: ConsoleSession | null, path: string, withEnv = false): Promise<PageContext> {
    const style = this.style;
    if (!session) return { style, session, path };
    const merchant = await findMerchant(this.deps.db, session.user.merchantId);
    const liveOpen = merchant?.kyb_status === 'verified';
    const asked = (request.query as { env?: string } | undefined)?.env;
    const env: Env = asked === 'live' || asked === 'test' ? asked : liveOpen ? 'live' : 'test';
    return { style, session, path, merchantName: merchant?.name, liveOpen, ...(withEnv ? { env } : {}) };
  }

  /** The signed-in session, or null after sending the visitor to the sign-in page. */
  async signedIn(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> {
    const session = await this.deps.console.session(cookieOf(request, SESSION_COOKIE));
    if (!session) {
      await reply.code(303).header('location', '/console/login').header('cache-control', 'no-store').send();
      return null;
    }
    return session;
  }

  /**
   * A state-changing form: the session, its CSRF token in the form, an Origin (when sent) of our own.
   * Answers null after answering 403 (nothing changed) or sending the visitor to sign in.
   */
  async acting(request: FastifyRequest, reply: FastifyReply): Promise<{ session: ConsoleSession; form: Form } | null> {
    const session = await this.signedIn(request, reply);
    if (!session) return null;
    const form = (request.body ?? {}) as Form;
    const origin = request.headers.origin;
    const ownOrigin = `${request.protocol}://${request.headers.host ?? ''}`;
    if (
      !sameToken(session.csrf, typeof form['_csrf'] === 'string' ? form['_csrf'] : undefined) ||
      (origin !== undefined && origin !== ownOrigin)
    ) {
      await this.send(
        reply,
        403,
        messagePage(
          await this.context(request, session, ''),
          'Form expired',
          'This form has expired or did not come from the console; nothing was changed. Reload the page and try again.',
        ),
      );
      return null;
    }
    return { session, form };
  }

  /** Records what the session's user did in the audit log, with the request's client address. */
  audit(session: ConsoleSession, request: FastifyRequest, action: string, target: string | null, detail: Record<string, unknown> | null) {
    const user = session.user;
    return this.deps.console.audit(user.merchantId, user, user.email, action, target, detail, request.ip);
  }

  /** Answers 403: the session's role may not do this. */
  async forbidden(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession) {
    return this.send(
      reply,
      403,
      messagePage(await this.context(request, session, ''), 'Not allowed', `Your role (${session.user.role}) cannot do this.`),
    );
  }

  /** The page's context and the scope of the environment it shows; null (after answering) when live is not open yet. */
  async envScope(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConsoleSession,
    path: string,
  ): Promise<{ ctx: PageContext; scope: MerchantScope } | null> {
    const ctx = await this.context(request, session, path, true);
    if (ctx.env === 'live' && !ctx.liveOpen) {
      const v = await verificationOf(this.deps.db, session.user.merchantId);
      await this.send(reply, 200, liveClosedPage(ctx, v.status, v.reason));
      return null;
    }
    return { ctx, scope: { merchantId: session.user.merchantId, environment: ctx.env! } };
  }

  /**
   * For a form acting on one environment's records: the page context and that environment's scope, or null
   * after answering 403 when the live side is not open yet.
   */
  async actingScope(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConsoleSession,
    path: string,
  ): Promise<{ ctx: PageContext; scope: MerchantScope } | null> {
    const ctx = await this.context(request, session, path, true);
    if (ctx.env === 'live' && !ctx.liveOpen) {
      await this.forbidden(request, reply, session);
      return null;
    }
    return { ctx, scope: { merchantId: session.user.merchantId, environment: ctx.env! } };
  }
}
