// The wallet's HTTP: pages at /wallet on each origin (payers of that origin's environment), plain forms
// posted back with a CSRF token, then a redirect. Cookies, form bodies and CSRF tokens are the HTML areas'
// own (src/http/forms.ts, as the console's): once signed in, a form's token is made from the session's
// server-side secret; before sign-in (the sign-up and sign-in forms) from a random secret in a
// SameSite=Strict cookie of the wallet's path. The session is a random token in an HttpOnly SameSite=Lax
// cookie of its own name (cowrie_wallet, Path=/ so that the checkout sees it), Secure over https; sign-in
// and sign-up attempts are limited per client address as the console's sign-ins are. A form without a
// valid token, or from another origin, answers 403 and changes nothing.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  FormRefused,
  acceptForms,
  checkForm,
  clearSessionCookie,
  formOf,
  formToken,
  sameOrigin,
  sendPage,
  setSessionCookie,
} from '../../http/forms.js';
import type { WindowLimiter } from '../../http/rate-limit.js';
import { serveAssets } from '../../http/static-assets.js';
import { AppError } from '../../shared/errors.js';
import { ConsoleError } from '../console/index.js';
import { WALLET_COOKIE, type PayerAuth, type PayerSession } from './payer-auth.service.js';
import type { PayerAccounts } from './payers.service.js';
import type { PayerMpesaTopups } from './mpesa-topups.service.js';
import { mpesaTopupRoutes } from './mpesa-topup.routes.js';
import type { PayerChainTopups } from './chain-topups.service.js';
import type { PayerWithdrawals } from './payer-withdrawals.service.js';
import { messagePage, type WalletContext } from './pages/layout.js';
import { signInPage, signUpPage } from './pages/sign-in-pages.js';
import { walletHomePage } from './pages/wallet-page.js';

export interface WalletRouteDeps {
  payerAuth: PayerAuth;
  payerAccounts: PayerAccounts;
  payerTopups: Pick<PayerChainTopups, 'networks' | 'ofPayer' | 'request'>;
  payerWithdrawals: PayerWithdrawals;
  walletLogins: WindowLimiter;
  /** Live payer accounts on (COWRIE_PAYER_ACCOUNTS); the sandbox wallet is always there. */
  liveOn: boolean;
  /** M-Pesa top-ups, when the M-Pesa rail is configured (live only). */
  payerMpesaTopups?: PayerMpesaTopups | null;
}

const ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };
/** The secret of the forms shown before sign-in. */
const FORM_COOKIE = 'cowrie_wallet_form';
type Form = Record<string, string>;

/** Where to go after signing in: only back to a checkout of this origin. */
function returnOf(value: unknown): string | null {
  return typeof value === 'string' && /^\/checkout\/pi_[0-9A-Za-z]{1,64}$/.test(value) ? value : null;
}

const field = (form: Form, name: string) => (typeof form[name] === 'string' ? form[name] : '');

class WalletKit {
  constructor(
    private readonly app: FastifyInstance,
    readonly deps: WalletRouteDeps,
    readonly style: string,
  ) {}

  ctx(request: FastifyRequest, session: PayerSession | null): WalletContext {
    return { style: this.style, session, sandbox: request.environment === 'test' };
  }

  send(reply: FastifyReply, status: number, html: string) {
    return sendPage(reply, status, html);
  }

  /** The signed-in session with a new token for the page's forms, or null. */
  async session(request: FastifyRequest, reply: FastifyReply): Promise<PayerSession | null> {
    const session = await this.deps.payerAuth.session(request.environment, request.cookies[WALLET_COOKIE]);
    return session ? { ...session, csrf: formToken(request, reply, session.csrf) } : null;
  }

