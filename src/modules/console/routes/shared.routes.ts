// What every console route uses: the services the console's routes call (ConsoleRouteDeps), the stylesheet
// registered once for all of them (cookies, forms and CSRF tokens are src/http/forms.ts's), and the kit (ConsoleKit): the page sender with
// its security headers, the session check (`signedIn`), the session-and-CSRF check of a form (`acting`),
// the page context and the environment a page shows. Named *.routes.ts because it registers routes and
// takes HTTP types (src/http/), which only route files may.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkForm, FormRefused, formOf, formToken, sameOrigin, sendPage } from '../../../http/forms.js';
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
  config: Pick<Config, 'rates' | 'mpesa' | 'card' | 'paypal' | 'chains' | 'payerAccounts'>;
}

/** Every console route: reachable without an API key (the session is checked instead), not in the API reference. */
export const CONSOLE_ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };

export const SESSION_COOKIE = 'cowrie_console';

export type Form = Record<string, string>;

/** qrcode, loaded on the first page that draws a code (payment links, TOTP setup). */
export const qrCode = async () => (await import('qrcode')).default;

/** Registers the console's stylesheet and its answer to a refused form; answers the kit its routes take. */
export function consoleKit(app: FastifyInstance, deps: ConsoleRouteDeps): ConsoleKit {
  const files = serveAssets(app, 'console', '/console/assets', ['console.css']);
  const kit = new ConsoleKit(app, deps, files['console.css']!);
  return kit;
}

export class ConsoleKit {
  constructor(
    private readonly app: FastifyInstance,
    readonly deps: ConsoleRouteDeps,
    /** The stylesheet's address. */
    readonly style: string,
  ) {}

  /** Sends a page with the console's security headers; never cached. */
  send(reply: FastifyReply, status: number, html: string) {
    return sendPage(reply, status, html);
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

  /**
   * The signed-in session, or null after sending the visitor to the sign-in page. Its `csrf` is a new token
   * for the page's forms, made from the session's secret (kept server-side).
   */
  async signedIn(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> {
    const session = await this.deps.console.session(request.cookies[SESSION_COOKIE]);
    if (!session) {
      await reply.code(303).header('location', '/console/login').header('cache-control', 'no-store').send();
      return null;
    }
    return { ...session, csrf: formToken(request, reply, session.csrf) };
  }

  /**
   * A state-changing form: the session, a CSRF token made from its secret in the form, an Origin (when
   * sent) of our own. Answers null after answering 403 (nothing changed) or sending the visitor to sign in.
   */
  async acting(request: FastifyRequest, reply: FastifyReply): Promise<{ session: ConsoleSession; form: Form } | null> {
    const session = await this.deps.console.session(request.cookies[SESSION_COOKIE]);
    if (!session) {
      await reply.code(303).header('location', '/console/login').header('cache-control', 'no-store').send();
      return null;
    }
    try {
      if (!sameOrigin(request)) throw new FormRefused('origin');
      await checkForm(this.app, request, session.csrf);
    } catch (err) {
      if (!(err instanceof FormRefused)) throw err;
      const page = { ...session, csrf: formToken(request, reply, session.csrf) };
      await this.send(
        reply,
        403,
        messagePage(
          await this.context(request, page, ''),
          'Form expired',
          'This form has expired or did not come from the console; nothing was changed. Reload the page and try again.',
        ),
      );
      return null;
    }
    return { session: { ...session, csrf: formToken(request, reply, session.csrf) }, form: formOf(request) };
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
