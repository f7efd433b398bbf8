// The hosted checkout at every intent's checkout_url, its public status and pay actions, the simulated
// PayPal approval page, the step to a card provider's page, and payment link pages (/pay/:id). Public routes (no key): each is reached only
// through an unguessable id, shows nothing the page does not, and every action needs the page's
// anti-forgery token. Pages carry a strict Content-Security-Policy.
//
// Each area's routes live in routes/<area>.routes.ts; routes/shared.routes.ts holds what they all use.
// They are registered here, in this order,.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { acceptForms } from '../../http/forms.js';
import { registerCardRoutes } from './routes/card.routes.js';
import { registerIntentRoutes } from './routes/intent.routes.js';
import { registerLinkRoutes } from './routes/link.routes.js';
import { registerPaypalRoutes } from './routes/paypal.routes.js';
import { checkoutKit, type CheckoutRouteDeps } from './routes/shared.routes.js';

export { CHECKOUT_CSP, type CheckoutRouteDeps } from './routes/shared.routes.js';

export const checkoutRoutes: FastifyPluginAsyncTypebox<{ deps: CheckoutRouteDeps }> = async (app, { deps }) => {
  await acceptForms(app as unknown as FastifyInstance);
  const kit = await checkoutKit(app, deps);
  registerIntentRoutes(app, kit);
  registerPaypalRoutes(app, kit);
  registerCardRoutes(app, kit);
  registerLinkRoutes(app, kit);
};
