import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/transaction.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { metaProperties } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { BalanceEntryRecord, listBalances } from './balances.service.js';

/** A plain list: `object` and `data` only, no cursor. */
const BalanceList = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(BalanceEntryRecord), ...metaProperties },
  { title: 'BalanceList' },
);

export const balanceRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/balances',
    {
      config: { scopes: ['balances:read'] },
      schema: {
        summary: 'List balances',
        description: "One entry per asset this merchant has ever held in the key's environment, derived from the ledger.",
        tags: ['Balances'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: BalanceList, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => withResponseMeta(request, { object: 'list' as const, data: await listBalances(db, requireAuth(request)) }),
  );
};
