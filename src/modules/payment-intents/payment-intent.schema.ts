// The payment intent as the API shows it: its schema, and its type derived from it.
import { Type, type Static } from 'typebox';
import type { PaymentIntentRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { RawJson } from '../../shared/raw-json.js';
import { DateTime, DecimalString, Metadata, MetadataRecord, Nullable, StringEnum } from '../../shared/schema.js';
import type { Environment } from '../../shared/scope.js';
import { FAILURE_CODES } from './payment-failures.js';
import { PAYMENT_METHODS, type PaymentMethod } from './payment-methods.js';

export { INTENT_STATUSES, type IntentStatus } from '../../db/schema.js';
import { INTENT_STATUSES } from '../../db/schema.js';

/** Why the last pay attempt failed (null until one fails, and again once one succeeds). */
export const LastPaymentError = Type.Object(
  {
    code: StringEnum(FAILURE_CODES),
    message: Type.String({ description: 'What happened, in plain words' }),
    payment_method: Type.String({ description: 'The method of the failed attempt' }),
  },
  { title: 'LastPaymentError' },
);

const IntentCustomer = Type.Object({
  id: Type.Optional(Type.String({ description: 'The stored customer (`cus_…`) the intent was created for, when it named one' })),
  email: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
});
/** The customer an intent carries: as sent inline, or a stored customer's id, email and phone. */
export type IntentCustomerValue = Static<typeof IntentCustomer>;

const InlineCustomer = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, 'x-message': 'must be a valid email address' })),
    phone: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: '^\\+?[0-9][0-9 ().-]{2,39}$',
        'x-message': 'must be a phone number such as +254712345678',
      }),
    ),
  },
  { additionalProperties: false },
);
const CustomerId = Type.String({
  pattern: '^cus_[0-9A-Za-z]{1,64}$',
  'x-message': 'must be a customer id (cus_…) or an object with email and phone',
});

/**
 * `customer` of a new intent: a stored customer's id, or `{email, phone}`. Written as if/then/else rather
 * than anyOf so that a mistake is reported in the branch the value is in (the bad email, not "must be a
 * string").
 */
const CustomerParam = Type.Unsafe<string | Static<typeof InlineCustomer>>({
  description: 'A stored customer (`"cus_…"`), whose email and phone the intent carries, or `{email, phone}`',
  if: { type: 'string' },
  then: CustomerId,
  else: InlineCustomer,
});

/** A chargeback on a paid card or PayPal payment: the intent stays paid; its settlement is frozen while open. */
export const IntentDispute = Type.Object(
  {
    status: StringEnum(['open', 'won', 'lost'] as const),
    reason: Nullable(Type.String()),
    amount: Type.String({ description: "The disputed amount: the intent's amount" }),
    currency: Type.String(),
    opened_at: DateTime(),
    closed_at: Nullable(DateTime()),
  },
  { title: 'Dispute' },
);

/** What the dispute column keeps: the view's fields, and what a won dispute gives back to the settlement. */
export interface StoredDispute {
  status: 'open' | 'won' | 'lost';
  reason: string | null;
  amount: string;
  currency: string;
  opened_at: string;
  closed_at: string | null;
  /** The settlement's `available_at` when it was frozen (a pending one matures then again if the dispute is won). */
  settlement_available_at?: number | null;
}

export const paymentIntentProperties = {
  id: Type.String({ description: 'Identifier, prefix `pi_`' }),
  object: Type.Literal('payment_intent'),
  status: StringEnum(INTENT_STATUSES),
  amount: Type.String({ description: "Decimal fiat amount, with the currency's decimals" }),
  currency: Type.String(),
  settlement_currency: Type.String(),
  pay_amount: Type.String({ description: 'What the customer pays in the settlement asset: amount / rate, rounded up' }),
  rate: Type.String({ description: 'Fiat price of one unit of the settlement asset, embedded at creation' }),
  amount_received: Type.String({ description: 'Asset amount received so far (underpayments add up here)' }),
  checkout_url: Type.String({ format: 'uri' }),
  merchant_reference: Nullable(Type.String()),
  description: Nullable(Type.String()),
  payment_methods: Type.Array(StringEnum(PAYMENT_METHODS)),
  payment_method: Nullable(Type.String(), { description: 'The method that paid; null until paid' }),
  customer: Nullable(IntentCustomer),
  metadata: MetadataRecord,
  return_url: Nullable(Type.String()),
  payment_link: Nullable(Type.String(), { description: 'The payment link that minted this intent' }),
  failure_code: Nullable(Type.String(), { description: "Why the intent failed for good (the last failed attempt's code), or null" }),
  last_payment_error: Nullable(LastPaymentError, {
    description: 'The last failed pay attempt, or null; back to null when an attempt succeeds',
  }),
  provider_reference: Nullable(Type.String(), {
    description:
      "The provider's reference of the payment that paid the intent: the M-Pesa receipt number, or a wallet payment's transaction hash",
  }),
  dispute: Nullable(IntentDispute, { description: 'The chargeback opened on this payment, or null when none' }),
  expires_at: DateTime(),
  created_at: DateTime(),
  paid_at: Nullable(DateTime()),
  cancelled_at: Nullable(DateTime()),
  livemode: Type.Boolean(),
};

