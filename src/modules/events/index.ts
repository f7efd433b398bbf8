export { EVENT_TYPES, recordEvent, recordEvents, type EventPayload, type EventType, type RecordEventInput } from './events.service.js';
