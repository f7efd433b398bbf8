// The operation table's rows for the key check, customers, rates and quotes, payment intents and the sandbox
// helpers, with the examples of a customer and a payment intent that other areas' examples reuse.
import { META, list, single, type OperationDoc } from './common.js';

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
  dispute: null,
  expires_at: '2026-06-15T07:10:38.969Z',
  created_at: '2026-06-15T06:10:38.969Z',
  paid_at: null,
  cancelled_at: null,
  livemode: false,
};
export const PAID_INTENT = {
  ...PAYMENT_INTENT,
  status: 'paid',
  amount_received: '11.607590',
  payment_method: 'mpesa',
  paid_at: '2026-06-15T06:12:04.097Z',
};
const CANCELLED_INTENT = { ...PAYMENT_INTENT, status: 'cancelled', cancelled_at: '2026-06-15T06:11:39.070Z' };

const SANDBOX_CLOCK = { object: 'sandbox_clock', now: '2026-06-15T06:10:39.133Z', offset_seconds: 0 };

export const PAYMENT_OPERATIONS: Record<string, OperationDoc> = {
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
};
