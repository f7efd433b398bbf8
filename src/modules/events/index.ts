export { EVENT_TYPES, EventSchema, type EventPayload, type EventType } from './event.schema.js';
export { addEvents, recordEvent, recordEvents, type RecordEventInput } from './events.service.js';
export type { LeadingInsert } from '../webhooks/index.js';
