export { EVENT_TYPES, EventSchema, type EventPayload, type EventType } from './event.schema.js';
export { addEvents, recordEvent, recordEvents, redeliverEvent, type RecordEventInput } from './events.service.js';
export { DELIVERY_CHANNEL } from './events.repo.js';
