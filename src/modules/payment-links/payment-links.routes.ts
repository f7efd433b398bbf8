import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { StringEnum } from '../../shared/schema.js';
import { CreateLinkBody, PaymentLinkRecord, UpdateLinkBody, paymentLinkProperties, type PaymentLink } from './payment-link.schema.js';
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
      const respond = (l: PaymentLink) => withResponseMeta(request, l);
      const link = await links.create(requireAuth(request), request.body, idempotentResponse(request, reply, 201, respond));
      return reply.code(201).send(respond(link));
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

  app.get(
    '/payment-links',
    {
      config: { scopes: ['payment_links:read', 'payments:read'] },
      schema: {
        summary: 'List payment links',
        description: 'Newest first. `active=true` lists only links that are not deactivated, `active=false` only deactivated ones.',
        tags: ['Payment links'],
        querystring: listQuerySchema(20, 100, { active: Type.Optional(StringEnum(['true', 'false'] as const)) }),
        response: { 200: ListOf(PaymentLinkRecord, { title: 'PaymentLinkList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const active = q.active === undefined ? undefined : q.active === 'true';
      const page = await links.list(requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, active });
      return withResponseMeta(request, page);
    },
  );

  app.post(
    '/payment-links/:id',
    {
      config: { scopes: ['payment_links:write', 'checkout:write'] },
      schema: {
        summary: 'Update a payment link',
        description:
          'Changes the fields sent and keeps the others; `null` clears `amount` (the customer enters it), `max_payments` (no cap) and `expires_at` (never). `active: false` deactivates the link. Intents already minted keep what they were minted with.',
        tags: ['Payment links'],
        params: IdParams,
        body: UpdateLinkBody,
        response: { 200: PaymentLinkResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const respond = (l: PaymentLink) => withResponseMeta(request, l);
      const commitWith = idempotentResponse(request, reply, 200, respond);
      return respond(await links.update(requireAuth(request), request.params.id, request.body, commitWith));
    },
  );
};
