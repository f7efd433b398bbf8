// PayPal's ways back to Cowrie, at the origin of every listener and without a key: the customer's return
// (`GET /rails/paypal/return?token=<order id>`: the order is captured, then 303 to the checkout, or back to
// PayPal's approval after INSTRUMENT_DECLINED), the cancel URL (`GET /rails/paypal/cancel?token=…`: a failed
// attempt `customer_cancelled`) and the webhook (`POST /rails/paypal/webhook`, read as the bytes received,
// which go to PayPal's signature check as they came).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PaypalRail } from './paypal-rail.js';
import type { PaypalWebhooks } from './paypal-webhooks.js';

export interface PaypalRouteDeps {
  rail: PaypalRail | null;
  webhooks: PaypalWebhooks | null;
}

const BackQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 64 })),
  PayerID: Type.Optional(Type.String({ maxLength: 64 })),
});
const unknownOrder = 'Unknown PayPal order.';

export const paypalRoutes: FastifyPluginAsyncTypebox<PaypalRouteDeps> = async (app, { rail, webhooks }) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.get(
    '/rails/paypal/return',
    { config: { access: 'public' }, schema: { hide: true, querystring: BackQuery } },
    async (request, reply) => {
      const back = rail && request.query.token ? await rail.hint(request.query.token) : null;
      if (!back) return reply.code(404).type('text/plain; charset=utf-8').send(unknownOrder);
      return reply
        .code(303)
        .header('location', back.approveAgain ?? `/checkout/${back.intentId}`)
        .send();
    },
  );

  app.get(
    '/rails/paypal/cancel',
    { config: { access: 'public' }, schema: { hide: true, querystring: BackQuery } },
    async (request, reply) => {
      const back = rail && request.query.token ? await rail.cancelled(request.query.token) : null;
      if (!back) return reply.code(404).type('text/plain; charset=utf-8').send(unknownOrder);
      return reply.code(303).header('location', `/checkout/${back.intentId}`).send();
    },
  );

  app.post('/rails/paypal/webhook', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    if (!webhooks) return reply.code(404).send({ received: false, error: 'PayPal payments are not configured' });
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const { answer } = await webhooks.receive(raw, request.headers);
    return reply.code(answer.status).send(answer.body);
  });
};