/** The body of `POST /payment-intents`. */
export const CreateIntentBody = Type.Object(
  {
    amount: DecimalString('Fiat amount, with no more decimals than the currency has'),
    currency: Type.String({ maxLength: 10, description: 'KES, USD, EUR, GBP, NGN, TZS, GHS, ZAR, UGX or RWF' }),
    settlement_currency: Type.Optional(
      Type.String({ maxLength: 10, default: 'USDT', description: 'USDT (default), USDC, BTC, ETH or SOL' }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    merchant_reference: Type.Optional(Type.String({ maxLength: 255 })),
    payment_methods: Type.Optional(
      Type.Array(StringEnum(PAYMENT_METHODS), { minItems: 1, maxItems: 5, description: 'Omit for every method valid for the currency' }),
    ),
    customer: Type.Optional(CustomerParam),
    metadata: Type.Optional(Metadata),
    expires_in_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, default: 30 })),
    return_url: Type.Optional(
      Type.String({ maxLength: 2000, description: 'https (or http on localhost) URL the checkout sends the customer to afterwards' }),
    ),
  },
  { additionalProperties: false },
);

export const PaymentIntentRecord = Type.Object(paymentIntentProperties, { title: 'PaymentIntent' });
export type PaymentIntent = Static<typeof PaymentIntentRecord>;

/** Absolute URL of an intent's hosted checkout, at the origin of its environment's base URL. */
export type CheckoutUrlFor = (environment: Environment, intentId: string) => string;

export function checkoutUrlFor(origins: Record<Environment, string>): CheckoutUrlFor {
  return (environment, intentId) => `${origins[environment]}/checkout/${intentId}`;
}

/** The JSON columns already parsed (a new intent has them as values): saves parsing what was just written. */
export interface ParsedIntentColumns {
  payment_methods: PaymentMethod[];
  customer: PaymentIntent['customer'];
}

export function intentView(row: PaymentIntentRow, checkoutUrl: CheckoutUrlFor, parsed?: ParsedIntentColumns): PaymentIntent {
  return {
    id: row.id,
    object: 'payment_intent',
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    settlement_currency: row.settlement_currency,
    pay_amount: row.pay_amount,
    rate: row.rate,
    amount_received: row.amount_received,
    checkout_url: checkoutUrl(row.environment, row.id),
    merchant_reference: row.merchant_reference,
    description: row.description,
    payment_methods: parsed ? parsed.payment_methods : (JSON.parse(row.payment_methods) as PaymentMethod[]),
    payment_method: row.payment_method,
    customer: parsed ? parsed.customer : row.customer === null ? null : (JSON.parse(row.customer) as PaymentIntent['customer']),
    metadata: new RawJson(row.metadata),
    return_url: row.return_url,
    payment_link: row.payment_link,
    failure_code: row.failure_code,
    last_payment_error:
      row.last_payment_error === null ? null : (JSON.parse(row.last_payment_error) as PaymentIntent['last_payment_error']),
    provider_reference: row.provider_reference,
    dispute: disputeView(row.dispute),
    expires_at: isoTime(row.expires_at),
    created_at: isoTime(row.created_at),
    paid_at: row.paid_at === null ? null : isoTime(row.paid_at),
    cancelled_at: row.cancelled_at === null ? null : isoTime(row.cancelled_at),
    livemode: row.environment === 'live',
  };
}

function disputeView(stored: string | null): PaymentIntent['dispute'] {
  if (stored === null) return null;
  const d = JSON.parse(stored) as StoredDispute;
  return { status: d.status, reason: d.reason, amount: d.amount, currency: d.currency, opened_at: d.opened_at, closed_at: d.closed_at };
}