  /** A token for the forms shown before sign-in, from the secret in the visitor's cookie (set now when new). */
  preSessionToken(request: FastifyRequest, reply: FastifyReply): string {
    const existing = request.cookies[FORM_COOKIE];
    const secret = existing && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : randomBytes(24).toString('base64url');
    reply.setCookie(FORM_COOKIE, secret, { path: '/wallet', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' });
    return formToken(request, reply, secret);
  }

  /** The form came from our own page: a valid token of `secret`, and an Origin (when sent) of our own. */
  async ownForm(request: FastifyRequest, secret: string | undefined): Promise<boolean> {
    try {
      if (!sameOrigin(request)) throw new FormRefused('origin');
      await checkForm(this.app, request, secret);
      return true;
    } catch (err) {
      if (!(err instanceof FormRefused)) throw err;
      return false;
    }
  }

  forbidden(request: FastifyRequest, reply: FastifyReply) {
    return this.send(reply, 403, messagePage(this.ctx(request, null), 'expired'));
  }

  signedInAt(reply: FastifyReply, request: FastifyRequest, token: string, ret: string | null) {
    setSessionCookie(request, reply, WALLET_COOKIE, token, '/');
    return reply
      .code(303)
      .header('location', ret ?? '/wallet')
      .header('cache-control', 'no-store')
      .send();
  }
}

async function home(kit: WalletKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.session(request, reply);
  if (!session) return reply.code(303).header('location', '/wallet/login').header('cache-control', 'no-store').send();
  const done = (request.query as Record<string, unknown>)['done'];
  return homePage(kit, request, reply, session, typeof done === 'string' && NOTICES[done] ? { notice: NOTICES[done] } : {});
}

async function showForm(kit: WalletKit, request: FastifyRequest, reply: FastifyReply, which: 'signup' | 'login') {
  const ret = returnOf((request.query as Record<string, unknown>)['return']);
  if (await kit.deps.payerAuth.session(request.environment, request.cookies[WALLET_COOKIE])) {
    return reply
      .code(303)
      .header('location', ret ?? '/wallet')
      .send();
  }
  const csrf = kit.preSessionToken(request, reply);
  const ctx = kit.ctx(request, null);
  return kit.send(reply, 200, which === 'signup' ? signUpPage(ctx, { csrf, ret }) : signInPage(ctx, { csrf, ret }));
}

async function submitForm(kit: WalletKit, request: FastifyRequest, reply: FastifyReply, which: 'signup' | 'login') {
  const form = formOf(request);
  if (!(await kit.ownForm(request, request.cookies[FORM_COOKIE]))) return kit.forbidden(request, reply);
  const ret = returnOf(form['return']);
  const email = field(form, 'email');
  const csrf = kit.preSessionToken(request, reply);
  const refused = (status: number, error: string) => {
    const ctx = kit.ctx(request, null);
    return kit.send(
      reply,
      status,
      which === 'signup' ? signUpPage(ctx, { csrf, ret, error, email }) : signInPage(ctx, { csrf, ret, error, email }),
    );
  };
  const rate = await kit.deps.walletLogins.consume(request.ip);
  if (!rate.allowed) {
    reply.header('retry-after', '60');
    return refused(429, `Too many attempts from your address; try again in ${rate.resetSeconds} seconds.`);
  }
  try {
    const input = { environment: request.environment, email, password: field(form, 'password'), ip: request.ip };
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
  const session = await kit.deps.payerAuth.session(request.environment, request.cookies[WALLET_COOKIE]);
  if (!session) return reply.code(303).header('location', '/wallet/login').send();
  if (!(await kit.ownForm(request, session.csrf))) return kit.forbidden(request, reply);
  await kit.deps.payerAuth.logout(session, request.ip);
  clearSessionCookie(request, reply, WALLET_COOKIE, '/');
  return reply.code(303).header('location', '/wallet/login').send();
}

const NOTICES: Record<string, string> = {
  totp_on: 'Two-step sign-in is on.',
  totp_off: 'Two-step sign-in is off.',
  topup: 'Send the exact amount shown to the address shown; it is added to your balance once the network confirms it.',
  withdrawal: 'Your withdrawal is asked for: the amount is held from your balance until it is sent.',
};

/** The wallet page, with a notice after an action, an error, or the two-step sign-in being set up. */
async function homePage(
  kit: WalletKit,
  request: FastifyRequest,
  reply: FastifyReply,
  session: PayerSession,
  extra: {
    status?: number;
    notice?: string;
    error?: string;
    totpSetup?: { secret: string; qr: string };
    recoveryCodes?: string[];
    topupForm?: Form;
    withdrawalForm?: Form;
  } = {},
) {
  const { id, environment } = session.payer;
  const wallet = await kit.deps.payerAccounts.wallet(id, environment);
  const topups = await kit.deps.payerTopups.ofPayer(id, environment);
  const mpesa = kit.deps.payerMpesaTopups;
  const mpesaTopups = mpesa && environment === 'live' ? await mpesa.list(id) : undefined;
  const withdrawals = await kit.deps.payerWithdrawals.list(id, environment);
  const topup = {
    networks: kit.deps.payerTopups.networks,
    waiting: topups.waiting,
    live: environment === 'live',
    form: extra.topupForm ?? {},
  };
  const details = Object.fromEntries(
    topups.latest.flatMap((t) => (t.movementId ? [[t.movementId, `On-chain, ${t.networkName}: ${t.txHash ?? ''}`]] : [])),
  );
  return kit.send(
    reply,
    extra.status ?? 200,
    walletHomePage(
      { ...kit.ctx(request, session), session },
      { ...wallet, withdrawals, ...extra, topup, details, ...(mpesaTopups ? { mpesaTopups } : {}) },
    ),
  );
}

/** Asks for an on-chain top-up: back to the wallet showing its address and exact amount, or the form's error. */
async function topUp(kit: WalletKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await acting(kit, request, reply);
  if (!session) return reply;
  const form = formOf(request);
  const input = { amount: field(form, 'amount'), asset: field(form, 'asset'), network: field(form, 'network') };
  try {
    await kit.deps.payerTopups.request(session.payer, input);
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return homePage(kit, request, reply, session, { status: err.status, error: err.message, topupForm: input });
  }
  return reply.code(303).header('location', '/wallet?done=topup').send();
}

/** A form of the signed-in wallet: its session (with a new token for the page) when its token is valid, else null after answering. */
async function acting(kit: WalletKit, request: FastifyRequest, reply: FastifyReply): Promise<PayerSession | null> {
  const session = await kit.deps.payerAuth.session(request.environment, request.cookies[WALLET_COOKIE]);
  if (!session) {
    await reply.code(303).header('location', '/wallet/login').send();
    return null;
  }
  if (!(await kit.ownForm(request, session.csrf))) {
    await kit.forbidden(request, reply);
    return null;
  }
  return { ...session, csrf: formToken(request, reply, session.csrf) };
}

async function totp(kit: WalletKit, request: FastifyRequest, reply: FastifyReply, step: 'start' | 'confirm' | 'disable') {
  const session = await acting(kit, request, reply);
  if (!session) return reply;
  const form = formOf(request);
  try {
    if (step === 'start') {
      const setup = await kit.deps.payerAuth.startTotp(session);
      const qr = await (await import('qrcode')).default.toDataURL(setup.uri, { margin: 1, width: 180 });
      return await homePage(kit, request, reply, session, { totpSetup: { secret: setup.secret, qr } });
    }
    if (step === 'confirm') {
      const recoveryCodes = await kit.deps.payerAuth.confirmTotp(session, field(form, 'code'), request.ip);
      const on = { ...session, payer: { ...session.payer, totp: true } };
      return await homePage(kit, request, reply, on, { notice: NOTICES['totp_on'], recoveryCodes });
    }
    await kit.deps.payerAuth.disableTotp(session, field(form, 'password'), request.ip);
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return homePage(kit, request, reply, session, { status: err.status, error: err.message });
  }
  return reply.code(303).header('location', '/wallet?done=totp_off').send();
}

/** A withdrawal from the wallet page (PIN required); a refusal shows the page again with the form as typed. */
async function withdraw(kit: WalletKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await acting(kit, request, reply);
  if (!session) return reply;
  const form = formOf(request);
  const input = {
    amount: field(form, 'amount'),
    asset: field(form, 'asset'),
    network: field(form, 'network'),
    address: field(form, 'address'),
  };
  try {
    const once = { pin: field(form, 'pin'), requestKey: field(form, 'request_key') };
    await kit.deps.payerWithdrawals.request(session.payer, { ...input, ...once }, request.ip);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return homePage(kit, request, reply, session, { status: err.status, error: err.message, withdrawalForm: input });
  }
  return reply.code(303).header('location', '/wallet?done=withdrawal').header('cache-control', 'no-store').send();
}

export async function walletRoutes(app: FastifyInstance, opts: { deps: WalletRouteDeps }): Promise<void> {
  // The console's stylesheet, served again under the wallet's own path.
  await acceptForms(app);
  const files = serveAssets(app, 'console', '/wallet/assets', ['console.css']);
  const kit = new WalletKit(app, opts.deps, files['console.css']!);
  // Live payer accounts switched off: the live wallet is not there.
  app.addHook('onRequest', async (request, reply) => {
    if (request.environment === 'live' && !opts.deps.liveOn) {
      await kit.send(reply, 404, messagePage(kit.ctx(request, null), 'absent'));
    }
  });
  app.get('/wallet', ROUTE, (request, reply) => home(kit, request, reply));
  app.get('/wallet/signup', ROUTE, (request, reply) => showForm(kit, request, reply, 'signup'));
  app.post('/wallet/signup', ROUTE, (request, reply) => submitForm(kit, request, reply, 'signup'));
  app.get('/wallet/login', ROUTE, (request, reply) => showForm(kit, request, reply, 'login'));
  app.post('/wallet/login', ROUTE, (request, reply) => submitForm(kit, request, reply, 'login'));
  app.post('/wallet/logout', ROUTE, (request, reply) => logout(kit, request, reply));
  app.post('/wallet/topups/chain', ROUTE, (request, reply) => topUp(kit, request, reply));
  app.post('/wallet/payouts', ROUTE, (request, reply) => withdraw(kit, request, reply));
  for (const step of ['start', 'confirm', 'disable'] as const) {
    app.post(`/wallet/totp/${step}`, ROUTE, (request, reply) => totp(kit, request, reply, step));
  }
  if (opts.deps.payerMpesaTopups) {
    mpesaTopupRoutes(app, opts.deps.payerMpesaTopups, {
      ctx: (request, session) => kit.ctx(request, session),
      send: (reply, status, html) => kit.send(reply, status, html),
      session: (request, reply) => kit.session(request, reply),
      acting: (request, reply) => acting(kit, request, reply),
      home: (request, reply, session, extra) => homePage(kit, request, reply, session, extra),
    });
  }
}
