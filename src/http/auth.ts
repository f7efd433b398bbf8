// Authentication and authorisation of every non-public route, in this order: key present and well
// formed, right environment, known and current, rate limit, then the 403s (publishable key, suspended
// merchant, IP allowlist, scope).
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import { claimedEnvironment, hasAnyScope, ipAllowed, keyAuthenticator, parseKey } from '../modules/keys/index.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { RateLimiter } from './rate-limit.js';
import { API_VERSION } from './context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function registerAuth(
  app: FastifyInstance,
  deps: { db: Kysely<DB>; clock: Clock; config: Config; rateLimiter: RateLimiter },
): void {
  const authenticate = keyAuthenticator(deps.db, deps.clock);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const version = request.headers['service-version'];
    if (version !== undefined && version !== API_VERSION) {
      throw new AppError('api_version_invalid', `Unknown API version '${String(version).slice(0, 40)}'. The only version is ${API_VERSION}.`, {
        param: 'Service-Version',
      });
    }
    if (request.is404) return;
    const access = request.routeOptions.config.access;
    if (access === 'public') return;

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
      throw new AppError('publishable_key_not_allowed', 'Publishable keys can only call GET /v1/auth/verify; use a secret or restricted key.');
    }
    if (key.environment === 'live' && key.merchant.status !== 'active') {
      throw new AppError('account_inactive', 'This merchant account is suspended; live keys are refused.');
    }
    if (key.environment === 'live' && !ipAllowed(request.ip, key.allowedIps)) {
      throw new AppError('ip_not_allowed', `Requests with this key are not allowed from ${request.ip}.`);
    }
    const accepted = request.routeOptions.config.scopes ?? [];
    if (accepted.length > 0 && !hasAnyScope(key.scopes, accepted)) {
      throw new AppError('insufficient_scope', `This key lacks the scope for this endpoint; it needs one of: ${accepted.join(', ')}.`);
    }
  });
}
