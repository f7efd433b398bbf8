import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from '../../app.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, RawJsonOf, StringEnum, metaProperties, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { EVENT_TYPES } from '../events/index.js';
import * as service from './webhook-events.service.js';

const nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const time = () => Type.String({ format: 'date-time' });

const AttemptRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `wha_`' }),
    object: Type.Literal('webhook_attempt'),
    attempt: Type.Integer({ description: '1 to 8 within its delivery' }),
    url: Type.String({ description: 'Where this attempt was sent' }),
    outcome: StringEnum(['in_progress', 'succeeded', 'failed', 'interrupted'] as const),
    status_code: nullable(Type.Integer()),
    error: nullable(Type.String()),
    duration_ms: nullable(Type.Integer()),
    started_at: time(),
    finished_at: nullable(time()),
  },
  { title: 'WebhookAttempt' },
);

const deliveryProperties = {
  id: Type.String({ description: 'Identifier, prefix `whd_`' }),
  object: Type.Literal('webhook_delivery'),
  endpoint: Type.String({ description: 'The webhook endpoint id' }),
  url: Type.String({ description: "The endpoint's current URL" }),
  status: StringEnum(['pending', 'succeeded', 'failed', 'cancelled'] as const),
  attempt_count: Type.Integer(),
  next_attempt_at: nullable(time()),
  last_attempt_at: nullable(time()),
  last_status_code: nullable(Type.Integer()),
  last_error: nullable(Type.String()),
  created_at: time(),
  completed_at: nullable(time()),
};
const DeliveryRecord = Type.Object(deliveryProperties, { title: 'WebhookDelivery' });
const DeliveryWithAttempts = Type.Object({ ...deliveryProperties, attempts: Type.Array(AttemptRecord) }, { title: 'WebhookDeliveryWithAttempts' });

function eventProperties(delivery: TSchema) {
  return {
    id: Type.String({ description: 'The event id, prefix `evt_`; the `Service-Event-Id` of every delivery' }),
    object: Type.Literal('webhook_event'),
    type: StringEnum(EVENT_TYPES),
    api_version: Type.String(),
    created_at: time(),
    livemode: Type.Boolean(),
    data: RawJsonOf(Type.Record(Type.String(), Type.Unknown())),
    deliveries: Type.Array(delivery),
  };
}
const WebhookEventRecord = Type.Object(eventProperties(DeliveryRecord), { title: 'WebhookEvent' });

export const webhookEventRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const { db } = deps;

  app.get(
    '/webhook_events',
    {
      config: { scopes: ['webhooks:read'] },
      schema: {
        summary: 'List emitted events',
        description: 'Events of this environment, newest first, each with its deliveries (without their attempts).',
        tags: ['Webhooks'],
        querystring: listQuerySchema(20, 100, { type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only events of this type' })) }),
        response: { 200: ListOf(WebhookEventRecord, { title: 'WebhookEventList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await service.listWebhookEvents(db, requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, type: q.type });
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
        response: { 200: withMeta(eventProperties(DeliveryWithAttempts), { title: 'WebhookEventResponse' }), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await service.getWebhookEvent(db, requireAuth(request), request.params.id)),
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
    async (request) => withResponseMeta(request, await service.resendWebhookEvent(db, requireAuth(request), request.params.id)),
  );
};
