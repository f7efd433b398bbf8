// One row per operation of the OpenAPI document, keyed by "METHOD /path" as the document spells it (no /v1
// prefix, `{param}` style): its operationId, a description for routes whose schema has none (the scope
// sentence is appended after it by openapi.ts) and the examples of the request body and of the success
// response. openapi.ts applies the table; test/docs.test.ts checks that every documented operation has a
// row and that every example is valid against its operation's schemas. A row whose route does not exist
// (yet) is simply not applied.

export interface OperationDoc {
  /** camelCase, unique across the document. */
  operationId: string;
  /** Used when the route's schema has no description of its own. */
  description: string;
  /** Example of the JSON request body; only for operations that take one. */
  requestExample?: Record<string, unknown>;
  /** Example of the JSON body of the success (2xx) response. */
  responseExample: Record<string, unknown>;
}

const META = { environment: 'test', livemode: false } as const;
/** A single-object response: the resource plus the response metadata. */
function single(resource: Record<string, unknown>, requestId: string): Record<string, unknown> {
  return { ...resource, request_id: requestId, ...META };
}
/** A list response. */
function list(data: Array<Record<string, unknown>>, requestId: string, hasMore: boolean | undefined = false): Record<string, unknown> {
  return { object: 'list', data, ...(hasMore === undefined ? {} : { has_more: hasMore }), request_id: requestId, ...META };
}

const CHECKOUT = 'https://sandbox.cowrie.example/checkout';

const CUSTOMER = {
  id: 'cus_0VbxkE3p5QalfbNsoTPuLTnP',
  object: 'customer',
  email: 'amina@example.com',
  phone: '+254712345678',
  name: 'Amina Njeri',
  reference: 'user_4821',
  metadata: { plan: 'pro' },
  created_at: '2026-06-15T06:10:38.853Z',
  livemode: false,
};

const PAYMENT_INTENT = {
  id: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
  object: 'payment_intent',
  status: 'awaiting_payment',
  amount: '1500.00',
  currency: 'KES',
  settlement_currency: 'USDT',
  pay_amount: '11.607590',
  rate: '129.2258',
  amount_received: '0.000000',
  checkout_url: `${CHECKOUT}/pi_0VbxkE5hfIvSGWEUBuuHC70u`,
  merchant_reference: 'order_1001',
  description: 'Order #1001: two baskets',
  payment_methods: ['service_balance', 'mpesa', 'card', 'external_wallet'],
  payment_method: null,
  customer: null,
  metadata: { order_id: '1001' },
  return_url: 'https://shop.example/orders/1001',
  payment_link: null,
  failure_code: null,
  last_payment_error: null,
  provider_reference: null,
  expires_at: '2026-06-15T07:10:38.969Z',
  created_at: '2026-06-15T06:10:38.969Z',
  paid_at: null,
  cancelled_at: null,
  livemode: false,
};
const PAID_INTENT = {
  ...PAYMENT_INTENT,
  status: 'paid',
  amount_received: '11.607590',
  payment_method: 'mpesa',
  paid_at: '2026-06-15T06:12:04.097Z',
};
const CANCELLED_INTENT = { ...PAYMENT_INTENT, status: 'cancelled', cancelled_at: '2026-06-15T06:11:39.070Z' };

const PAYMENT_LINK = {
  id: 'pl_0VbxkE9AY8AVYKVWrgvenY9q',
  object: 'payment_link',
  url: 'https://sandbox.cowrie.example/pay/pl_0VbxkE9AY8AVYKVWrgvenY9q',
  status: 'active',
  active: true,
  title: 'Basket of mangoes',
  amount: '750.00',
  currency: 'KES',
  settlement_currency: 'USDT',
  paid_count: 0,
  max_payments: 100,
  expires_at: null,
  metadata: { campaign: 'june' },
  created_at: '2026-06-15T07:10:39.184Z',
  livemode: false,
};

const WEBHOOK_ENDPOINT = {
  id: 'we_0VbxkE5RMSo9W7hQxvGBFIQb',
  object: 'webhook_endpoint',
  url: 'https://shop.example/webhooks/cowrie',
  events: ['payment_intent.paid', 'refund.created'],
  status: 'enabled',
  created_at: '2026-06-15T06:10:38.953Z',
  livemode: false,
};

