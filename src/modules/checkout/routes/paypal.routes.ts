// PayPal's approval. In the sandbox, the simulated page the customer is sent to, and its answer (approve or
// cancel); live, the checkout's step answers 303 to the order's approval link at PayPal (the checkout's CSP
// keeps forms on its own origin, so the way out is this navigation).
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../shared/errors.js';
import { paypalPage } from '../checkout-page.js';
import { customerError, loadCheckout } from '../checkout.service.js';
import { PUBLIC_ROUTE, securityHeaders, type CheckoutApp, type CheckoutKit, type RequestOf } from './shared.routes.js';

const PaypalParams = Type.Object({ id: Type.String({ maxLength: 80 }), ref: Type.String({ maxLength: 80 }) });
const ApprovalBody = Type.Object({ approve: Type.Boolean() }, { additionalProperties: false });

const PaypalSchema = { hide: true, params: PaypalParams };
const ApprovalSchema = { hide: true, params: PaypalParams, body: ApprovalBody };

/** Live: 303 to PayPal's approval link of a pending attempt; an attempt that is over goes back to the checkout. */
async function toPaypal(kit: CheckoutKit, request: RequestOf<typeof PaypalSchema>, reply: FastifyReply) {
  const c = await loadCheckout(kit.deps, request.environment, request.params.id);
  if (!c) return kit.notFoundPage(request, reply);
  const a = c.attempt;
  const url =
    a && a.id === request.params.ref && a.method === 'paypal' && a.state === 'pending'
      ? (JSON.parse(a.details) as { approve_url?: string }).approve_url
      : undefined;
  return securityHeaders(reply)
    .code(303)
    .header('location', url ?? `/checkout/${c.row.id}`)
    .send();
}

async function showApproval(kit: CheckoutKit, request: RequestOf<typeof PaypalSchema>, reply: FastifyReply) {
  if (request.environment === 'live') return toPaypal(kit, request, reply);
  return kit.servePage(request, reply, request.params.id, (c, token, base) =>
    paypalPage(c, { assets: kit.assets, token, approveUrl: `${base}/paypal/${encodeURIComponent(request.params.ref)}`, backUrl: base }),
  );
}

async function answerApproval(kit: CheckoutKit, request: RequestOf<typeof ApprovalSchema>, reply: FastifyReply) {
  const c = await kit.requireCheckout(request, request.params.id);
  await kit.tokens.check(request, c.row.id);
  securityHeaders(reply);
  const rail = kit.deps.rails.railFor(c.row.environment, 'paypal');
  if (!rail?.approve) throw new AppError('payment_method_unavailable', 'PayPal is not available for this payment.', { param: 'method' });
  const scope = { merchantId: c.row.merchant_id, environment: c.row.environment };
  try {
    await rail.approve(scope, request.params.ref, request.body.approve);
  } catch (err) {
    throw customerError(err, c.merchantName);
  }
  return { redirect: `/checkout/${c.row.id}` };
}

export function registerPaypalRoutes(app: CheckoutApp, kit: CheckoutKit): void {
  app.get('/checkout/:id/paypal/:ref', { ...PUBLIC_ROUTE, schema: PaypalSchema }, (request, reply) => showApproval(kit, request, reply));
  app.post('/checkout/:id/paypal/:ref', { ...PUBLIC_ROUTE, schema: ApprovalSchema }, (request, reply) =>
    answerApproval(kit, request, reply),
  );
}
