import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta, withResponseMetaText } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { StringEnum } from '../../shared/schema.js';
import {
  CreateIntentBody,
  INTENT_STATUSES,
  PaymentIntentRecord,
  paymentIntentProperties,
  type PaymentIntent,
} from './payment-intent.schema.js';
import { viewJsonOf, type IntentService } from './payment-intents.service.js';

export const PaymentIntentResponse = withMeta(paymentIntentProperties, { title: 'PaymentIntentResponse' });

export const paymentIntentRoutes: FastifyPluginAsyncTypebox<{ intents: IntentService }> = async (app, { intents }) => {
  app.post(
    '/payment-intents',
    {
      config: { scopes: ['payments:write'] },
      schema: {
        summary: 'Create a payment intent',
        tags: ['Payment intents'],
        body: CreateIntentBody,
        response: { 201: PaymentIntentResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      // The view's JSON text, written once for the creation event, is the body too.
      const respond = (intent: PaymentIntent) => {
        const json = viewJsonOf(intent);
        return json === undefined ? withResponseMeta(request, intent) : withResponseMetaText(request, json);
      };
      const intent = await intents.create(requireAuth(request), request.body, idempotentResponse(request, reply, 201, respond));
      const body = respond(intent);
      if (typeof body !== 'string') return reply.code(201).send(body);
      // JSON text of the schema's object (the type provider types only the object).
      return reply
        .code(201)
        .type('application/json; charset=utf-8')
        .send(body as never);
    },
  );

  app.get(
    '/payment-intents',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'List payment intents',
        tags: ['Payment intents'],
        querystring: listQuerySchema(20, 100, { status: Type.Optional(StringEnum(INTENT_STATUSES)) }),
        response: { 200: ListOf(PaymentIntentRecord, { title: 'PaymentIntentList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await intents.list(requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, status: q.status });
      return withResponseMeta(request, page);
    },
  );

  app.get(
    '/payment-intents/:id',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Retrieve a payment intent',
        tags: ['Payment intents'],
        params: IdParams,
        response: { 200: PaymentIntentResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await intents.get(requireAuth(request), request.params.id)),
  );

  app.post(
    '/payment-intents/:id/cancel',
    {
      config: { scopes: ['payments:write'] },
      schema: {
        summary: 'Cancel a payment intent',
        description: 'Only while the intent is awaiting payment; otherwise 409 intent_not_cancelable.',
        tags: ['Payment intents'],
        params: IdParams,
        response: { 200: PaymentIntentResponse, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const respond = (intent: PaymentIntent) => withResponseMeta(request, intent);
      const id = request.params.id;
      return respond(await intents.cancel(requireAuth(request), id, idempotentResponse(request, reply, 200, respond)));
    },
  );
};
