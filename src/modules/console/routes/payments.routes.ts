// Home and payments: balances and the latest payments (with the sandbox clock), the payments of an
// environment (search, status filter, paging), one payment's page, and the owner's refund of a balance
// payment with the transaction PIN.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { liveMethodsOf } from '../../../config.js';
import { isoTime } from '../../../shared/clock.js';
import { AppError } from '../../../shared/errors.js';
import { listBalances } from '../../balances/index.js';
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { MerchantScope } from '../../../shared/scope.js';
import { ConsoleError, type ConsoleSession } from '../console-auth.service.js';
import { volume, type Volume } from '../payment-search.service.js';
import * as repo from '../console.repo.js';
import { clockForm, homePage } from '../pages/home-page.js';
import { messagePage, type Html } from '../pages/layout.js';
import { pricesSection } from '../pages/prices-section.js';
import { paymentPage, type TimelineEvent } from '../pages/payment-page.js';
import { CONSOLE_ROUTE, type ConsoleKit } from './shared.routes.js';

/**
 * The home page's 30-day volume. A merchant with more than VOLUME_CACHE_FROM paid payments in the window
 * sees it up to VOLUME_CACHE_MS old: at 100,000 paid payments a month the sum reads every one of them, and
 * a page load need not; a smaller merchant always sees it as it is.
 */
const VOLUME_CACHE_MS = 30_000;
const VOLUME_CACHE_FROM = 5_000;
const volumes = new Map<string, { at: number; volume: Volume }>();
async function paidVolumeCached(kit: ConsoleKit, scope: MerchantScope, timeZone: string): Promise<Volume> {
  const now = kit.deps.clocks.base.nowMs();
  const key = `${scope.merchantId}:${scope.environment}:${timeZone}`;
  const hit = volumes.get(key);
  if (hit && now - hit.at < VOLUME_CACHE_MS && now >= hit.at) return hit.volume;
  const offset = scope.environment === 'test' ? await kit.deps.clocks.sandboxOffsetMs(scope.merchantId) : 0;
  const v = await volume(kit.deps.db, scope, now + offset, timeZone);
  if (v.currencies.reduce((n, c) => n + c.count, 0) >= VOLUME_CACHE_FROM) {
    if (volumes.size > 10_000) volumes.clear();
    volumes.set(key, { at: now, volume: v });
  }
  return v;
}

async function home(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console');
  if (!at) return reply;
  const { db, intents, clocks } = kit.deps;
  const [balances, payments] = await Promise.all([listBalances(db, at.scope), intents.list(at.scope, { limit: 10 })]);
  let clock: Html | undefined;
  if (at.scope.environment === 'test' && session.user.role !== 'viewer') {
    const offset = await clocks.sandboxOffsetMs(session.user.merchantId);
    clock = clockForm(session, isoTime(clocks.base.nowMs() + offset));
  }
  const prices = pricesSection({
    rates: kit.deps.config.rates,
    snapshot: kit.deps.rates.snapshot(),
    freshness: kit.deps.rates.freshness(),
    nowMs: clocks.base.nowMs(),
  });
  const liveMethods = liveMethodsOf(kit.deps.config);
  const volume = await paidVolumeCached(kit, at.scope, at.ctx.timeZone!);
  return kit.send(reply, 200, homePage(at.ctx, { balances, payments: payments.data, volume, clock, prices, liveMethods }));
}

/** One payment's page, with a notice or an error (and its status) after an action on it. */
export async function paymentDetail(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ConsoleSession,
  id: string,
  extra: { notice?: string; error?: string; status?: number } = {},
) {
  const at = await kit.envScope(request, reply, session, `/console/payments/${id}`);
  if (!at) return reply;
  const { db, intents, webhooks } = kit.deps;
  let payment: PaymentIntent;
  try {
    payment = await intents.get(at.scope, id);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const where = `in the ${at.scope.environment === 'test' ? 'test' : 'live'} environment`;
    return kit.send(reply, 404, messagePage(at.ctx, 'No such payment', `There is no payment ${id} ${where}.`));
  }
  const eventIds = await repo.eventIdsOfIntent(db, at.scope, id);
  const events = (await Promise.all(eventIds.map((e) => webhooks.getEvent(at.scope, e)))) as unknown as TimelineEvent[];
  const [attempts, rails] = await Promise.all([repo.attemptsOfIntent(db, id), repo.railPaymentsOfIntent(db, id)]);
  const canDrive = at.scope.environment === 'test' && session.user.role !== 'viewer';
  const canPinRefund = session.user.role === 'owner' && payment.status === 'paid' && payment.payment_method === 'service_balance';
  return kit.send(
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

async function payment(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const id = (request.params as { id: string }).id;
  return paymentDetail(kit, request, reply, session, id);
}

/** A balance refund with the transaction PIN (owners only): the refund service's own rules, done at once. */
async function refundWithPin(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  const id = (request.params as { id: string }).id;
  const at = await kit.actingScope(request, reply, a.session, `/console/payments/${id}`);
  if (!at) return reply;
  const { scope } = at;
  try {
    if (a.form['confirm'] !== 'yes') {
      throw new ConsoleError(400, 'Tick the box to confirm the refund: nothing was refunded.');
    }
    await kit.deps.console.checkPin(a.session, (a.form['pin'] ?? '').trim(), request.ip);
    const refund = await kit.deps.refunds.refundBalancePayment(scope, id);
    await kit.audit(a.session, request, 'refund.created', refund.id, { payment_intent: id, via: 'pin' });
  } catch (err) {
    if (!(err instanceof ConsoleError) && !(err instanceof AppError)) throw err;
    return paymentDetail(kit, request, reply, a.session, id, { error: err.message, status: err.status });
  }
  return kit.done(
    request,
    reply,
    `/console/payments/${encodeURIComponent(id)}?env=${scope.environment}`,
    'Refunded: the customer has the money back.',
  );
}

export function registerPaymentRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console', CONSOLE_ROUTE, (request, reply) => home(kit, request, reply));
  app.get('/console/payments/:id', CONSOLE_ROUTE, (request, reply) => payment(kit, request, reply));
  app.post('/console/payments/:id/refund', CONSOLE_ROUTE, (request, reply) => refundWithPin(kit, request, reply));
}
