import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { DecimalString, IdParams, Metadata, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { paymentLinkProperties } from './payment-link.view.js';
import type { LinkService } from './payment-links.service.js';

export const PaymentLinkResponse = withMeta(paymentLinkProperties, { title: 'PaymentLinkResponse' });

const CreateLinkBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Shown to the customer, and the description of every intent minted' }),
    currency: Type.String({ maxLength: 10, description: 'KES, USD, EUR, GBP, NGN, TZS, GHS, ZAR, UGX or RWF' }),
    amount: Type.Optional(DecimalString('Fiat amount; omit so that the customer enters it')),
    settlement_currency: Type.Optional(Type.String({ maxLength: 10, default: 'USDT', description: 'USDT (default), USDC, BTC, ETH or SOL' })),
    max_payments: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Cap on paid payments; omit for no cap' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the link stops minting intents (must be in the future)' })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const paymentLinkRoutes: FastifyPluginAsyncTypebox<{ links: LinkService }> = async (app, { links }) => {

  app.post(
    '/payment-links',
    {
      config: { scopes: ['payment_links:write', 'checkout:write'] },
      schema: {
        summary: 'Create a payment link',
        tags: ['Payment links'],
        body: CreateLinkBody,
        response: { 201: PaymentLinkResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const link = await links.create(requireAuth(request), request.body);
      return reply.code(201).send(withResponseMeta(request, link));
    },
  );

  app.get(
    '/payment-links/:id',
    {
      config: { scopes: ['payment_links:read', 'payments:read'] },
      schema: {
        summary: 'Retrieve a payment link',
        tags: ['Payment links'],
        params: IdParams,
        response: { 200: PaymentLinkResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await links.get(requireAuth(request), request.params.id)),
  );
};
