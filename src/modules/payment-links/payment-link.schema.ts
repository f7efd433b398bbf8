// The payment link as the API shows it.
import { Type, type Static } from 'typebox';
import type { PaymentLinkRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { RawJson } from '../../shared/raw-json.js';
import { DateTime, DecimalString, Metadata, MetadataRecord, Nullable, StringEnum } from '../../shared/schema.js';
import type { Environment } from '../../shared/scope.js';

export const LINK_STATUSES = ['active', 'inactive', 'completed', 'expired'] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** The body of `POST /payment-links`. */
export const CreateLinkBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Shown to the customer, and the description of every intent minted' }),
    currency: Type.String({ maxLength: 10, description: 'KES, USD, EUR, GBP, NGN, TZS, GHS, ZAR, UGX or RWF' }),
    amount: Type.Optional(DecimalString('Fiat amount; omit so that the customer enters it')),
    settlement_currency: Type.Optional(
      Type.String({ maxLength: 10, default: 'USDT', description: 'USDT (default), USDC, BTC, ETH or SOL' }),
    ),
    max_payments: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Cap on paid payments; omit for no cap' })),
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the link stops minting intents (must be in the future)' }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateLinkInput = Static<typeof CreateLinkBody>;

/** The body of `POST /payment-links/{id}`: what is sent changes, what is left out stays; null clears. */
export const UpdateLinkBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Shown to the customer on intents minted from now on' })),
    amount: Type.Optional(Nullable(DecimalString('Fiat amount; null so that the customer enters it'))),
    max_payments: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
        description: "Cap on paid payments, at least the link's paid_count; null for no cap",
      }),
    ),
    expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }), { description: 'In the future; null for never' })),
    active: Type.Optional(Type.Boolean({ description: 'false stops the link minting intents; true starts it again' })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type UpdateLinkInput = Static<typeof UpdateLinkBody>;

export const paymentLinkProperties = {
  id: Type.String({ description: 'Identifier, prefix `pl_`' }),
  object: Type.Literal('payment_link'),
  url: Type.String({ format: 'uri', description: 'Reusable hosted page; each visit that goes on to pay mints a fresh payment intent' }),
  status: StringEnum(LINK_STATUSES, {
    description: 'completed (cap reached) wins, then inactive (deactivated by the merchant), then expired; else active',
  }),
  active: Type.Boolean({ description: 'false once the merchant deactivated the link' }),
  title: Type.String(),
  amount: Nullable(Type.String(), { description: 'Fiat amount; null when the customer enters it' }),
  currency: Type.String(),
  settlement_currency: Type.String(),
  paid_count: Type.Integer({ description: 'Paid intents minted by this link (a later refund still counts)' }),
  max_payments: Nullable(Type.Integer(), { description: 'Cap on paid payments; null for no cap' }),
  expires_at: Nullable(DateTime(), { description: 'When the link stops minting intents; null for never' }),
  metadata: MetadataRecord,
  created_at: DateTime(),
  livemode: Type.Boolean(),
};

export const PaymentLinkRecord = Type.Object(paymentLinkProperties, { title: 'PaymentLink' });
export type PaymentLink = Static<typeof PaymentLinkRecord>;

export type LinkUrlFor = (environment: Environment, linkId: string) => string;

export function linkUrlFor(origins: Record<Environment, string>): LinkUrlFor {
  return (environment, id) => `${origins[environment]}/pay/${id}`;
}

/**
 * Completed (cap reached) wins: it is the strongest fact. Then inactive (the merchant's own choice, which
 * they can undo), then expired.
 */
export function linkStatus(link: PaymentLinkRow, paidCount: number, nowMs: number): LinkStatus {
  if (link.max_payments !== null && paidCount >= link.max_payments) return 'completed';
  if (link.active === 0) return 'inactive';
  if (link.expires_at !== null && link.expires_at <= nowMs) return 'expired';
  return 'active';
}

export function linkView(link: PaymentLinkRow, url: LinkUrlFor, paidCount: number, nowMs: number): PaymentLink {
  return {
    id: link.id,
    object: 'payment_link',
    url: url(link.environment, link.id),
    status: linkStatus(link, paidCount, nowMs),
    active: link.active === 1,
    title: link.title,
    amount: link.amount,
    currency: link.currency,
    settlement_currency: link.settlement_currency,
    paid_count: paidCount,
    max_payments: link.max_payments,
    expires_at: link.expires_at === null ? null : isoTime(link.expires_at),
    metadata: new RawJson(link.metadata),
    created_at: isoTime(link.created_at),
    livemode: link.environment === 'live',
  };
}
