import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { IdParams, metaProperties, withMeta } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { EVENT_TYPES } from '../../shared/event-types.js';
import { WebhookEndpointRecord, endpointProperties } from './webhook.schema.js';
import type { WebhookEndpoint } from './webhook.schema.js';
import type { WebhookService } from './webhooks.service.js';
import { MAX_URL_LENGTH } from './url-safety.js';

const EndpointResponse = withMeta(endpointProperties, { title: 'WebhookEndpointResponse' });
const CreatedEndpointResponse = withMeta(
  {
    ...endpointProperties,
    secret: Type.String({ description: 'The signing secret, `cwk_whsec_…`. Shown in this response only: keep it.' }),
  },
  { title: 'CreatedWebhookEndpoint' },
);

const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'Where events are POSTed. Live: an https URL whose host resolves to public addresses only. Sandbox: the same, unless the operator set COWRIE_ALLOW_PRIVATE_WEBHOOKS=1.',
});
const EndpointEvents = Type.Array(StringEnum(EVENT_TYPES), {
  maxItems: EVENT_TYPES.length * 2,
  description: 'Event types to send; omitted or empty means every type',
});

const UpdateEndpointBody = Type.Object(
  { url: Type.Optional(EndpointUrl), events: Type.Optional(EndpointEvents) },
  { additionalProperties: false },
);

const CreateEndpointBody = Type.Object({ url: EndpointUrl, events: Type.Optional(EndpointEvents) }, { additionalProperties: false });

const CreateEndpointSchema = {
  summary: 'Create a webhook endpoint',
  description: 'Answers 201 with the endpoint and its signing secret, which is never shown again.',
  tags: ['Webhooks'],
  body: CreateEndpointBody,
  response: { 201: CreatedEndpointResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
};

const ListEndpointsSchema = {
  summary: 'List webhook endpoints',
  description: 'Every endpoint of this environment, newest first (at most 16; no cursor).',
  tags: ['Webhooks'],
  response: {
    200: Type.Object(
      { object: Type.Literal('list'), data: Type.Array(WebhookEndpointRecord), ...metaProperties },
      { title: 'WebhookEndpointList' },
    ),
    ...errorResponses(401, 403, 429),
  },
};

const RetrieveEndpointSchema = {
  summary: 'Retrieve a webhook endpoint',
  tags: ['Webhooks'],
  params: IdParams,
  response: { 200: EndpointResponse, ...errorResponses(401, 403, 404, 429) },
};

const DeleteEndpointSchema = {
  summary: 'Delete a webhook endpoint',
  description: 'Stops all delivery to the endpoint at once: its pending deliveries are cancelled.',
  tags: ['Webhooks'],
  params: IdParams,
  response: {
    200: Type.Object(
      { id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true), ...metaProperties },
      { title: 'DeletedWebhookEndpoint' },
    ),
    ...errorResponses(401, 403, 404, 429),
  },
};

const UpdateEndpointSchema = {
  summary: 'Update a webhook endpoint',
  description:
    'Changes `url` (checked as on creation) and `events` (an empty list means every type). Deliveries not yet made go to the new url; the event types apply to events from now on. The signing secret is unchanged.',
  tags: ['Webhooks'],
  params: IdParams,
  body: UpdateEndpointBody,
  response: { 200: EndpointResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
};

export const endpointRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  app.post('/webhook_endpoints', { config: { scopes: ['webhooks:write'] }, schema: CreateEndpointSchema }, async (request, reply) => {
    const respond = (endpoint: WebhookEndpoint & { secret: string }) => withResponseMeta(request, endpoint);
    const commitWith = idempotentResponse(request, reply, 201, respond, { carriesSecret: true });
    const endpoint = await webhooks.createEndpoint(requireAuth(request), request.body, commitWith);
    return reply.code(201).send(respond(endpoint));
  });

  app.get('/webhook_endpoints', { config: { scopes: ['webhooks:read'] }, schema: ListEndpointsSchema }, async (request) =>
    withResponseMeta(request, await webhooks.listEndpoints(requireAuth(request))),
  );

  app.get('/webhook_endpoints/:id', { config: { scopes: ['webhooks:read'] }, schema: RetrieveEndpointSchema }, async (request) =>
    withResponseMeta(request, await webhooks.getEndpoint(requireAuth(request), request.params.id)),
  );

  app.delete('/webhook_endpoints/:id', { config: { scopes: ['webhooks:write'] }, schema: DeleteEndpointSchema }, async (request) =>
    withResponseMeta(request, await webhooks.deleteEndpoint(requireAuth(request), request.params.id)),
  );

  app.post('/webhook_endpoints/:id', { config: { scopes: ['webhooks:write'] }, schema: UpdateEndpointSchema }, async (request, reply) => {
    const respond = (endpoint: WebhookEndpoint) => withResponseMeta(request, endpoint);
    const commitWith = idempotentResponse(request, reply, 200, respond);
    return respond(await webhooks.updateEndpoint(requireAuth(request), request.params.id, request.body, commitWith));
  });
};
