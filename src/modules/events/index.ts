export { EVENT_TYPES, recordEvent, recordEvents, eventStatements, type EventStatements, type EventPayload, type EventType, type RecordEventInput } from './events.service.js';
