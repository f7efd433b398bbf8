// Home and payments: balances and the latest payments (with the sandbox clock), the payments of an
// environment (search, status filter, paging), one payment's page, and the owner's refund of a balance
// payment with the transaction PIN.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { liveMethodsOf } from '../../../config.js';
import { isoTime } from '../../../shared/clock.js';
import { AppError } from '../../../shared/errors.js';
import { isIdOf } from '../../../shared/ids.js';
import type { MerchantScope } from '../../../shared/scope.js';
import { listBalances } from '../../balances/index.js';
import type { IntentStatus, PaymentIntent } from '../../payment-intents/index.js';
import { ConsoleError, type ConsoleSession } from '../console-auth.service.js';
import * as repo from '../console.repo.js';
import { clockForm, homePage } from '../pages/home-page.js';
import { messagePage, type Html } from '../pages/layout.js';
import { pricesSection } from '../pages/prices-section.js';
import { paymentPage, type TimelineEvent } from '../pages/payment-page.js';
import { paymentsPage, STATUS_FILTERS } from '../pages/payments-page.js';
import { CONSOLE_ROUTE, type ConsoleKit } from './shared.routes.js';

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
  return kit.send(reply, 200, homePage(at.ctx, { balances, payments: payments.data, clock, prices, liveMethods }));
}

/** An id opens its payment; anything else is looked up as a merchant reference. */
async function searchPayments(kit: ConsoleKit, scope: MerchantScope, search: string): Promise<PaymentIntent[]> {
  if (isIdOf('payment_intent', search)) {
    try {
      return [await kit.deps.intents.get(scope, search)];
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return [];
    }
  }
  const ids = await repo.intentIdsByReference(kit.deps.db, scope, search.slice(0, 255));
  return Promise.all(ids.map((id) => kit.deps.intents.get(scope, id)));
}

async function payments(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console/payments');
  if (!at) return reply;
  const q = request.query as { status?: string; q?: string; after?: string };
  const status = q.status && STATUS_FILTERS.includes(q.status) ? q.status : undefined;
  const search = (q.q ?? '').trim();
  let found: PaymentIntent[] = [];
  let next: string | undefined;
  if (search) {
    found = await searchPayments(kit, at.scope, search);
    if (status) found = found.filter((p) => p.status === status);
  } else {
    const after = q.after && isIdOf('payment_intent', q.after) ? q.after : undefined;
    const page = await kit.deps.intents.list(at.scope, { limit: 25, startingAfter: after, status: status as IntentStatus | undefined });
    found = page.data;
    if (page.has_more) next = page.data.at(-1)?.id;
  }
  return kit.send(reply, 200, paymentsPage(at.ctx, { payments: found, status, q: search, next }));
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
  const done = (request.query as { done?: string }).done;
  const notice =
    done === 'refunded' ? 'Refunded: the payment is refunded.' : done ? `Outcome applied: ${done.replace('_', ' ')}.` : undefined;
  return paymentDetail(kit, request, reply, session, id, notice ? { notice } : {});
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
    await kit.deps.console.checkPin(a.session, (a.form['pin'] ?? '').trim(), request.ip);
    const refund = await kit.deps.refunds.refundBalancePayment(scope, id);
    await kit.audit(a.session, request, 'refund.created', refund.id, { payment_intent: id, via: 'pin' });
  } catch (err) {
    if (!(err instanceof ConsoleError) && !(err instanceof AppError)) throw err;
    return paymentDetail(kit, request, reply, a.session, id, { error: err.message, status: err.status });
  }
  return reply
    .code(303)
    .header('location', `/console/payments/${encodeURIComponent(id)}?env=${scope.environment}&done=refunded`)
    .send();
}

export function registerPaymentRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console', CONSOLE_ROUTE, (request, reply) => home(kit, request, reply));
  app.get('/console/payments', CONSOLE_ROUTE, (request, reply) => payments(kit, request, reply));
  app.get('/console/payments/:id', CONSOLE_ROUTE, (request, reply) => payment(kit, request, reply));
  app.post('/console/payments/:id/refund', CONSOLE_ROUTE, (request, reply) => refundWithPin(kit, request, reply));
}
