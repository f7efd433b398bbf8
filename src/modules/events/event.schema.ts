// The event: what webhooks deliver and the feed answers.
import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../shared/schema.js';

export { EVENT_TYPES, type EventType } from '../../shared/event-types.js';
import { EVENT_TYPES } from '../../shared/event-types.js';

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
