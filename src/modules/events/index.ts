export { EVENT_TYPES, recordEvent, type EventPayload, type EventType, type RecordEventInput } from './events.service.js';
