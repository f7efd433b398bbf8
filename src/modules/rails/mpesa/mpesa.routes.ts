// Daraja's callback: `POST /rails/mpesa/callback/<token>`, at the origin of every listener, no key (the
// unguessable token is the credential), answered as Daraja expects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { MpesaRail } from './mpesa-rail.js';

export const mpesaCallbackRoutes: FastifyPluginAsyncTypebox<{ rail: MpesaRail | null }> = async (app, { rail }) => {
  app.post(
    '/rails/mpesa/callback/:token',
    {
      config: { access: 'public' },
      schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }) },
    },
    async (request, reply) => {
      if (!rail) return reply.code(404).send({ ResultCode: 1, ResultDesc: 'M-Pesa is not configured' });
      const answer = await rail.handleCallback(request.params.token, request.body);
      return reply.code(answer.status).send(answer.body);
    },
  );
};
