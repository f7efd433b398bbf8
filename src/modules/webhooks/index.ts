import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppDeps } from '../../app.js';
import { endpointRoutes } from './endpoints.routes.js';
import { triggerRoutes } from './trigger.routes.js';
import { webhookEventRoutes } from './webhook-events.routes.js';

export const webhookRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  await app.register(endpointRoutes, { deps });
  await app.register(webhookEventRoutes, { deps });
  await app.register(triggerRoutes, { deps });
};

export { DELIVERY_CHANNEL, deliveryBell } from './enqueue.js';
export { claimDueDeliveries, nextDueAt, recordOutcomes, type AttemptOutcome, type ClaimedAttempt } from './deliveries.repo.js';
export { deliveryHeaders, serviceSignature, standardSignature, SECRET_PREFIX } from './signing.js';
export { MAX_ATTEMPTS, RETRY_WAITS_MS, retryDelayMs, parseRetryAfter } from './retry-schedule.js';
export { WebhookSender } from './sender.js';
export { isPublicAddress, publicOnlyLookup, urlPolicy, assertEndpointUrl, type UrlPolicy } from './url-safety.js';
