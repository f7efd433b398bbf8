// The merchant console's HTTP: pages at /console on every listener (one console for both environments,
// with a test/live switch), plain forms posted back with the session's CSRF token, then a redirect (a
// reload never posts twice). Every action calls the same services as the API and is written to the audit
// log. A request without a valid session is sent to the sign-in page; a form without the session's CSRF
// token answers 403 and changes nothing; a role's forbidden action is not offered and answers 403.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../deps.js';
import { serveAssets } from '../../http/static-assets.js';
import { AppError } from '../../shared/errors.js';
import { listBalances } from '../balances/index.js';
import { checkVerification, findMerchant, submitVerification, verificationOf } from '../merchants/index.js';
import { isIdOf } from '../../shared/ids.js';
import { isoTime } from '../../shared/clock.js';
import { advanceSandboxClock, simulatePayment } from '../sandbox/index.js';
import type { IntentStatus, PaymentIntent, PaymentMethod, PaymentOutcome } from '../payment-intents/index.js';
import * as repo from './console.repo.js';
import { listSettlements, type Settlement } from '../settlements/index.js';
import type { Refund } from '../refunds/index.js';
import type { Customer } from '../customers/index.js';
import type { PaymentLink } from '../payment-links/index.js';
import { PAYMENTS_REPORT, SETTLEMENTS_REPORT } from '../reports/index.js';
import { createKey } from '../merchants/index.js';
import { listKeys, revokeKey, rotateKey, SCOPES } from '../keys/index.js';
import { ConsoleError, type ConsoleSession } from './console-auth.service.js';
import {
  accountPage,
  auditPage,
  clockForm,
  esc,
  listPage,
  type Column,
  developersPage,
  DRIVER_METHODS,
  DRIVER_OUTCOMES,
  paymentPage,
  paymentsPage,
  type TimelineEvent,
  homePage,
  liveClosedPage,
  loginPage,
  messagePage,
  verificationPage,
  type Env,
  type PageContext,
} from './console-pages.js';

export const SESSION_COOKIE = 'cowrie_console';

type Form = Record<string, string>;

/** qrcode, loaded on the first page that draws a code (payment links, TOTP setup). */
const qrCode = async () => (await import('qrcode')).default;

