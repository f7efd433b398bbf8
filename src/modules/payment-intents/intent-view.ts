// The payment intent as the API shows it (section 2.1 plus DECISIONS "Payment intents").
import { Type } from 'typebox';
import type { Environment } from '../../config.js';
import type { IntentStatus, PaymentIntentRow } from '../../db/schema.js';
import { MetadataRecord, StringEnum } from '../../http/schemas.js';
import { RawJson } from '../../shared/raw-json.js';
import { isoTime } from '../../shared/clock.js';
import { PAYMENT_METHODS, type PaymentMethod } from './payment-methods.js';

export const INTENT_STATUSES = [
  'created',
  'awaiting_payment',
  'confirming',
  'paid',
  'expired',
  'cancelled',
  'failed',
  'refunded',
] as const satisfies readonly IntentStatus[];

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  status: IntentStatus;
  amount: string;
  currency: string;
  settlement_currency: string;
  pay_amount: string;
  rate: string;
  amount_received: string;
  checkout_url: string;
  merchant_reference: string | null;
  description: string | null;
  payment_methods: PaymentMethod[];
  payment_method: string | null;
  customer: { email?: string; phone?: string } | null;
  metadata: RawJson;
  return_url: string | null;
  payment_link: string | null;
  failure_code: string | null;
  expires_at: string;
  created_at: string;
  paid_at: string | null;
  cancelled_at: string | null;
  livemode: boolean;
}

const nullableString = (description?: string) => Type.Union([Type.String(), Type.Null()], description ? { description } : {});
const nullableTime = () => Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const paymentIntentProperties = {
  id: Type.String({ description: 'Identifier, prefix `pi_`' }),
  object: Type.Literal('payment_intent'),
  status: StringEnum(INTENT_STATUSES),
  amount: Type.String({ description: 'Decimal fiat amount, with the currency\'s decimals' }),
  currency: Type.String(),
  settlement_currency: Type.String(),
  pay_amount: Type.String({ description: 'What the customer pays in the settlement asset: amount / rate, rounded up' }),
  rate: Type.String({ description: 'Fiat price of one unit of the settlement asset, embedded at creation' }),
  amount_received: Type.String({ description: 'Asset amount received so far (underpayments add up here)' }),
  checkout_url: Type.String({ format: 'uri' }),
  merchant_reference: nullableString(),
  description: nullableString(),
  payment_methods: Type.Array(StringEnum(PAYMENT_METHODS)),
  payment_method: nullableString('The method that paid; null until paid'),
  customer: Type.Union([Type.Object({ email: Type.Optional(Type.String()), phone: Type.Optional(Type.String()) }), Type.Null()]),
  metadata: MetadataRecord,
  return_url: nullableString(),
  payment_link: nullableString('The payment link that minted this intent'),
  failure_code: nullableString(),
  expires_at: Type.String({ format: 'date-time' }),
  created_at: Type.String({ format: 'date-time' }),
  paid_at: nullableTime(),
  cancelled_at: nullableTime(),
  livemode: Type.Boolean(),
};

export const PaymentIntentRecord = Type.Object(paymentIntentProperties, { title: 'PaymentIntent' });

/** Absolute URL of an intent's hosted checkout, at the origin of its environment's base URL. */
export type CheckoutUrlFor = (environment: Environment, intentId: string) => string;

/** The JSON columns already parsed (a new intent has them as objects): saves parsing what was just written. */
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
    expires_at: isoTime(row.expires_at),
    created_at: isoTime(row.created_at),
    paid_at: row.paid_at === null ? null : isoTime(row.paid_at),
    cancelled_at: row.cancelled_at === null ? null : isoTime(row.cancelled_at),
    livemode: row.environment === 'live',
  };
}
