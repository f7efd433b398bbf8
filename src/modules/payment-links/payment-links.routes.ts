import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { IdParams, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { CreateLinkBody, paymentLinkProperties } from './payment-link.schema.js';
import type { LinkService } from './payment-links.service.js';

export const PaymentLinkResponse = withMeta(paymentLinkProperties, { title: 'PaymentLinkResponse' });

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
