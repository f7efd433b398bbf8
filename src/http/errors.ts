// The error envelope, the error handler and the not-found handler.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { originOf, type Config } from '../config.js';
import { AppError, ERROR_CODES, type ErrorCode } from '../shared/errors.js';
import { readRestBeforeClosing } from './unread-body.js';
import { validationToAppError } from './validation.js';
import { API_VERSION, resolveEnvironment, type ListenerRequest } from './context.js';

export interface ErrorBody {
  error: {
    type: string;
    code: string;
    message: string;
    param: string | null;
    request_id: string;
    docs_url: string;
  };
  request_id: string;
  environment: 'test' | 'live';
  livemode: boolean;
}

export function docsUrl(config: Config, environment: 'test' | 'live', code: string): string {
  const base = environment === 'live' ? config.liveUrl : config.sandboxUrl;
  return `${originOf(base)}/docs/errors#${code}`;
}

export function errorBody(config: Config, request: FastifyRequest, err: AppError): ErrorBody {
  return {
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      param: err.param,
      request_id: request.id,
      docs_url: docsUrl(config, request.environment, err.code),
    },
    request_id: request.id,
    environment: request.environment,
    livemode: request.environment === 'live',
  };
}

export function sendError(config: Config, request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(config, request, err)));
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'request_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

/** Any error a request can raise, as an AppError; null for a fault of ours (answered 500). */
export function toAppError(err: FastifyError | AppError | Error): AppError | null {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validationContext?: string };
  if (Array.isArray(fe.validation)) return validationToAppError(fe.validation as never, fe.validationContext);
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (mapped === 'request_too_large') return new AppError(mapped, 'The request body is larger than 1 MiB');
  if (mapped) return new AppError(mapped, ERROR_CODES[mapped].meaning.replace(/`/g, ''));
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 404) return new AppError('route_not_found', 'Not found');
  if (status >= 400 && status < 500) return new AppError('parameter_invalid', 'The request is invalid');
  return null;
}

/**
 * Fastify's `frameworkErrors`: router faults (a path that is not valid percent-encoding, a path parameter
 * over the router's length limit) are answered before any hook or the error handler runs. Answer them in
 * the same envelope, with the same headers, as every other error.
 */
export function frameworkErrorHandler(config: Config) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    request.environment = resolveEnvironment(config, request.raw as ListenerRequest);
    reply.header('Service-Request-Id', request.id);
    reply.header('Service-Version', API_VERSION);
    let appErr: AppError;
    if (err.code === 'FST_ERR_BAD_URL') {
      appErr = new AppError('parameter_invalid', 'The request URL is not valid: a path segment has malformed percent-encoding.');
    } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      appErr = new AppError('parameter_invalid', 'A path parameter of the request URL is too long.');
    } else {
      request.log.error({ err, reqId: request.id }, 'framework error');
      appErr = new AppError('internal_error', 'An internal error occurred. Quote the request_id to support.');
    }
    sendError(config, request, reply, appErr);
  };
}

export function registerErrorHandling(app: FastifyInstance, config: Config): void {
  app.setErrorHandler(async (err: FastifyError | AppError, request, reply) => {
    const appErr = toAppError(err);
    // A refusal before the body was read (413, 415) closes the connection: the client must get it first.
    await readRestBeforeClosing(request, reply);
    if (appErr) return sendError(config, request, reply, appErr);
    request.log.error({ err, reqId: request.id }, 'unhandled error');
    return sendError(
      config,
      request,
      reply,
      new AppError('internal_error', 'An internal error occurred. Quote the request_id to support.'),
    );
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    return sendError(
      config,
      request,
      reply,
      new AppError('route_not_found', `Unrecognised request URL (${request.method} ${path.slice(0, 200)}). All endpoints are under /v1.`),
    );
  });
}
