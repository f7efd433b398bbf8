// Paystack's two ways back to Cowrie, at the origin of every listener and without a key: the customer's
// return from Paystack's page (`GET /rails/paystack/return?reference=…`, then 303 to the checkout, which
// shows the outcome verify gave), and the signed webhook (`POST /rails/paystack/webhook`, read as raw bytes,
// since the signature is over the body exactly as sent).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CardRail } from './card-rail.js';
import type { PaystackWebhooks } from './paystack-webhooks.js';

export interface PaystackRouteDeps {
  rail: CardRail | null;
  webhooks: PaystackWebhooks | null;
}

export const paystackRoutes: FastifyPluginAsyncTypebox<PaystackRouteDeps> = async (app, { rail, webhooks }) => {
  // In this plugin only: JSON bodies stay the bytes Paystack signed.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.get(
    '/rails/paystack/return',
    {
      config: { access: 'public' },
      schema: {
        hide: true,
        querystring: Type.Object({
          reference: Type.Optional(Type.String({ maxLength: 100 })),
          trxref: Type.Optional(Type.String({ maxLength: 100 })),
        }),
      },
    },
    async (request, reply) => {
      const reference = request.query.reference ?? request.query.trxref ?? '';
      const row = rail ? await rail.hint(reference, true) : null;
      if (!row) return reply.code(404).type('text/plain; charset=utf-8').send('Unknown payment reference.');
      return reply.code(303).header('location', `/checkout/${row.payment_intent_id}`).send();
    },
  );

  app.post('/rails/paystack/webhook', { config: { access: 'public' }, schema: { hide: true } }, async (request, reply) => {
    if (!webhooks) return reply.code(404).send({ received: false, error: 'Card payments are not configured' });
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const header = request.headers['x-paystack-signature'];
    const { answer } = webhooks.receive(raw, typeof header === 'string' ? header : undefined);
    return reply.code(answer.status).send(answer.body);
  });
};
