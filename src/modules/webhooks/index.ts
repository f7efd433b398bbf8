export { WebhookService, MAX_ENDPOINTS, type WebhookServiceDeps } from './webhooks.service.js';
export { checkEndpointSecrets, resealEndpointSecrets } from './endpoint-secrets.js';
export { WebhookEndpointRecord, WebhookEventRecord, type WebhookEndpoint, type WebhookEvent } from './webhook.schema.js';
export {
  claimDueDeliveries,
  countPendingDeliveries,
  nextDueAt,
  recordOutcomes,
  type AttemptOutcome,
  type ClaimedAttempt,
} from './deliveries.repo.js';
export { deliveryHeaders, serviceSignature, standardSignature, SECRET_PREFIX } from './signing.js';
export { MAX_ATTEMPTS, RETRY_WAITS_MS, retryDelayMs, parseRetryAfter } from './retry-schedule.js';
export { WebhookSender } from './sender.js';
export { isPublicAddress, publicOnlyLookup, urlPolicy, assertEndpointUrl, type UrlPolicy } from './url-safety.js';
export { DELIVERY_CHANNEL, addEventsWithDeliveries, enqueueDeliveriesStatement, type LeadingInsert } from './delivery-queue.repo.js';
