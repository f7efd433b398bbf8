// Per-request context: which environment the request is in (by listener, or by Host when both
// environments share an address), the authenticated key, and the headers every response carries.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hostOf, type Config } from '../config.js';
import type { AuthenticatedKey, Scope } from '../modules/keys/index.js';
import { AppError } from '../shared/errors.js';
import type { Environment } from '../shared/scope.js';

export const API_VERSION = '2026-06-01';

declare module 'fastify' {
  interface FastifyRequest {
    environment: Environment;
    auth: AuthenticatedKey | null;
  }
  interface FastifyContextConfig {
    /** Scopes accepted by the route; any one suffices. Omitted on routes that need no scope. */
    scopes?: readonly Scope[];
    /** `public`: no key (docs, OpenAPI, checkout pages). `any_key`: every valid key, publishable too. */
    access?: 'public' | 'any_key';
  }
}

/** Set by a listener on each request it receives: the environment that address serves. */
export const LISTENER_ENV = Symbol('cowrie.listenerEnvironment');
export type ListenerRequest = IncomingMessage & { [LISTENER_ENV]?: Environment };

export function resolveEnvironment(config: Config, raw: ListenerRequest): Environment {
  const byListener = raw[LISTENER_ENV];
  if (byListener) return byListener;
  const host = (raw.headers.host ?? '').toLowerCase();
  if (host === hostOf(config.liveUrl)) return 'live';
  // An unknown Host on a shared address is treated as sandbox: no real money can move there.
  return 'test';
}

export function registerRequestContext(app: FastifyInstance, config: Config): void {
  app.decorateRequest('environment', 'test');
  app.decorateRequest('auth', null);
  app.decorateRequest('bodyHash', '');
  // Callback-style hooks: they run on every request and need no promise.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    request.environment = resolveEnvironment(config, request.raw as ListenerRequest);
    reply.header('Service-Request-Id', request.id);
    reply.header('Service-Version', API_VERSION);
    const version = request.headers['service-version'];
    if (version !== undefined && version !== API_VERSION) {
      done(
        new AppError('api_version_invalid', `Unknown API version '${String(version).slice(0, 40)}'. The only version is ${API_VERSION}.`, {
          param: 'Service-Version',
        }),
      );
      return;
    }
    done();
  });
  // Headers again at the end: an error raised before the hook above, or a handler that reset headers,
  // still answers with them.
  app.addHook(
    'onSend',
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: Error | null, payload?: unknown) => void) => {
      reply.header('Service-Request-Id', request.id);
      reply.header('Service-Version', API_VERSION);
      if (request.auth) reply.header('Service-Environment', request.environment);
      done(null, payload);
    },
  );
}

export interface ResponseMeta {
  request_id: string;
  environment: Environment;
  livemode: boolean;
}

/** A response body with the top-level metadata every JSON response carries. */
export function withResponseMeta<T extends object>(request: FastifyRequest, body: T): T & ResponseMeta {
  return { ...body, request_id: request.id, environment: request.environment, livemode: request.environment === 'live' };
}

/**
 * withResponseMeta for a body already written as JSON text (an object's text, `{...}`): the same fields,
 * appended to the text, sent as it is (Fastify's serializer leaves a string alone).
 */
export function withResponseMetaText(request: FastifyRequest, json: string): string {
  // A request id is `req_` and base62, an environment `live` or `test`: neither needs escaping.
  return `${json.slice(0, -1)},"request_id":"${request.id}","environment":"${request.environment}"}`;
}
