import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/openapi.js';
import { EnvironmentName, withMeta } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { withResponseMeta } from '../../http/context.js';
import { ipAllowed } from '../keys/index.js';

const VerifyResponse = withMeta(
  {
    object: Type.Literal('auth_verification'),
    livemode: Type.Boolean(),
    environment: EnvironmentName,
    merchant_id: Type.String(),
    app_id: Type.String(),
    key_id: Type.String(),
    key_type: StringEnum(['secret', 'restricted', 'publishable'] as const),
    scopes: Type.Array(Type.String()),
    ip_allowed: Type.Boolean(),
    status: StringEnum(['active', 'expiring', 'inactive'] as const, {
      description:
        '`active`; `expiring` for a rotated key still inside its grace period (see `expires_at`); `inactive` for a live key of a suspended merchant.',
    }),
    expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'AuthVerification' },
);

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/auth/verify',
    {
      config: { access: 'any_key' },
      schema: {
        summary: 'Verify an API key',
        description: 'Reports the identity, scopes, IP allowance and status of the key. Moves nothing and creates nothing.',
        tags: ['Auth'],
        response: { 200: VerifyResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { key, environment } = requireAuth(request);
      const inactive = key.environment === 'live' && key.merchant.status !== 'active';
      return withResponseMeta(request, {
        object: 'auth_verification' as const,
        livemode: environment === 'live',
        environment,
        merchant_id: key.merchantId,
        app_id: key.appId,
        key_id: key.keyId,
        key_type: key.type,
        scopes: key.scopes,
        ip_allowed: key.environment !== 'live' || ipAllowed(request.ip, key.allowedIps),
        status: inactive ? ('inactive' as const) : key.expiresAt !== null ? ('expiring' as const) : ('active' as const),
        expires_at: key.expiresAt !== null ? new Date(key.expiresAt).toISOString() : null,
      });
    },
  );
};
