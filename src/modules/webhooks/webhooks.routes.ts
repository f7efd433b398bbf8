// The webhooks module's HTTP routes: endpoints (create, list, update, delete, rotate) and webhook events.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { endpointRoutes } from './endpoints.routes.js';
import { webhookEventRoutes } from './webhook-events.routes.js';
import type { WebhookService } from './webhooks.service.js';

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  await app.register(endpointRoutes, { webhooks });
  await app.register(webhookEventRoutes, { webhooks });
};
