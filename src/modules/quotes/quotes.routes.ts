import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { DecimalString, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { StringEnum } from '../../shared/schema.js';
import { QuoteRecord, type QuoteService } from './quotes.service.js';

const QuoteResponse = withMeta(QuoteRecord.properties, { title: 'Quote' });

const QuoteBody = Type.Object(
  {
    source_currency: Type.String({ maxLength: 10, description: 'Fiat currency code, for example KES' }),
    target_asset: Type.String({ maxLength: 10, description: 'USDT, USDC, BTC, ETH or SOL' }),
    amount: DecimalString('In `source_currency` for `customer_pays`, in `target_asset` for `merchant_receives`'),
    side: Type.Optional(StringEnum(['customer_pays', 'merchant_receives'] as const, { default: 'customer_pays' })),
  },
  { additionalProperties: false },
);

export const quoteRoutes: FastifyPluginAsyncTypebox<{ quotes: QuoteService }> = async (app, { quotes }) => {
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
      return withResponseMeta(request, await quotes.create(requireAuth(request), request.body));
    },
  );
};
