// The request a log line belongs to, wherever in the code it is written: each HTTP request runs in an
// AsyncLocalStorage context whose store names its request id, and the logger's mixin adds it to every line
// written while the request is handled (by Fastify, a route, a service or the database layer alike).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  requestId?: string;
}

export const logContext = new AsyncLocalStorage<LogContext>();

/** pino's `mixin`: the request id of the line's request, if any. */
export function logMixin(): Record<string, unknown> {
  const id = logContext.getStore()?.requestId;
  return id === undefined ? {} : { request_id: id };
}
