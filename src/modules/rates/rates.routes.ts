import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { metaProperties } from '../../http/schemas.js';
import { StringEnum } from '../../shared/schema.js';
import type { RateProvider } from './rate-provider.js';
import { FIAT_CURRENCIES, SETTLEMENT_ASSETS } from '../../shared/money.js';

const RatesResponse = Type.Object(
  {
    object: Type.Literal('rates'),
    data: Type.Array(
      Type.Object({
        asset: StringEnum(SETTLEMENT_ASSETS),
        prices: Type.Object(
          Object.fromEntries(FIAT_CURRENCIES.map((c) => [c, Type.String({ description: `${c} per one unit of the asset` })])),
        ),
        updated_at: Type.String({
          format: 'date-time',
          description: "When the asset's oldest price was last fetched (the rate table's date with the file source)",
        }),
      }),
    ),
    ...metaProperties,
  },
  { title: 'Rates' },
);

export const rateRoutes: FastifyPluginAsyncTypebox<{ rates: RateProvider }> = async (app, { rates }) => {
  app.get(
    '/rates',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Reference rates',
        description:
          "Supported settlement assets and their reference prices in every fiat currency, each with `updated_at`, the last good fetch of the asset's oldest price. Indicative only, not a locked quote. Stale prices still show, with their old `updated_at`.",
        tags: ['Rates and quotes'],
        response: { 200: RatesResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) =>
      withResponseMeta(request, {
        object: 'rates' as const,
        data: rates.snapshot().map((s) => ({ asset: s.asset, prices: s.prices, updated_at: new Date(s.updatedAt).toISOString() })),
      }),
  );
};
