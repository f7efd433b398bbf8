// The wallet's HTTP: pages at /wallet on each origin (payers of that origin's environment), plain forms
// posted back with a CSRF token, then a redirect. Before sign-in (sign-up and sign-in forms) the token is a
// random value in a SameSite=Strict cookie and in the form (double submit); once signed in it is the
// session's own. The session is a random token in an HttpOnly SameSite=Lax cookie of its own name
// (cowrie_wallet, Path=/ so that the checkout sees it too), Secure over https; sign-in attempts are limited
// per client address as the console's are. A form without the right token answers 403 and changes nothing.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WindowLimiter } from '../../http/rate-limit.js';
import { serveAssets } from '../../http/static-assets.js';
import type { Environment } from '../../shared/scope.js';
import { ConsoleError } from '../console/index.js';
import { WALLET_COOKIE, type PayerAuth, type PayerSession } from './payer-auth.service.js';
import type { PayerAccounts } from './payers.service.js';
import { signInPage, signUpPage, walletHomePage, walletPage, esc, type WalletContext } from './wallet-pages.js';

export interface WalletRouteDeps {
  payerAuth: PayerAuth;
  payerAccounts: PayerAccounts;
  walletLogins: WindowLimiter;
  /** Live payer accounts on (COWRIE_PAYER_ACCOUNTS); the sandbox wallet is always there. */
  liveOn: boolean;
}

const ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };
const FORM_COOKIE = 'cowrie_wallet_form';
type Form = Record<string, string>;

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

function same(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || a.length === 0) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Where to go after signing in: only back to a checkout of this origin. */
function returnOf(value: unknown): string | null {
  return typeof value === 'string' && /^\/checkout\/pi_[0-9A-Za-z]{1,64}$/.test(value) ? value : null;
}

const field = (form: Form, name: string) => (typeof form[name] === 'string' ? form[name] : '');

class WalletKit {
  constructor(
    readonly deps: WalletRouteDeps,
    readonly style: string,
  ) {}

  secure(request: FastifyRequest): string {
    return request.protocol === 'https' ? '; Secure' : '';
  }

  env(request: FastifyRequest): Environment {
    return request.environment;
  }

  ctx(request: FastifyRequest, session: PayerSession | null): WalletContext {
    return { style: this.style, session, sandbox: request.environment === 'test' };
  }

  send(reply: FastifyReply, status: number, html: string) {
    return reply
      .code(status)
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      )
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  session(request: FastifyRequest): Promise<PayerSession | null> {
    return this.deps.payerAuth.session(request.environment, cookieOf(request, WALLET_COOKIE));
  }

  /** The pre-session form token: the one in the visitor's cookie, or a new one set now. */
  formToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = cookieOf(request, FORM_COOKIE);
    const token = existing && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : randomBytes(24).toString('base64url');
    reply.header('set-cookie', `${FORM_COOKIE}=${token}; Path=/wallet; HttpOnly; SameSite=Strict${this.secure(request)}`);
    return token;
  }

  /** The form came from our own page: its token matches (`expected`), and its Origin, when sent, is ours. */
  ownForm(request: FastifyRequest, form: Form, expected: string | undefined): boolean {
    const origin = request.headers.origin;
    return same(expected, field(form, '_csrf')) && (origin === undefined || origin === `${request.protocol}://${request.headers.host ?? ''}`);
  }

  async forbidden(request: FastifyRequest, reply: FastifyReply, session: PayerSession | null) {
    return this.send(
      reply,
      403,
      walletPage(
        this.ctx(request, session),
        'Form expired',
        '<div class="card"><p role="alert">This form has expired or did not come from the wallet; nothing was changed. Reload the page and try again.</p><p><a href="/wallet">Back to your wallet</a></p></div>',
      ),
    );
  }

  signedInAt(reply: FastifyReply, request: FastifyRequest, token: string, ret: string | null) {
    return reply
      .code(303)
      .header('set-cookie', `${WALLET_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax${this.secure(request)}`)
      .header('location', ret ?? '/wallet')
      .header('cache-control', 'no-store')
      .send();
  }
}

