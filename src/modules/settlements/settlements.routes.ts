import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { ListOf } from '../../http/schemas.js';
import type { Db } from '../../db/transaction.js';
import { StringEnum } from '../../shared/schema.js';
import { SETTLEMENT_STATUSES, SettlementRecord } from './settlement.schema.js';
import { requireAuth } from '../../http/scope.js';
import * as service from './settlements.service.js';

export const settlementRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/settlements',
    {
      config: { scopes: ['settlements:read'] },
      schema: {
        summary: 'List settlements',
        description: 'One settlement per paid payment, newest first.',
        tags: ['Settlements'],
        querystring: listQuerySchema(25, 100, {
          payment_intent: Type.Optional(
            Type.String({ minLength: 1, maxLength: 255, description: 'Only the settlement of this payment intent' }),
          ),
          status: Type.Optional(StringEnum(SETTLEMENT_STATUSES)),
        }),
        response: { 200: ListOf(SettlementRecord, { title: 'SettlementList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await service.listSettlements(db, requireAuth(request), {
        limit: q.limit,
        startingAfter: q.starting_after,
        paymentIntent: q.payment_intent,
        status: q.status,
      });
      return withResponseMeta(request, page);
    },
  );
};
