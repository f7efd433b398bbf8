// GET /v1/wallet-deposits: the on-chain deposits that reached the merchant's addresses.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/transaction.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { ListOf } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { StringEnum } from '../../shared/schema.js';
import { WalletDepositRecord, listWalletDeposits } from './wallet-deposits.service.js';

export const walletDepositRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/wallet-deposits',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'List external-wallet deposits',
        description:
          "Deposits to the merchant's wallet addresses, newest first. `status=unmatched` lists the ones kept aside: not the exact amount, asset and network of an open payment, or refused.",
        tags: ['Payment intents'],
        querystring: listQuerySchema(20, 100, { status: Type.Optional(StringEnum(['credited', 'unmatched'] as const)) }),
        response: { 200: ListOf(WalletDepositRecord, { title: 'WalletDepositList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      return withResponseMeta(
        request,
        await listWalletDeposits(db, requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, status: q.status }),
      );
    },
  );
};
