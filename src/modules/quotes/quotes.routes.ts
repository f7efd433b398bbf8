import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { QuoteBody, QuoteRecord, type Quote } from './quote.schema.js';
import type { QuoteService } from './quotes.service.js';

const QuoteResponse = withMeta(QuoteRecord.properties, { title: 'Quote' });

export const quoteRoutes: FastifyPluginAsyncTypebox<{ quotes: QuoteService }> = async (app, { quotes }) => {
  app.post(
    '/quotes',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Lock a quote',
        description:
          'Locks a fiat-to-asset conversion for 10 minutes. For price displays and estimates; payment intents embed their own quote. While the reference price it needs is stale, answers 503 `rates_unavailable` and locks nothing.',
        tags: ['Rates and quotes'],
        body: QuoteBody,
        response: { 200: QuoteResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const respond = (quote: Quote) => withResponseMeta(request, quote);
      return respond(await quotes.create(requireAuth(request), request.body, idempotentResponse(request, reply, 200, respond)));
    },
  );
};
