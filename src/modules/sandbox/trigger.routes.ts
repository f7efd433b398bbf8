import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { metaProperties } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { AppError } from '../../shared/errors.js';
import { EVENT_TYPES } from '../events/index.js';
import type { SandboxService } from './sandbox.service.js';
import type { TriggeredEvent } from './trigger.service.js';

export const triggerRoutes: FastifyPluginAsyncTypebox<{ sandbox: SandboxService }> = async (app, { sandbox }) => {
  app.post(
    '/sandbox/webhooks/trigger',
    {
      config: { scopes: ['payments:write'] },
      schema: {
        summary: 'Send a sample event (sandbox)',
        description:
          'Records a sample event of the type, built from your most recent sandbox payment intent (or a synthetic one), and delivers it to your subscribed sandbox endpoints. Changes nothing else.',
        tags: ['Sandbox'],
        body: Type.Object(
          {
            type: Type.Optional(StringEnum(EVENT_TYPES, { default: 'payment_intent.paid', description: 'Default `payment_intent.paid`' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              object: Type.Literal('event_trigger'),
              type: StringEnum(EVENT_TYPES),
              status: Type.Literal('sent'),
              event: Type.String({ description: 'The id of the recorded event' }),
              ...metaProperties,
            },
            { title: 'EventTrigger' },
          ),
          ...errorResponses(400, 401, 403, 409, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const scope = requireAuth(request);
      if (scope.environment !== 'test') {
        throw new AppError('sandbox_only', 'This endpoint exists only in the sandbox; use a cwk_test_ key on the sandbox base URL.');
      }
      const type = request.body.type ?? 'payment_intent.paid';
      const respond = (triggered: TriggeredEvent) => withResponseMeta(request, triggered);
      return respond(await sandbox.trigger(scope.merchantId, type, idempotentResponse(request, reply, 200, respond)));
    },
  );
};
