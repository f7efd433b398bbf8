import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, metaProperties, withMeta } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { EVENT_TYPES } from '../../shared/event-types.js';
import { DeliveryWithAttempts, WebhookEventRecord, webhookEventProperties } from './webhook.schema.js';
import type { Resent, WebhookService } from './webhooks.service.js';

export const webhookEventRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  app.get(
    '/webhook_events',
    {
      config: { scopes: ['webhooks:read'] },
      schema: {
        summary: 'List emitted events',
        description: 'Events of this environment, newest first, each with its deliveries (without their attempts).',
        tags: ['Webhooks'],
        querystring: listQuerySchema(20, 100, {
          type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type' })),
        }),
        response: { 200: ListOf(WebhookEventRecord, { title: 'WebhookEventList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await webhooks.listEvents(requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, type: q.type });
      return withResponseMeta(request, page);
    },
  );

  app.get(
    '/webhook_events/:id',
    {
      config: { scopes: ['webhooks:read'] },
      schema: {
        summary: 'Retrieve an emitted event',
        description: 'The event with its deliveries and every attempt of each (time, status code, duration, error).',
        tags: ['Webhooks'],
        params: IdParams,
        response: {
          200: withMeta(webhookEventProperties(DeliveryWithAttempts), { title: 'WebhookEventResponse' }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => withResponseMeta(request, await webhooks.getEvent(requireAuth(request), request.params.id)),
  );

  app.post(
    '/webhook_events/:id/resend',
    {
      config: { scopes: ['webhooks:write'] },
      schema: {
        summary: 'Resend an event',
        description:
          'Enqueues a new delivery of the event, with the same id and body, to every enabled endpoint that subscribes to its type. `resent` counts them.',
        tags: ['Webhooks'],
        params: IdParams,
        response: {
          200: Type.Object(
            { object: Type.Literal('webhook_event'), id: Type.String(), resent: Type.Integer({ minimum: 0 }), ...metaProperties },
            { title: 'WebhookEventResent' },
          ),
          ...errorResponses(401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const respond = (resent: Resent) => withResponseMeta(request, resent);
      return respond(await webhooks.resendEvent(requireAuth(request), request.params.id, idempotentResponse(request, reply, 200, respond)));
    },
  );
};
