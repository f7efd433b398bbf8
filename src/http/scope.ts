import type { FastifyRequest } from 'fastify';
import type { AuthenticatedKey } from '../modules/keys/index.js';
import type { MerchantScope } from '../shared/scope.js';

export interface RequestScope extends MerchantScope {
  key: AuthenticatedKey;
  /** Sandbox clock offset read with the key (0 for live): saves a query per request. */
  sandboxOffsetMs: number;
}

/** The merchant and environment every query of an authenticated route is confined to. */
export function requireAuth(request: FastifyRequest): RequestScope {
  const key = request.auth;
  if (!key) throw new Error('route reached without authentication');
  return {
    merchantId: key.merchantId,
    environment: request.environment,
    key,
    sandboxOffsetMs: request.environment === 'test' ? key.sandboxOffsetMs : 0,
  };
}