function cookieOf(request: FastifyRequest, name: string): string | undefined {
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

export async function consoleRoutes(app: FastifyInstance, opts: { deps: Services }): Promise<void> {
  const { deps } = opts;
  const auth = deps.console;
  const files = serveAssets(app, 'console', '/console/assets', ['console.css']);
  const style = files['console.css']!;

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) => {
    // A repeated field (the scope checkboxes) arrives as its values joined by commas.
    const params = new URLSearchParams(body as string);
    done(null, Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k).join(',')])));
  });

  const secure = (request: FastifyRequest) => request.protocol === 'https';

  const send = (reply: FastifyReply, status: number, html: string) =>
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
      .send(html);

  const ctxOf = async (request: FastifyRequest, session: ConsoleSession | null, path: string, withEnv = false): Promise<PageContext> => {
    if (!session) return { style, session, path };
    const merchant = await findMerchant(deps.db, session.user.merchantId);
    const liveOpen = merchant?.kyb_status === 'verified';
    const asked = (request.query as { env?: string } | undefined)?.env;
    const env: Env = asked === 'live' || asked === 'test' ? asked : liveOpen ? 'live' : 'test';
    return { style, session, path, merchantName: merchant?.name, liveOpen, ...(withEnv ? { env } : {}) };
  };

  /** The signed-in session, or null after sending the visitor to the sign-in page. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleSession | null> {
    const session = await auth.session(cookieOf(request, SESSION_COOKIE));
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
  async function acting(request: FastifyRequest, reply: FastifyReply): Promise<{ session: ConsoleSession; form: Form } | null> {
    const session = await signedIn(request, reply);
    if (!session) return null;
    const form = (request.body ?? {}) as Form;
    const origin = request.headers.origin;
    const ownOrigin = `${request.protocol}://${request.headers.host ?? ''}`;
    if (
      !sameToken(session.csrf, typeof form['_csrf'] === 'string' ? form['_csrf'] : undefined) ||
      (origin !== undefined && origin !== ownOrigin)
    ) {
      await send(
        reply,
        403,
        messagePage(
          await ctxOf(request, session, ''),
          'Form expired',
          'This form has expired or did not come from the console; nothing was changed. Reload the page and try again.',
        ),
      );
      return null;
    }
    return { session, form };
  }

  async function forbidden(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession) {
    return send(
      reply,
      403,
      messagePage(await ctxOf(request, session, ''), 'Not allowed', `Your role (${session.user.role}) cannot do this.`),
    );
  }

  app.get('/console/login', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    if (await auth.session(cookieOf(request, SESSION_COOKIE))) return reply.code(303).header('location', '/console').send();
    return send(reply, 200, loginPage({ style, session: null, path: '/console/login' }, {}));
  });

  app.post('/console/login', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const email = typeof form['email'] === 'string' ? form['email'] : '';
    const refused = (status: number, error: string) =>
      send(reply, status, loginPage({ style, session: null, path: '/console/login' }, { error, email }));
    // The client address's budget is spent before any password is checked.
    const rate = await deps.consoleLogins.consume(request.ip);
    if (!rate.allowed) {
      reply.header('retry-after', '60');
      return refused(429, `Too many sign-in attempts from your address; try again in ${rate.resetSeconds} seconds.`);
    }
    try {
      const { token } = await auth.login({
        email,
        password: typeof form['password'] === 'string' ? form['password'] : '',
        code: typeof form['code'] === 'string' ? form['code'] : undefined,
        ip: request.ip,
      });
      return reply
        .code(303)
        .header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/console; HttpOnly; SameSite=Lax${secure(request) ? '; Secure' : ''}`)
        .header('location', '/console')
        .header('cache-control', 'no-store')
        .send();
    } catch (err) {
      if (!(err instanceof ConsoleError)) throw err;
      return refused(err.status, err.message);
    }
  });

  app.post('/console/logout', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    await auth.logout(a.session, request.ip);
    return reply
      .code(303)
      .header('set-cookie', `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Lax; Max-Age=0${secure(request) ? '; Secure' : ''}`)
      .header('location', '/console/login')
      .send();
  });

  app.get('/console', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const ctx = await ctxOf(request, session, '/console', true);
    if (ctx.env === 'live' && !ctx.liveOpen) {
      const v = await verificationOf(deps.db, session.user.merchantId);
      return send(reply, 200, liveClosedPage(ctx, v.status, v.reason));
    }
    const scope = { merchantId: session.user.merchantId, environment: ctx.env! };
    const [balances, payments] = await Promise.all([listBalances(deps.db, scope), deps.intents.list(scope, { limit: 10 })]);
    let clock: string | undefined;
    if (ctx.env === 'test' && session.user.role !== 'viewer') {
      const offset = await deps.clocks.sandboxOffsetMs(session.user.merchantId);
      clock = clockForm(session, isoTime(deps.clocks.base.nowMs() + offset));
    }
    return send(reply, 200, homePage(ctx, { balances, payments: payments.data, clock }));
  });

  /** The scope of the environment the page shows; null (after answering) when live is not open yet. */
  async function envScope(request: FastifyRequest, reply: FastifyReply, session: ConsoleSession, path: string) {
    const ctx = await ctxOf(request, session, path, true);
    if (ctx.env === 'live' && !ctx.liveOpen) {
      const v = await verificationOf(deps.db, session.user.merchantId);
      await send(reply, 200, liveClosedPage(ctx, v.status, v.reason));
      return null;
    }
    return { ctx, scope: { merchantId: session.user.merchantId, environment: ctx.env! } };
  }

  app.get('/console/payments', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const at = await envScope(request, reply, session, '/console/payments');
    if (!at) return reply;
    const q = request.query as { status?: string; q?: string; after?: string };
    const status =
      q.status && ['awaiting_payment', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'].includes(q.status)
        ? q.status
        : undefined;
    const search = (q.q ?? '').trim();
    let payments: PaymentIntent[] = [];
    let next: string | undefined;
    if (search) {
      // An id opens its payment; anything else is looked up as a merchant reference.
      if (isIdOf('payment_intent', search)) {
        try {
          payments = [await deps.intents.get(at.scope, search)];
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
        }
      } else {
        const ids = await repo.intentIdsByReference(deps.db, at.scope, search.slice(0, 255));
        payments = await Promise.all(ids.map((id) => deps.intents.get(at.scope, id)));
      }
      if (status) payments = payments.filter((p) => p.status === status);
    } else {
      const after = q.after && isIdOf('payment_intent', q.after) ? q.after : undefined;
      const page = await deps.intents.list(at.scope, { limit: 25, startingAfter: after, status: status as IntentStatus | undefined });
      payments = page.data;
      if (page.has_more) next = page.data.at(-1)?.id;
    }
    return send(reply, 200, paymentsPage(at.ctx, { payments, status, q: search, next }));
  });

  async function paymentDetail(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConsoleSession,
    id: string,
    extra: { notice?: string; error?: string; status?: number } = {},
  ) {
    const at = await envScope(request, reply, session, `/console/payments/${id}`);
    if (!at) return reply;
    let payment: PaymentIntent;
    try {
      payment = await deps.intents.get(at.scope, id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(
        reply,
        404,
        messagePage(
          at.ctx,
          'No such payment',
          `There is no payment ${id} in the ${at.scope.environment === 'test' ? 'test' : 'live'} environment.`,
        ),
      );
    }
    const eventIds = await repo.eventIdsOfIntent(deps.db, at.scope, id);
    const events = (await Promise.all(eventIds.map((e) => deps.webhooks.getEvent(at.scope, e)))) as unknown as TimelineEvent[];
    const [attempts, rails] = await Promise.all([repo.attemptsOfIntent(deps.db, id), repo.railPaymentsOfIntent(deps.db, id)]);
    const canDrive = at.scope.environment === 'test' && session.user.role !== 'viewer';
    const canPinRefund = session.user.role === 'owner' && payment.status === 'paid' && payment.payment_method === 'service_balance';
    return send(
      reply,
      extra.status ?? 200,
      paymentPage(at.ctx, {
        payment,
        events,
        attempts: attempts.map((a) => ({ ...a, created_at: Number(a.created_at) })),
        railAttempts: rails.map((r) => ({ ...r, created_at: Number(r.created_at) })),
        canDrive,
        canPinRefund,
        ...extra,
      }),
    );
  }

  app.get('/console/payments/:id', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const id = (request.params as { id: string }).id;
    const done = (request.query as { done?: string }).done;
    const notice =
      done === 'refunded' ? 'Refunded: the payment is refunded.' : done ? `Outcome applied: ${done.replace('_', ' ')}.` : undefined;
    return paymentDetail(request, reply, session, id, notice ? { notice } : {});
  });

  // Sandbox tools: the same code path as the API's sandbox helpers.
  app.post('/console/payments/:id/simulate', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role === 'viewer') return forbidden(request, reply, a.session);
    const id = (request.params as { id: string }).id;
    const outcome = a.form['outcome'] ?? '';
    const method = a.form['payment_method'] ?? '';
    const scope = { merchantId: a.session.user.merchantId, environment: 'test' as const };
    try {
      if (!DRIVER_OUTCOMES.includes(outcome)) throw new AppError('parameter_invalid', 'Choose an outcome.', { param: 'outcome' });
      if (!DRIVER_METHODS.includes(method))
        throw new AppError('parameter_invalid', 'Choose a payment method.', { param: 'payment_method' });
      await simulatePayment(deps, scope, id, { outcome: outcome as PaymentOutcome, payment_method: method as PaymentMethod });
      await auth.audit(
        scope.merchantId,
        a.session.user,
        a.session.user.email,
        'sandbox.payment_driven',
        id,
        { outcome, payment_method: method },
        request.ip,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return paymentDetail(request, reply, a.session, id, { error: err.message, status: err.status });
    }
    return reply
      .code(303)
      .header('location', `/console/payments/${encodeURIComponent(id)}?env=test&done=${outcome}`)
      .send();
  });

  // Balance refunds with the transaction PIN (owner only): the refund service's own rules, done at once.
  app.post('/console/payments/:id/refund', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role !== 'owner') return forbidden(request, reply, a.session);
    const id = (request.params as { id: string }).id;
    const ctx = await ctxOf(request, a.session, `/console/payments/${id}`, true);
    if (ctx.env === 'live' && !ctx.liveOpen) return forbidden(request, reply, a.session);
    const scope = { merchantId: a.session.user.merchantId, environment: ctx.env! };
    try {
      await auth.checkPin(a.session, (a.form['pin'] ?? '').trim(), request.ip);
      const refund = await deps.refunds.refundBalancePayment(scope, id);
      await auth.audit(
        scope.merchantId,
        a.session.user,
        a.session.user.email,
        'refund.created',
        refund.id,
        { payment_intent: id, via: 'pin' },
        request.ip,
      );
    } catch (err) {
      if (err instanceof ConsoleError) return paymentDetail(request, reply, a.session, id, { error: err.message, status: err.status });
      if (!(err instanceof AppError)) throw err;
      return paymentDetail(request, reply, a.session, id, { error: err.message, status: err.status });
    }
    return reply
      .code(303)
      .header('location', `/console/payments/${encodeURIComponent(id)}?env=${scope.environment}&done=refunded`)
      .send();
  });

  app.post('/console/sandbox/clock', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role === 'viewer') return forbidden(request, reply, a.session);
    const scope = { merchantId: a.session.user.merchantId, environment: 'test' as const };
    const text = (a.form['seconds'] ?? '').trim();
    try {
      const seconds = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
      await advanceSandboxClock(deps, scope, seconds);
      await auth.audit(scope.merchantId, a.session.user, a.session.user.email, 'sandbox.clock_advanced', null, { seconds }, request.ip);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(reply, 400, messagePage(await ctxOf(request, a.session, '/console'), 'Sandbox clock', err.message));
    }
    return reply.code(303).header('location', '/console?env=test').send();
  });

  // Developers: API keys and webhook endpoints, through the same services as the CLI and the API.
  async function developers(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConsoleSession,
    extra: { shown?: { label: string; secret: string }; notice?: string; error?: string; status?: number } = {},
  ) {
    const at = await envScope(request, reply, session, '/console/developers');
    if (!at) return reply;
    const keys = (await listKeys(deps.db, session.user.merchantId, deps.clocks.base.nowMs())).filter(
      (k) => k.environment === at.scope.environment,
    );
    const endpoints = (await deps.webhooks.listEndpoints(at.scope)).data;
    return send(
      reply,
      extra.status ?? 200,
      developersPage(at.ctx, { keys, endpoints, scopes: SCOPES, canAct: session.user.role !== 'viewer', ...extra }),
    );
  }

  app.get('/console/developers', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    return developers(request, reply, session, { notice: (request.query as { done?: string }).done });
  });

  // An endpoint's delivery log: its latest deliveries, each with its event, status and last answer.
  app.get('/console/developers/webhooks/:id', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const id = (request.params as { id: string }).id;
    const at = await envScope(request, reply, session, `/console/developers/webhooks/${id}`);
    if (!at) return reply;
    let log;
    try {
      log = await deps.webhooks.endpointDeliveries(at.scope, id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(reply, 404, messagePage(at.ctx, 'No such endpoint', err.message));
    }
    type Delivery = (typeof log.deliveries)[number];
    const columns: Column<Delivery>[] = [
      { heading: 'Event', cell: (d) => `<strong>${esc(d.type)}</strong><br>${code(d.event)}` },
      { heading: 'Status', cell: (d) => `<span class="status">${esc(d.status)}</span>` },
      { heading: 'Attempts', cell: (d) => text(d.attempt_count) },
      { heading: 'Last answer', cell: (d) => (d.last_status_code === null ? text(d.last_error) : `HTTP ${d.last_status_code}`) },
      { heading: 'Last attempt', cell: (d) => text(d.last_attempt_at) },
      { heading: 'Created', cell: (d) => text(d.created_at) },
    ];
    return send(
      reply,
      200,
      listPage({ ...at.ctx, path: '/console/developers' }, `Deliveries to ${log.endpoint.url}`, {
        rows: log.deliveries,
        columns,
        empty: 'No deliveries yet.',
        before: `<p>Status: <span class="status">${esc(log.endpoint.status)}</span>. The latest 50 deliveries, newest first.</p>`,
      }),
    );
  });

  /** A developers action: role checked, the live side open, errors shown on the page, then back to it. */
  const developerAction = (
    path: string,
    act: (
      session: ConsoleSession,
      form: Form,
      scope: { merchantId: string; environment: Env },
      params: { id?: string },
      request: FastifyRequest,
    ) => Promise<string | { shown: { label: string; secret: string }; notice: string }>,
  ) =>
    app.post(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const a = await acting(request, reply);
      if (!a) return reply;
      if (a.session.user.role === 'viewer') return forbidden(request, reply, a.session);
      const ctx = await ctxOf(request, a.session, '/console/developers', true);
      if (ctx.env === 'live' && !ctx.liveOpen) return forbidden(request, reply, a.session);
      const scope = { merchantId: a.session.user.merchantId, environment: ctx.env! };
      try {
        const done = await act(a.session, a.form, scope, request.params as { id?: string }, request);
        if (typeof done !== 'string') return developers(request, reply, a.session, done);
        return reply
          .code(303)
          .header('location', `/console/developers?env=${scope.environment}&done=${encodeURIComponent(done)}`)
          .send();
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return developers(request, reply, a.session, { error: err.message, status: err.status });
      }
    });

  /** The merchant's own key, or 404 as if it did not exist. */
  async function ownKey(merchantId: string, id: string | undefined) {
    const key = (await listKeys(deps.db, merchantId, deps.clocks.base.nowMs())).find((k) => k.id === id);
    if (!key) throw new AppError('resource_missing', 'No such key.', { param: 'id' });
    return key;
  }

  developerAction('/console/developers/keys', async (session, form, scope, _params, request) => {
    const type = form['type'];
    if (type !== 'secret' && type !== 'restricted' && type !== 'publishable')
      throw new AppError('parameter_invalid', 'Choose a key type.', { param: 'type' });
    const scopes = (form['scope'] ?? '').split(',').filter(Boolean);
    const ips = (form['allowed_ips'] ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const issued = await createKey(deps.db, deps.clocks.base, {
      merchantId: session.user.merchantId,
      environment: scope.environment,
      type,
      ...(type === 'restricted' ? { scopes } : {}),
      ...(ips.length > 0 ? { allowedIps: ips } : {}),
    });
    await auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'key.created',
      issued.id,
      { type, environment: scope.environment, scopes: issued.scopes },
      request.ip,
    );
    return { shown: { label: `Your new ${type} key.`, secret: issued.key }, notice: 'Key created.' };
  });
  developerAction('/console/developers/keys/:id/revoke', async (session, _form, _scope, params, request) => {
    const key = await ownKey(session.user.merchantId, params.id);
    await revokeKey(deps.db, deps.clocks.base, key.id);
    await auth.audit(session.user.merchantId, session.user, session.user.email, 'key.revoked', key.id, null, request.ip);
    return 'Key revoked.';
  });
  developerAction('/console/developers/keys/:id/rotate', async (session, form, _scope, params, request) => {
    const key = await ownKey(session.user.merchantId, params.id);
    const hours = /^[0-9]{1,3}$/.test((form['hours'] ?? '').trim()) ? Number(form['hours']) : NaN;
    const out = await rotateKey(deps.db, deps.clocks.base, key.id, hours);
    await auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'key.rotated',
      key.id,
      { new_key: out.new_key.id, hours },
      request.ip,
    );
    return {
      shown: { label: `The replacement key (the old one works until ${out.old_key.expires_at}).`, secret: out.new_key.key },
      notice: 'Key rotated.',
    };
  });
  developerAction('/console/developers/webhooks', async (session, form, scope, _params, request) => {
    const events = (form['events'] ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const created = await deps.webhooks.createEndpoint(scope, { url: (form['url'] ?? '').trim(), events });
    await auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'webhook_endpoint.created',
      created.id,
      { url: created.url },
      request.ip,
    );
    return { shown: { label: `The signing secret of ${created.url}.`, secret: created.secret }, notice: 'Endpoint added.' };
  });
  for (const action of ['pause', 'resume', 'delete'] as const) {
    developerAction(`/console/developers/webhooks/:id/${action}`, async (session, _form, scope, params, request) => {
      const id = params.id ?? '';
      if (action === 'pause') await deps.webhooks.pause(scope, id);
      else if (action === 'resume') await deps.webhooks.resume(scope, id);
      else await deps.webhooks.deleteEndpoint(scope, id);
      await auth.audit(
        session.user.merchantId,
        session.user,
        session.user.email,
        `webhook_endpoint.${action === 'delete' ? 'deleted' : `${action}d`}`,
        id,
        null,
        request.ip,
      );
      return action === 'pause' ? 'Endpoint paused.' : action === 'resume' ? 'Endpoint resumed.' : 'Endpoint deleted.';
    });
  }
  developerAction('/console/developers/webhooks/:id/rotate', async (session, _form, scope, params, request) => {
    const rotated = await deps.webhooks.rotateSecret(scope, params.id ?? '');
    await auth.audit(
      session.user.merchantId,
      session.user,
      session.user.email,
      'webhook_endpoint.secret_rotated',
      rotated.id,
      null,
      request.ip,
    );
    return { shown: { label: `The new signing secret of ${rotated.url}, in use now.`, secret: rotated.secret }, notice: 'Secret rotated.' };
  });

  // The merchant's records, read through the same services as the API: one page each, newest first.
  const code = (v: string | null | undefined) => (v ? `<code>${esc(v)}</code>` : '—');
  const text = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '—' : esc(String(v)));
  const payLink = (env: string, id: string | null) =>
    id ? `<a href="/console/payments/${esc(id)}?env=${env}"><code>${esc(id)}</code></a>` : '—';
  const afterOf = (request: FastifyRequest, prefix: string) => {
    const after = (request.query as { after?: string }).after;
    return after && new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`).test(after) ? after : undefined;
  };

  function listRoute<T extends { id: string }>(
    path: string,
    title: string,
    empty: string,
    prefix: string,
    load: (scope: { merchantId: string; environment: Env }, after: string | undefined) => Promise<{ data: T[]; has_more: boolean }>,
    columns: (env: Env, session: ConsoleSession) => Column<T>[],
    extra?: (session: ConsoleSession, env: Env) => Promise<{ before?: string; after?: string }>,
  ) {
    app.get(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const at = await envScope(request, reply, session, path);
      if (!at) return reply;
      const page = await load(at.scope, afterOf(request, prefix));
      const parts = extra ? await extra(session, at.scope.environment) : {};
      return send(
        reply,
        200,
        listPage(at.ctx, title, {
          rows: page.data,
          columns: columns(at.scope.environment, session),
          empty,
          next: page.has_more ? page.data.at(-1)?.id : undefined,
          ...parts,
        }),
      );
    });
  }

  listRoute<Refund>(
    '/console/refunds',
    'Refunds',
    'No refunds in this environment.',
    're',
    (scope, after) => deps.refunds.list(scope, { limit: 25, startingAfter: after }),
    (env) => [
      { heading: 'Refund', cell: (r) => code(r.id) },
      { heading: 'Payment', cell: (r) => payLink(env, r.payment_intent) },
      { heading: 'Amount', cell: (r) => `${esc(r.currency)} ${esc(r.amount)}` },
      { heading: 'Status', cell: (r) => `<span class="status">${esc(r.status)}</span>` },
      { heading: 'Created', cell: (r) => text(r.created_at) },
    ],
  );
  listRoute<Settlement>(
    '/console/settlements',
    'Settlements',
    'No settlements in this environment.',
    'stl',
    (scope, after) => listSettlements(deps.db, scope, { limit: 25, startingAfter: after }),
    (env) => [
      { heading: 'Settlement', cell: (r) => code(r.id) },
      { heading: 'Payment', cell: (r) => payLink(env, r.payment_intent) },
      { heading: 'Amount', cell: (r) => `${text(r.amount)} ${esc(r.asset)}` },
      { heading: 'Status', cell: (r) => `<span class="status">${esc(r.status)}</span>` },
      { heading: 'Available', cell: (r) => text(r.available_at) },
    ],
  );
  listRoute<Customer>(
    '/console/customers',
    'Customers',
    'No customers in this environment.',
    'cus',
    (scope, after) => deps.customers.list(scope, { limit: 25, startingAfter: after }),
    () => [
      { heading: 'Customer', cell: (r) => code(r.id) },
      { heading: 'Name', cell: (r) => text(r.name) },
      { heading: 'Email', cell: (r) => text(r.email) },
      { heading: 'Phone', cell: (r) => text(r.phone) },
      { heading: 'Created', cell: (r) => text(r.created_at) },
    ],
  );
  listRoute<PaymentLink>(
    '/console/links',
    'Payment links',
    'No payment links in this environment.',
    'pl',
    async (scope, after) => {
      const page = await deps.links.list(scope, { limit: 25, startingAfter: after });
      // Each link's QR code, for printing or a screen at the till.
      const withQr = await Promise.all(
        page.data.map(async (l) => ({ ...l, qr: l.url ? await (await qrCode()).toDataURL(l.url, { margin: 1, width: 120 }) : '' })),
      );
      return { ...page, data: withQr };
    },
    () => [
      { heading: 'Link', cell: (r) => `${esc(r.title)}<br>${code(r.id)}` },
      {
        heading: 'URL',
        cell: (r) =>
          `<label for="url-${esc(r.id)}" class="hint">Copy the link</label><input id="url-${esc(r.id)}" type="text" readonly value="${esc(r.url ?? '')}">`,
      },
      { heading: 'Amount', cell: (r) => `${esc(r.currency)} ${r.amount === null ? 'set by the customer' : esc(r.amount)}` },
      { heading: 'Status', cell: (r) => `<span class="status">${esc(r.status)}</span>` },
      {
        heading: 'QR code',
        cell: (r) => `<img src="${(r as PaymentLink & { qr: string }).qr}" alt="QR code of ${esc(r.title)}" width="120" height="120">`,
      },
    ],
    async (session, env) => ({
      before:
        session.user.role !== 'owner'
          ? ''
          : `<form method="post" action="/console/links?env=${env}" class="card"><input type="hidden" name="_csrf" value="${esc(session.csrf)}"><h2>Create a payment link</h2>
<label for="link-title">Title</label><input id="link-title" name="title" type="text" required>
<label for="link-currency">Currency</label><input id="link-currency" name="currency" type="text" required value="KES">
<label for="link-amount">Amount (empty: the customer enters it)</label><input id="link-amount" name="amount" type="text" inputmode="decimal">
<button type="submit">Create link</button></form>`,
    }),
  );
  app.post('/console/links', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role !== 'owner') return forbidden(request, reply, a.session);
    const ctx = await ctxOf(request, a.session, '/console/links', true);
    if (ctx.env === 'live' && !ctx.liveOpen) return forbidden(request, reply, a.session);
    const scope = { merchantId: a.session.user.merchantId, environment: ctx.env! };
    try {
      const amount = (a.form['amount'] ?? '').trim();
      const link = await deps.links.create(scope, {
        title: a.form['title'] ?? '',
        currency: (a.form['currency'] ?? '').trim(),
        ...(amount ? { amount } : {}),
      });
      await auth.audit(
        scope.merchantId,
        a.session.user,
        a.session.user.email,
        'payment_link.created',
        link.id,
        { url: link.url },
        request.ip,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(reply, err.status, messagePage(ctx, 'Payment link', err.message));
    }
    return reply.code(303).header('location', `/console/links?env=${scope.environment}`).send();
  });

  listRoute(
    '/console/events',
    'Events',
    'No events in this environment.',
    'evt',
    (scope, after) => deps.webhooks.listEvents(scope, { limit: 25, startingAfter: after }),
    (env, session) => [
      { heading: 'Event', cell: (r) => `<strong>${esc(r.type)}</strong><br>${code(r.id)}` },
      { heading: 'Created', cell: (r) => text(r.created_at) },
      {
        heading: 'Webhook deliveries',
        cell: (r) =>
          r.deliveries.length === 0
            ? '—'
            : r.deliveries.map((d) => `${code(d.url)}: ${esc(d.status)} (${d.attempt_count} attempts)`).join('<br>'),
      },
      {
        heading: 'Resend',
        cell: (r) =>
          `<form method="post" action="/console/events/${esc(r.id)}/resend?env=${env}"><input type="hidden" name="_csrf" value="${esc(session.csrf)}"><button type="submit" class="secondary" aria-label="Resend ${esc(r.id)}">Resend</button></form>`,
      },
    ],
  );
  app.post('/console/events/:id/resend', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role === 'viewer') return forbidden(request, reply, a.session);
    const ctx = await ctxOf(request, a.session, '/console/events', true);
    if (ctx.env === 'live' && !ctx.liveOpen) return forbidden(request, reply, a.session);
    const scope = { merchantId: a.session.user.merchantId, environment: ctx.env! };
    const id = (request.params as { id: string }).id;
    try {
      const out = await deps.webhooks.resendEvent(scope, id);
      await auth.audit(scope.merchantId, a.session.user, a.session.user.email, 'event.resent', id, { deliveries: out.resent }, request.ip);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(reply, err.status, messagePage(ctx, 'Events', err.message));
    }
    return reply.code(303).header('location', `/console/events?env=${scope.environment}`).send();
  });

  app.get('/console/reports', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const at = await envScope(request, reply, session, '/console/reports');
    if (!at) return reply;
    const env = at.scope.environment;
    return send(
      reply,
      200,
      listPage(at.ctx, 'Reports', {
        rows: [],
        columns: [],
        empty: '',
        before: `<form method="get" action="/console/reports/download" class="card"><input type="hidden" name="env" value="${env}">
<label for="report-kind">Report</label><select id="report-kind" name="kind"><option value="payments">Paid payments</option><option value="settlements">Settlements</option></select>
<label for="report-from">From (YYYY-MM-DD, UTC)</label><input id="report-from" name="from" type="text" placeholder="2026-01-01">
<label for="report-to">To (YYYY-MM-DD, UTC)</label><input id="report-to" name="to" type="text" placeholder="2026-01-31">
<p class="hint">Empty dates: the last 30 days.</p>
<button type="submit">Download CSV</button></form>`,
      }),
    );
  });
  app.get('/console/reports/download', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const at = await envScope(request, reply, session, '/console/reports');
    if (!at) return reply;
    const q = request.query as { kind?: string; from?: string; to?: string };
    const kind = q.kind === 'settlements' ? SETTLEMENTS_REPORT : PAYMENTS_REPORT;
    try {
      const csv = await deps.reports.csv(
        kind as typeof PAYMENTS_REPORT,
        at.scope,
        { from: q.from || undefined, to: q.to || undefined },
        (err) => request.log.warn({ err }, 'console CSV report ended early'),
      );
      return reply
        .header('content-disposition', `attachment; filename="${csv.filename}"`)
        .header('cache-control', 'no-store')
        .type('text/csv; charset=utf-8')
        .send(csv.stream as never);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return send(reply, err.status, messagePage(at.ctx, 'Reports', err.message));
    }
  });

  app.get('/console/verification', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const v = await verificationOf(deps.db, session.user.merchantId);
    const notice = (request.query as { submitted?: string }).submitted ? 'Submitted: your business is in review.' : undefined;
    return send(reply, 200, verificationPage(await ctxOf(request, session, '/console/verification'), v as never, { notice }));
  });

  app.post('/console/verification', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const a = await acting(request, reply);
    if (!a) return reply;
    if (a.session.user.role !== 'owner') return forbidden(request, reply, a.session);
    const merchantId = a.session.user.merchantId;
    try {
      const details = checkVerification(a.form);
      await submitVerification(deps.db, merchantId, details, deps.clocks.base.nowMs());
      await auth.audit(
        merchantId,
        a.session.user,
        a.session.user.email,
        'verification.submitted',
        merchantId,
        { legal_name: details.legal_name },
        request.ip,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const v = await verificationOf(deps.db, merchantId);
      return send(
        reply,
        400,
        verificationPage(await ctxOf(request, a.session, '/console/verification'), v as never, {
          error: { message: err.message, param: err.param },
          values: a.form,
        }),
      );
    }
    return reply.code(303).header('location', '/console/verification?submitted=1').send();
  });

  app.get('/console/audit', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    if (session.user.role !== 'owner') return forbidden(request, reply, session);
    return send(reply, 200, auditPage(await ctxOf(request, session, '/console/audit'), await auth.auditLog(session.user.merchantId)));
  });

  app.get('/console/account', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const session = await signedIn(request, reply);
    if (!session) return reply;
    const q = request.query as { done?: string };
    const notice = {
      password: 'Your password is changed.',
      totp_on: 'Two-step sign-in is on.',
      totp_off: 'Two-step sign-in is off.',
      pin: 'The transaction PIN is set.',
    }[q.done ?? ''];
    const hasPin = await auth.hasPin(session.user.merchantId);
    return send(reply, 200, accountPage(await ctxOf(request, session, '/console/account'), { notice, hasPin }));
  });

  /** An account form: runs `act`, then back to the account page with a notice, or the page with the error. */
  const accountAction = (
    path: string,
    act: (session: ConsoleSession, form: Form, request: FastifyRequest) => Promise<string | { page: string }>,
  ) =>
    app.post(path, { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
      const a = await acting(request, reply);
      if (!a) return reply;
      try {
        const done = await act(a.session, a.form, request);
        if (typeof done !== 'string') return send(reply, 200, done.page);
        return reply.code(303).header('location', `/console/account?done=${done}`).send();
      } catch (err) {
        if (!(err instanceof ConsoleError)) throw err;
        return send(reply, err.status, accountPage(await ctxOf(request, a.session, '/console/account'), { error: err.message }));
      }
    });

  accountAction('/console/account/password', async (session, form, request) => {
    await auth.changePassword(session, form['current'] ?? '', form['next'] ?? '', request.ip);
    return 'password';
  });
  accountAction('/console/account/totp/start', async (session, _form, request) => {
    const setup = await auth.startTotp(session);
    const qr = await (await qrCode()).toDataURL(setup.uri, { margin: 1, width: 180 });
    return {
      page: accountPage(await ctxOf(request, session, '/console/account'), { totpSetup: { ...setup, qr } }),
    };
  });
  accountAction('/console/account/totp/confirm', async (session, form, request) => {
    await auth.confirmTotp(session, form['code'] ?? '', request.ip);
    return 'totp_on';
  });
  accountAction('/console/account/pin', async (session, form, request) => {
    await auth.setPin(session, form['password'] ?? '', (form['pin'] ?? '').trim(), request.ip);
    return 'pin';
  });
  accountAction('/console/account/totp/disable', async (session, form, request) => {
    await auth.disableTotp(session, form['password'] ?? '', request.ip);
    return 'totp_off';
  });
}
