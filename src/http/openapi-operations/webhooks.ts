// The operation table's rows for webhook endpoints, webhook events and the event feed.
import { META, list, single, type OperationDoc } from './common.js';
import { PAID_INTENT } from './payments.js';

const WEBHOOK_ENDPOINT = {
  id: 'we_0VbxkE5RMSo9W7hQxvGBFIQb',
  object: 'webhook_endpoint',
  url: 'https://shop.example/webhooks/cowrie',
  events: ['payment_intent.paid', 'refund.created'],
  status: 'enabled',
  created_at: '2026-06-15T06:10:38.953Z',
  livemode: false,
};

const DELIVERY = {
  id: 'whd_0VbxkEAY0d2a57382cd4a31a',
  object: 'webhook_delivery',
  endpoint: 'we_0VbxkE5RMSo9W7hQxvGBFIQb',
  url: 'https://shop.example/webhooks/cowrie',
  status: 'succeeded',
  attempt_count: 1,
  next_attempt_at: null,
  last_attempt_at: '2026-06-15T06:12:04.271Z',
  last_status_code: 200,
  last_error: null,
  created_at: '2026-06-15T06:12:04.270Z',
  completed_at: '2026-06-15T06:12:04.281Z',
};
const WEBHOOK_EVENT = {
  id: 'evt_0VbxkEAY1Dx5N0HO3V2ki6mM',
  object: 'webhook_event',
  type: 'payment_intent.paid',
  api_version: '2026-06-01',
  created_at: '2026-06-15T06:12:04.269Z',
  livemode: false,
  data: { ...PAID_INTENT, settlement_status: 'pending', settlement_available_at: '2026-06-18T06:12:04.269Z' },
};

export const WEBHOOK_OPERATIONS: Record<string, OperationDoc> = {
  // Webhook endpoints
  'POST /webhook_endpoints': {
    operationId: 'createWebhookEndpoint',
    description: 'Registers an https URL to receive the events listed (every event when `events` is omitted).',
    requestExample: { url: 'https://shop.example/webhooks/cowrie', events: ['payment_intent.paid', 'refund.created'] },
    responseExample: single({ ...WEBHOOK_ENDPOINT, secret: 'cwk_whsec_EYUFbmqwH3w7am5ChC0n2sKOR9ta0iMR' }, 'req_0VbxkE5Oq7d7vACdkZW07vQM'),
  },
  'GET /webhook_endpoints': {
    operationId: 'listWebhookEndpoints',
    description: 'Every webhook endpoint of this environment, newest first.',
    responseExample: list([WEBHOOK_ENDPOINT], 'req_0VbxkE5UtoXSpZiuc2PCMasV', undefined),
  },
  'GET /webhook_endpoints/{id}': {
    operationId: 'retrieveWebhookEndpoint',
    description: 'One webhook endpoint by its `we_` id (its secret is shown only at creation).',
    responseExample: single(WEBHOOK_ENDPOINT, 'req_0VbxkE5XK9LSsW43TKQnsJ0O'),
  },
  'POST /webhook_endpoints/{id}': {
    operationId: 'updateWebhookEndpoint',
    description: 'Changes the URL or the events of an endpoint; fields not sent are kept. The signing secret stays the same.',
    requestExample: { url: 'https://shop.example/webhooks/cowrie-v2', events: ['payment_intent.paid', 'refund.updated'] },
    responseExample: single(
      { ...WEBHOOK_ENDPOINT, url: 'https://shop.example/webhooks/cowrie-v2', events: ['payment_intent.paid', 'refund.updated'] },
      'req_0Vbxm1dU5yWq1c8rh1Lr4tR2',
    ),
  },
  'DELETE /webhook_endpoints/{id}': {
    operationId: 'deleteWebhookEndpoint',
    description: 'Deletes a webhook endpoint and stops its deliveries.',
    responseExample: {
      id: WEBHOOK_ENDPOINT.id,
      object: 'webhook_endpoint',
      deleted: true,
      request_id: 'req_0VbxkEqivaF76JuWBcSFgpiv',
      ...META,
    },
  },

  // Webhook events and the event feed
  'GET /webhook_events': {
    operationId: 'listWebhookEvents',
    description: 'Events of this environment, newest first, each with its deliveries.',
    responseExample: list([{ ...WEBHOOK_EVENT, deliveries: [DELIVERY] }], 'req_0VbxkEp4tWewuluH2m3hBNEM', true),
  },
  'GET /webhook_events/{id}': {
    operationId: 'retrieveWebhookEvent',
    description: 'One event with its deliveries and every attempt of each.',
    responseExample: single(
      {
        ...WEBHOOK_EVENT,
        deliveries: [
          {
            ...DELIVERY,
            attempts: [
              {
                id: 'wha_0VbxkEAZ862ab8dbcf431ad5',
                object: 'webhook_attempt',
                attempt: 1,
                url: 'https://shop.example/webhooks/cowrie',
                outcome: 'succeeded',
                status_code: 200,
                error: null,
                duration_ms: 9,
                started_at: '2026-06-15T06:12:04.271Z',
                finished_at: '2026-06-15T06:12:04.281Z',
              },
            ],
          },
        ],
      },
      'req_0VbxkEpWKKD6U9ARQEPjAMbn',
    ),
  },
  'POST /webhook_events/{id}/resend': {
    operationId: 'resendWebhookEvent',
    description: 'Delivers the event again, with the same id and body, to the endpoints subscribed to it.',
    responseExample: { object: 'webhook_event', id: WEBHOOK_EVENT.id, resent: 1, request_id: 'req_0VbxkEptRF7rHBGRxeGaF4O9', ...META },
  },
  'GET /events': {
    operationId: 'listEvents',
    description: 'The event feed: the newest events, or with `after` the events that followed one, oldest first.',
    responseExample: list(
      [
        {
          ...WEBHOOK_EVENT,
          object: 'event',
          data: { ...PAID_INTENT, settlement_status: 'pending', settlement_available_at: '2026-06-18T06:12:04.269Z' },
        },
      ],
      'req_0VbxkEq1mXNC2NI056HYH5St',
      true,
    ),
  },
};
