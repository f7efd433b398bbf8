// The event (spec 6.3; DECISIONS "Webhooks and events"): what webhooks deliver and the feed answers.
import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../shared/schema.js';

export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.confirming',
  'payment_intent.paid',
  'payment_intent.failed',
  'payment_intent.expired',
  'payment_intent.cancelled',
  'payment_intent.underpaid',
  'payment_intent.overpaid',
  'payment_intent.review',
  'payment_intent.refunded',
  'payment_intent.disputed',
  'payment_intent.duplicate_payment',
  'payment_intent.payment_failed',
  'refund.created',
  'refund.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventSchema = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `evt_`' }),
    object: Type.Literal('event'),
    type: StringEnum(EVENT_TYPES),
    api_version: Type.String(),
    created_at: DateTime(),
    livemode: Type.Boolean(),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'Event' },
);

export type EventPayload = Static<typeof EventSchema>;
