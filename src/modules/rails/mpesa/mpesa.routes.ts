// Daraja's callbacks: `POST /rails/mpesa/callback/<token>` (STK push) and `POST
// /rails/mpesa/reversal/<token>/result|timeout` (a refund's reversal), at the origin of every listener, no key
// (the unguessable token is the credential), answered as Daraja expects. STK callbacks of payers' top-ups
// come to the same path under tokens of their own prefix (with a `.`, which no rail payment's token has).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CallbackAnswer, MpesaRail } from './mpesa-rail.js';

/** Another receiver of STK callbacks: the callbacks whose token starts with its prefix are its own. */
export interface StkCallbackReceiver {
  readonly callbackPrefix: string;
  handleCallback(token: string, body: unknown): Promise<CallbackAnswer>;
}

export const mpesaCallbackRoutes: FastifyPluginAsyncTypebox<{ rail: MpesaRail | null; topups?: StkCallbackReceiver | null }> = async (
  app,
  { rail, topups },
) => {
  app.post(
    '/rails/mpesa/callback/:token',
    {
      config: { access: 'public' },
      schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }) },
    },
    async (request, reply) => {
      if (!rail) return reply.code(404).send({ ResultCode: 1, ResultDesc: 'M-Pesa is not configured' });
      const { token } = request.params;
      const receiver = topups && token.startsWith(topups.callbackPrefix) ? topups : rail;
      const answer = await receiver.handleCallback(token, request.body);
      return reply.code(answer.status).send(answer.body);
    },
  );
  app.post(
    '/rails/mpesa/reversal/:token/:kind',
    {
      config: { access: 'public' },
      schema: {
        hide: true,
        params: Type.Object({ token: Type.String({ maxLength: 200 }), kind: Type.String({ maxLength: 20 }) }),
      },
    },
    async (request, reply) => {
      const { token, kind } = request.params;
      const reversals = rail?.reversals;
      if (!reversals || (kind !== 'result' && kind !== 'timeout'))
        return reply.code(404).send({ ResultCode: 1, ResultDesc: 'Unknown callback' });
      const answer = await reversals.handleResult(token, kind, request.body);
      return reply.code(answer.status).send(answer.body);
    },
  );
};
