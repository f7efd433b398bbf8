// The step to the card provider's own page (live card payments through Paystack): the checkout's pay action
// recorded the attempt and got Paystack's authorization_url; the page's script comes here, and this answers
// 303 to that URL. The checkout's Content-Security-Policy allows forms to post only to its own origin, so
// the way out to Paystack is this navigation, not a form's redirect.
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { loadCheckout } from '../checkout.service.js';
import { PUBLIC_ROUTE, securityHeaders, type CheckoutApp, type CheckoutKit, type RequestOf } from './shared.routes.js';

const CardParams = Type.Object({ id: Type.String({ maxLength: 80 }), attempt: Type.String({ maxLength: 80 }) });
const CardSchema = { hide: true, params: CardParams };

async function toProvider(kit: CheckoutKit, request: RequestOf<typeof CardSchema>, reply: FastifyReply) {
  const c = await loadCheckout(kit.deps, request.environment, request.params.id);
  if (!c) return kit.notFoundPage(request, reply);
  const a = c.attempt;
  const url =
    a && a.id === request.params.attempt && a.method === 'card' && a.state === 'pending'
      ? (JSON.parse(a.details) as { authorization_url?: string }).authorization_url
      : undefined;
  // An attempt that is over (or another one) goes back to the checkout, which says what happened.
  return securityHeaders(reply)
    .code(303)
    .header('location', url ?? `/checkout/${c.row.id}`)
    .send();
}

export function registerCardRoutes(app: CheckoutApp, kit: CheckoutKit): void {
  app.get('/checkout/:id/card/:attempt', { ...PUBLIC_ROUTE, schema: CardSchema }, (request, reply) => toProvider(kit, request, reply));
}
