// Sandbox tools (developers and owners): the payment driver on a test payment's page and the sandbox clock
// on the home page, through the same code path as the API's sandbox helpers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import type { PaymentMethod, PaymentOutcome } from '../../payment-intents/index.js';
import { messagePage } from '../pages/layout.js';
import { DRIVER_METHODS, DRIVER_OUTCOMES } from '../pages/payment-page.js';
import { paymentDetail } from './payments.routes.js';
import { CONSOLE_ROUTE, type ConsoleKit } from './shared.routes.js';

async function drivePayment(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role === 'viewer') return kit.forbidden(request, reply, a.session);
  const id = (request.params as { id: string }).id;
  const outcome = a.form['outcome'] ?? '';
  const method = a.form['payment_method'] ?? '';
  const scope = { merchantId: a.session.user.merchantId, environment: 'test' as const };
  try {
    if (!DRIVER_OUTCOMES.includes(outcome)) throw new AppError('parameter_invalid', 'Choose an outcome.', { param: 'outcome' });
    if (!DRIVER_METHODS.includes(method)) throw new AppError('parameter_invalid', 'Choose a payment method.', { param: 'payment_method' });
    await kit.deps.sandbox.simulate(scope, id, { outcome: outcome as PaymentOutcome, payment_method: method as PaymentMethod });
    await kit.audit(a.session, request, 'sandbox.payment_driven', id, { outcome, payment_method: method });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return paymentDetail(kit, request, reply, a.session, id, { error: err.message, status: err.status });
  }
  return kit.done(
    request,
    reply,
    `/console/payments/${encodeURIComponent(id)}?env=test`,
    `Outcome applied: ${outcome.replace(/_/g, ' ')}.`,
  );
}

async function advanceClock(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role === 'viewer') return kit.forbidden(request, reply, a.session);
  const scope = { merchantId: a.session.user.merchantId, environment: 'test' as const };
  const text = (a.form['seconds'] ?? '').trim();
  try {
    const seconds = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
    await kit.deps.sandbox.advanceClock(scope, seconds);
    await kit.audit(a.session, request, 'sandbox.clock_advanced', null, { seconds });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, 400, messagePage(await kit.context(request, a.session, '/console'), 'Sandbox clock', err.message));
  }
  return kit.done(request, reply, '/console?env=test', `The sandbox clock moved forward ${text} seconds.`);
}

export function registerSandboxRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.post('/console/payments/:id/simulate', CONSOLE_ROUTE, (request, reply) => drivePayment(kit, request, reply));
  app.post('/console/sandbox/clock', CONSOLE_ROUTE, (request, reply) => advanceClock(kit, request, reply));
}