async function home(kit: WalletKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.session(request);
  if (!session) return reply.code(303).header('location', '/wallet/login').header('cache-control', 'no-store').send();
  const wallet = await kit.deps.payerAccounts.wallet(session.payer.id, session.payer.environment);
  return kit.send(reply, 200, walletHomePage({ ...kit.ctx(request, session), session }, wallet));
}

async function showForm(kit: WalletKit, request: FastifyRequest, reply: FastifyReply, which: 'signup' | 'login') {
  const ret = returnOf((request.query as Record<string, unknown>)['return']);
  if (await kit.session(request)) return reply.code(303).header('location', ret ?? '/wallet').send();
  const csrf = kit.formToken(request, reply);
  const ctx = kit.ctx(request, null);
  return kit.send(reply, 200, which === 'signup' ? signUpPage(ctx, { csrf, ret }) : signInPage(ctx, { csrf, ret }));
}

async function submitForm(kit: WalletKit, request: FastifyRequest, reply: FastifyReply, which: 'signup' | 'login') {
  const form = (request.body ?? {}) as Form;
  if (!kit.ownForm(request, form, cookieOf(request, FORM_COOKIE))) return kit.forbidden(request, reply, null);
  const ret = returnOf(form['return']);
  const email = field(form, 'email');
  const csrf = field(form, '_csrf');
  const refused = (status: number, error: string) => {
    const ctx = kit.ctx(request, null);
    return kit.send(reply, status, which === 'signup' ? signUpPage(ctx, { csrf, ret, error, email }) : signInPage(ctx, { csrf, ret, error, email }));
  };
  const rate = await kit.deps.walletLogins.consume(request.ip);
  if (!rate.allowed) {
    reply.header('retry-after', '60');
    return refused(429, `Too many attempts from your address; try again in ${rate.resetSeconds} seconds.`);
  }
  try {
    const input = { environment: kit.env(request), email, password: field(form, 'password'), ip: request.ip };
    const { token } =
      which === 'signup'
        ? await kit.deps.payerAuth.signUp({ ...input, pin: field(form, 'pin').trim() })
        : await kit.deps.payerAuth.login({ ...input, code: field(form, 'code') || undefined });
    return kit.signedInAt(reply, request, token, ret);
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return refused(err.status, err.message);
  }
}

async function logout(kit: WalletKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.session(request);
  if (!session) return reply.code(303).header('location', '/wallet/login').send();
  if (!kit.ownForm(request, (request.body ?? {}) as Form, session.csrf)) return kit.forbidden(request, reply, session);
  await kit.deps.payerAuth.logout(session, request.ip);
  return reply
    .code(303)
    .header('set-cookie', `${WALLET_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${kit.secure(request)}`)
    .header('location', '/wallet/login')
    .send();
}

export async function walletRoutes(app: FastifyInstance, opts: { deps: WalletRouteDeps }): Promise<void> {
  // The console's stylesheet, served again under the wallet's own path.
  const files = serveAssets(app, 'console', '/wallet/assets', ['console.css']);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    done(null, Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.get(k) ?? ''])));
  });
  const kit = new WalletKit(opts.deps, files['console.css']!);
  // Live payer accounts switched off: the live wallet is not there.
  app.addHook('onRequest', async (request, reply) => {
    if (request.environment === 'live' && !opts.deps.liveOn) {
      await kit.send(reply, 404, walletPage(kit.ctx(request, null), 'Not found', `<p>${esc('There is no wallet here.')}</p>`));
    }
  });
  app.get('/wallet', ROUTE, (request, reply) => home(kit, request, reply));
  app.get('/wallet/signup', ROUTE, (request, reply) => showForm(kit, request, reply, 'signup'));
  app.post('/wallet/signup', ROUTE, (request, reply) => submitForm(kit, request, reply, 'signup'));
  app.get('/wallet/login', ROUTE, (request, reply) => showForm(kit, request, reply, 'login'));
  app.post('/wallet/login', ROUTE, (request, reply) => submitForm(kit, request, reply, 'login'));
  app.post('/wallet/logout', ROUTE, (request, reply) => logout(kit, request, reply));
}
