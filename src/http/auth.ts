// Authentication and authorisation of every non-public route, in this order: key present and well
// formed, right environment, known and current, rate limit, then the 403s (publishable key, suspended
// merchant, IP allowlist, scope). The Service-Version check comes before all of them (http/context.ts).
import type { FastifyContextConfig, FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { claimedEnvironment, hasAnyScope, ipAllowed, keyAuthenticator, parseKey, type Scope } from '../modules/keys/index.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { RateLimiter } from './rate-limit.js';
import type { Db } from '../db/transaction.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function registerAuth(app: FastifyInstance, deps: { db: Db; clock: Clock; config: Config; rateLimiter: RateLimiter }): void {
  const authenticate = keyAuthenticator(deps.db, deps.clock);

  /** The hook of one route: what it accepts is known when the route is added, not read per request. */
  const hookFor = (access: 'any_key' | undefined, accepted: readonly Scope[]) =>
    async function authenticateRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const header = request.headers.authorization;
      if (!header) {
        throw new AppError('invalid_api_key', 'No API key provided. Send it as Authorization: Bearer <key>.');
      }
      const token = BEARER.exec(header)?.[1];
      if (!token) {
        throw new AppError('invalid_api_key', 'Malformed Authorization header. Send it as Authorization: Bearer <key>.');
      }
      const claimed = claimedEnvironment(token);
      if (claimed && claimed !== request.environment) {
        throw new AppError(
          'environment_mismatch',
          claimed === 'live'
            ? 'A live key (cwk_live_) was sent to the sandbox address; send it to the live base URL.'
            : 'A sandbox key (cwk_test_) was sent to the live address; send it to the sandbox base URL.',
        );
      }
      if (!parseKey(token)) throw new AppError('invalid_api_key', 'Invalid API key provided.');
      const key = await authenticate(token);
      if (!key) throw new AppError('invalid_api_key', 'Invalid API key provided: it is unknown, revoked or expired.');
      request.auth = key;
      reply.header('Service-Environment', request.environment);

      const rate = await deps.rateLimiter.consume(request.environment, key.keyId);
      reply.header('Service-RateLimit-Limit', String(rate.limit));
      reply.header('Service-RateLimit-Remaining', String(rate.remaining));
      reply.header('Service-RateLimit-Reset', String(rate.resetSeconds));
      if (!rate.allowed) {
        throw new AppError('rate_limit_exceeded', `Too many requests: this key allows ${rate.limit} a second.`, {
          headers: { 'Retry-After': String(rate.resetSeconds) },
        });
      }

      if (access === 'any_key') return;
      if (key.type === 'publishable') {
        throw new AppError(
          'publishable_key_not_allowed',
          'Publishable keys can only call GET /v1/auth/verify; use a secret or restricted key.',
        );
      }
      if (key.environment === 'live' && key.merchant.status !== 'active') {
        throw new AppError('account_inactive', 'This merchant account is suspended; live keys are refused.');
      }
      if (key.environment === 'live' && !ipAllowed(request.ip, key.allowedIps)) {
        throw new AppError('ip_not_allowed', `Requests with this key are not allowed from ${request.ip}.`);
      }
      if (accepted.length > 0 && !hasAnyScope(key.scopes, accepted)) {
        throw new AppError('insufficient_scope', `This key lacks the scope for this endpoint; it needs one of: ${accepted.join(', ')}.`);
      }
    };

  // Every route that is not public gets its own authentication hook, after the global ones (which set the
  // environment and check Service-Version).
  app.addHook('onRoute', (route) => {
    const cfg = (route.config ?? {}) as FastifyContextConfig;
    if (cfg.access === 'public') return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, hookFor(cfg.access, cfg.scopes ?? []) as never];
  });
}