const REFUND = {
  id: 're_0VbxkE9lr8RnB4ofqZeKwt6j',
  object: 'refund',
  payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
  amount: '1500.00',
  currency: 'KES',
  status: 'succeeded',
  reason: 'Customer returned the baskets',
  return_address: null,
  created_at: '2026-06-15T07:10:39.220Z',
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

const SETTLEMENT = {
  id: 'stl_0VbxkEAX5jRaALK1FF82kWjc',
  payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
  asset: 'USDT',
  amount: '11.607590',
  status: 'available',
};

const SANDBOX_CLOCK = { object: 'sandbox_clock', now: '2026-06-15T06:10:39.133Z', offset_seconds: 0 };

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /auth/verify': {
    operationId: 'verifyApiKey',
    description: 'Reports the identity, scopes, IP allowance and status of the key.',
    responseExample: {
      object: 'auth_verification',
      merchant_id: 'mer_0VbxkE20NHV80QC8uezanGeg',
      app_id: 'app_0VbxkE23vsFZzzvnEoJOoiFx',
      key_id: 'key_0VbxkE25zjjMZSw3qLpl33J5',
      key_type: 'restricted',
      scopes: ['payments:read', 'payments:write'],
      ip_allowed: true,
      status: 'active',
      expires_at: null,
      request_id: 'req_0VbxkE2C5xudNYJIc3lxVfh9',
      ...META,
    },
  },

  // Customers
  'POST /customers': {
    operationId: 'createCustomer',
    description: 'Stores a customer of the merchant: email, phone, name, the merchant’s own reference and metadata, all optional.',
    requestExample: {
      email: 'amina@example.com',
      name: 'Amina Njeri',
      phone: '+254712345678',
      reference: 'user_4821',
      metadata: { plan: 'pro' },
    },
    responseExample: single(CUSTOMER, 'req_0VbxkE3FNMedmllpokt9GDTv'),
  },
  'GET /customers': {
    operationId: 'listCustomers',
    description: 'Customers of this environment, newest first, a page at a time (`limit`, `starting_after`).',
    responseExample: list([CUSTOMER], 'req_0VbxkE4AvY3HDAJexOi3Ypzr'),
  },
  'GET /customers/{id}': {
    operationId: 'retrieveCustomer',
    description: 'One customer by its `cus_` id.',
    responseExample: single(CUSTOMER, 'req_0VbxkE4sLDhGuFyshN7zqlfp'),
  },
  'POST /customers/{id}': {
    operationId: 'updateCustomer',
    description: 'Changes the fields sent (email, name, phone, metadata) and keeps the others; `null` clears a field.',
    requestExample: { name: 'Amina W. Njeri', phone: null, metadata: { plan: 'business' } },
    responseExample: single(
      { ...CUSTOMER, name: 'Amina W. Njeri', phone: null, metadata: { plan: 'business' } },
      'req_0Vbxm1cT2uYV0b7qg0Kq3sQ1',
    ),
  },

  // Rates and quotes
  'GET /rates': {
    operationId: 'listRates',
    description: 'Reference prices of each settlement asset in every supported fiat currency.',
    responseExample: {
      object: 'rates',
      data: [
        {
          asset: 'USDT',
          prices: {
            KES: '129.2258',
            USD: '1.0002',
            EUR: '0.9202',
            GBP: '0.7902',
            NGN: '1550.3100',
            TZS: '2580.5160',
            GHS: '15.3031',
            ZAR: '18.1036',
            UGX: '3700.7400',
            RWF: '1420.2840',
          },
          updated_at: '2026-06-01T00:00:00.000Z',
        },
      ],
      request_id: 'req_0VbxkE58RWcLxePU096n71Sx',
      ...META,
    },
  },
  'POST /quotes': {
    operationId: 'createQuote',
    description: 'Locks a fiat-to-asset conversion for 10 minutes.',
    requestExample: { source_currency: 'KES', target_asset: 'USDT', amount: '1500.00', side: 'customer_pays' },
    responseExample: {
      id: 'qt_0VbxkE5LCrLQY0ecvBKQ96Yj',
      object: 'quote',
      source_currency: 'KES',
      target_asset: 'USDT',
      side: 'customer_pays',
      rate: '129.2258',
      source_amount: '1500.00',
      target_amount: '11.607590',
      expires_at: '2026-06-15T06:20:38.947Z',
      created_at: '2026-06-15T06:10:38.947Z',
      livemode: false,
      request_id: 'req_0VbxkE5Gr4zZiWAo2K0PiunE',
      environment: 'test',
    },
  },

  // Payment intents
  'POST /payment-intents': {
    operationId: 'createPaymentIntent',
    description:
      'Creates a payment of `amount` in `currency`, settled in `settlement_currency`, and answers its `checkout_url` for the customer. Answers `503 rates_unavailable`, and creates nothing, while the reference price it needs is stale.',
    requestExample: {
      amount: '1500.00',
      currency: 'KES',
      settlement_currency: 'USDT',
      description: 'Order #1001: two baskets',
      merchant_reference: 'order_1001',
      metadata: { order_id: '1001' },
      return_url: 'https://shop.example/orders/1001',
      expires_in_minutes: 60,
    },
    responseExample: single(PAYMENT_INTENT, 'req_0VbxkE5aOcRtYD7d5CeqM0Kq'),
  },
  'GET /payment-intents': {
    operationId: 'listPaymentIntents',
    description: 'Payment intents of this environment, newest first, a page at a time; `status` filters.',
    responseExample: list([PAYMENT_INTENT], 'req_0VbxkE6IUPE19V3w4yc9PCLY'),
  },
  'GET /payment-intents/{id}': {
    operationId: 'retrievePaymentIntent',
    description: 'One payment intent by its `pi_` id, with its current status.',
    responseExample: single(PAID_INTENT, 'req_0VbxkE73vDVI0xLRPSg4r7KH'),
  },
  'POST /payment-intents/{id}/cancel': {
    operationId: 'cancelPaymentIntent',
    description: 'Cancels an intent that is still awaiting payment.',
    responseExample: single(CANCELLED_INTENT, 'req_0VbxkE7GSk879k8N3LCdJL52'),
  },
  'POST /payment-intents/{id}/refund-request': {
    operationId: 'requestPaymentIntentRefund',
    description: 'The legacy form of `POST /refunds`.',
    requestExample: { reason: 'Duplicate order' },
    responseExample: {
      object: 'refund_request',
      payment_intent: 'pi_0VbxkEASKYvAPbIeA9Oy8IiR',
      status: 'succeeded',
      sandbox: true,
      request_id: 'req_0VbxkEAcN7cPEvaGIWoAxYaW',
      ...META,
    },
  },

  // Sandbox helpers
  'POST /sandbox/payment-intents/{id}/simulate': {
    operationId: 'simulatePaymentIntent',
    description: 'Drives a test payment through the sandbox rail to the outcome asked for.',
    requestExample: { outcome: 'success', payment_method: 'mpesa' },
    responseExample: single(PAID_INTENT, 'req_0VbxkE7jiiFVSAZYL8uE76MQ'),
  },
  'POST /sandbox/webhooks/trigger': {
    operationId: 'triggerSandboxEvent',
    description: 'Records a sample event of the type and delivers it to the endpoints subscribed to it.',
    requestExample: { type: 'payment_intent.paid' },
    responseExample: {
      object: 'event_trigger',
      type: 'payment_intent.paid',
      status: 'sent',
      event: 'evt_0VbxkE8DXTv7KXkYQG1YN8Yn',
      request_id: 'req_0VbxkE8BOzRQGW1Qpw326ZMB',
      ...META,
    },
  },
  'GET /sandbox/clock': {
    operationId: 'retrieveSandboxClock',
    description: 'This merchant’s sandbox time and how far it is ahead of real time.',
    responseExample: { ...SANDBOX_CLOCK, request_id: 'req_0VbxkE8KOMjFPQaMqPdGOVdT', ...META },
  },
  'POST /sandbox/clock/advance': {
    operationId: 'advanceSandboxClock',
    description: 'Moves this merchant’s sandbox time forward and runs what falls due.',
    requestExample: { seconds: 3600 },
    responseExample: {
      ...SANDBOX_CLOCK,
      now: '2026-06-15T07:10:39.138Z',
      offset_seconds: 3600,
      request_id: 'req_0VbxkE8NH9gEVhbRMGpNZTyq',
      ...META,
    },
  },

  // Payment links
  'POST /payment-links': {
    operationId: 'createPaymentLink',
    description: 'A reusable link to a hosted payment page, with a fixed amount or one the customer enters.',
    requestExample: {
      title: 'Basket of mangoes',
      currency: 'KES',
      amount: '750.00',
      settlement_currency: 'USDT',
      max_payments: 100,
      metadata: { campaign: 'june' },
    },
    responseExample: single(PAYMENT_LINK, 'req_0VbxkE97AI02mnso1Cr5ycj0'),
  },
  'GET /payment-links': {
    operationId: 'listPaymentLinks',
    description: 'Payment links of this environment, newest first, a page at a time (`limit`, `starting_after`).',
    responseExample: list([PAYMENT_LINK], 'req_0Vbxm1aQ7nLZ4kXoJt2Wc8Rb'),
  },
  'GET /payment-links/{id}': {
    operationId: 'retrievePaymentLink',
    description: 'One payment link by its `pl_` id, with how many payments it has taken.',
    responseExample: single(PAYMENT_LINK, 'req_0VbxkE9Po3xsYIPKUZ5qJL1P'),
  },
  'POST /payment-links/{id}': {
    operationId: 'updatePaymentLink',
    description: 'Changes the title, amount, cap, expiry or `active` flag of a link; fields not sent are kept.',
    requestExample: {
      title: 'Basket of ripe mangoes',
      amount: '800.00',
      max_payments: 200,
      expires_at: '2026-07-31T23:59:59.000Z',
      active: true,
    },
    responseExample: single(
      { ...PAYMENT_LINK, title: 'Basket of ripe mangoes', amount: '800.00', max_payments: 200, expires_at: '2026-07-31T23:59:59.000Z' },
      'req_0Vbxm1bR4pVw8sD2fH6jK0Lm',
    ),
  },

  // Wallet deposits
  'GET /wallet-deposits': {
    operationId: 'listWalletDeposits',
    description: 'Deposits to the merchant’s wallet addresses, newest first.',
    responseExample: list(
      [
        {
          id: 'wd_0VbxkF1s9aZkq3LwTr8uYb2N',
          object: 'wallet_deposit',
          status: 'credited',
          reason: null,
          network: 'tron',
          asset: 'USDT',
          address: 'TQ5NFCcTRmAwo2KQLZ2bMnX2tqTqq9sZBk',
          amount: '11.607590',
          tx_hash: '7c2d1f9a4b3e8d6c5a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b',
          sender: 'TN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9',
          payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
          created_at: '2026-06-15T06:12:04.000Z',
          livemode: false,
        },
      ],
      'req_0VbxkE9dgtMxVbcmP438n5he',
    ),
  },

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

  // Refunds
  'POST /refunds': {
    operationId: 'createRefund',
    description: 'Refunds a paid payment in full.',
    requestExample: { payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u', reason: 'Customer returned the baskets' },
    responseExample: single(REFUND, 'req_0VbxkE9iLd00FH2jwKCIiaZU'),
  },
  'GET /refunds': {
    operationId: 'listRefunds',
    description: 'Refunds of this environment, newest first, a page at a time; `payment_intent` filters.',
    responseExample: list([REFUND], 'req_0VbxkEA0l3sT4h6ZHD4vxKBa'),
  },
  'GET /refunds/{id}': {
    operationId: 'retrieveRefund',
    description: 'One refund by its `re_` id.',
    responseExample: single(REFUND, 'req_0VbxkEAErS1zLR17jS8CFdUo'),
  },

  // Settlements, balances and reports
  'GET /settlements': {
    operationId: 'listSettlements',
    description: 'One settlement per paid payment, newest first.',
    responseExample: list(
      [
        {
          ...SETTLEMENT,
          object: 'settlement',
          available_at: '2026-06-18T06:12:04.269Z',
          settled_at: '2026-06-15T06:12:04.269Z',
          status: 'pending',
          livemode: false,
        },
      ],
      'req_0VbxkEq5EifYtH2sIhwAHq9T',
    ),
  },
  'GET /balances': {
    operationId: 'listBalances',
    description: 'The merchant’s balance in each asset it has held: total, available and on hold.',
    responseExample: list(
      [{ asset: 'USDT', total: '11.607590', available: '0.000000', on_hold: '11.607590' }],
      'req_0VbxkEqKiQdChl77lPZ66Egv',
      undefined,
    ),
  },
  'GET /reports/payments': {
    operationId: 'reportPayments',
    description: 'Paid payments in a window of UTC dates, as JSON pages or CSV.',
    responseExample: list(
      [
        {
          id: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
          created_at: '2026-06-15T06:10:38.969Z',
          paid_at: '2026-06-15T06:12:04.097Z',
          status: 'paid',
          amount: '1500.00',
          currency: 'KES',
          settlement_currency: 'USDT',
          pay_amount: '11.607590',
          payment_method: 'mpesa',
          merchant_reference: 'order_1001',
        },
      ],
      'req_0VbxkEqMGDqgrAzZwsN6zU9Z',
    ),
  },
  'GET /reports/settlements': {
    operationId: 'reportSettlements',
    description: 'Settlements in a window of UTC dates, as JSON pages or CSV.',
    responseExample: list(
      [{ ...SETTLEMENT, settled_at: '2026-06-15T06:12:04.269Z', available_at: '2026-06-18T06:12:04.269Z' }],
      'req_0VbxkEqbpLmBqhNfdy2VlzrJ',
    ),
  },
};

/** The table's key for an operation: `METHOD /path` (path as the document spells it). */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
