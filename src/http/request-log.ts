// Request logging: one line per request at info, written when the response has gone ('request completed':
// method, URL, status, milliseconds, and the request id by the logger's mixin); the arrival is a debug line
// ('incoming request'). Fastify writes both through the LogController below instead of its two info lines.
// A line's fields are the request and reply themselves, which the logger's serializers reduce to what is
// logged, and only when the line's level is on.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** pino serializers of the request and the reply (src/main.ts gives them to the logger). */
export const requestLogSerializers = {
  req: (request: FastifyRequest) => ({ method: request.method, url: request.url }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/** Fastify's request lines: the arrival at debug, the completion (or failure) at info (error) with the request. */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    const log = request.log as unknown as Logger;
    if (log.isLevelEnabled('debug')) log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
