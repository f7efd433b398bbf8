import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../app.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { ListOf, StringEnum } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import * as service from './settlements.service.js';

export const SETTLEMENT_STATUSES = ['pending', 'available', 'frozen'] as const;

export const settlementProperties = {
  id: Type.String({ description: 'Identifier, prefix `stl_`' }),
  object: Type.Literal('settlement'),
  payment_intent: Type.String({ description: 'The paid payment intent' }),
  asset: Type.String({ description: 'Settlement asset' }),
  amount: Type.Union([Type.String(), Type.Null()], { description: "Asset amount settled: the intent's pay_amount" }),
  status: StringEnum(SETTLEMENT_STATUSES),
  available_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the funds are (or became) spendable; null while frozen' }),
  settled_at: Type.String({ format: 'date-time', description: 'When the payment settled into the wallet' }),
  livemode: Type.Boolean(),
};

export const SettlementRecord = Type.Object(settlementProperties, { title: 'Settlement' });

export const settlementRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/settlements',
    {
      config: { scopes: ['settlements:read'] },
      schema: {
        summary: 'List settlements',
        description: 'One settlement per paid payment, newest first.',
        tags: ['Settlements'],
        querystring: listQuerySchema(25, 100, {
          payment_intent: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the settlement of this payment intent' })),
          status: Type.Optional(StringEnum(SETTLEMENT_STATUSES)),
        }),
        response: { 200: ListOf(SettlementRecord, { title: 'SettlementList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await service.listSettlements(deps.db, requireAuth(request), {
        limit: q.limit,
        startingAfter: q.starting_after,
        paymentIntent: q.payment_intent,
        status: q.status,
      });
      return withResponseMeta(request, page);
    },
  );
};
