import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../app.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { StringEnum, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { merchantClock } from '../sandbox/sandbox-clock.js';
import { DecimalString } from '../../http/schemas.js';
import { createQuote } from './quotes.service.js';

const QuoteResponse = withMeta(
  {
    id: Type.String({ description: 'Identifier, prefix `qt_`' }),
    object: Type.Literal('quote'),
    source_currency: Type.String(),
    target_asset: Type.String(),
    side: StringEnum(['customer_pays', 'merchant_receives'] as const),
    rate: Type.String({ description: 'Fiat price of one unit of the asset' }),
    source_amount: Type.String(),
    target_amount: Type.String(),
    expires_at: Type.String({ format: 'date-time', description: '10 minutes after creation' }),
    created_at: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
  },
  { title: 'Quote' },
);

const QuoteBody = Type.Object(
  {
    source_currency: Type.String({ maxLength: 10, description: 'Fiat currency code, for example KES' }),
    target_asset: Type.String({ maxLength: 10, description: 'USDT, USDC, BTC, ETH or SOL' }),
    amount: DecimalString('In `source_currency` for `customer_pays`, in `target_asset` for `merchant_receives`'),
    side: Type.Optional(StringEnum(['customer_pays', 'merchant_receives'] as const, { default: 'customer_pays' })),
  },
  { additionalProperties: false },
);

export const quoteRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/quotes',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Lock a quote',
        description: 'Locks a fiat-to-asset conversion for 10 minutes. For price displays and estimates; payment intents embed their own quote.',
        tags: ['Rates and quotes'],
        body: QuoteBody,
        response: { 200: QuoteResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const scope = requireAuth(request);
      const clock = await merchantClock(deps.db, deps.clock, scope.merchantId, scope.environment);
      return withResponseMeta(request, await createQuote(deps.db, clock, deps.rates, scope, request.body));
    },
  );
};
