import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../app.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { DecimalString, IdParams, ListOf, StringEnum, metaProperties, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { checkoutUrlFor } from '../payment-intents/index.js';
import * as service from './refunds.service.js';

export const REFUND_STATUSES = ['requested', 'succeeded', 'failed'] as const;

const refundProperties = {
  id: Type.String({ description: 'Identifier, prefix `re_`' }),
  object: Type.Literal('refund'),
  payment_intent: Type.String(),
  amount: Type.String({ description: "The payment intent's full amount" }),
  currency: Type.String({ description: "The payment intent's currency" }),
  status: StringEnum(REFUND_STATUSES),
  reason: Type.Union([Type.String(), Type.Null()]),
  return_address: Type.Union([Type.String(), Type.Null()], { description: 'External-wallet refunds: where the on-chain send goes' }),
  created_at: Type.String({ format: 'date-time' }),
  livemode: Type.Boolean(),
};

export const RefundRecord = Type.Object(refundProperties, { title: 'Refund' });
const RefundResponse = withMeta(refundProperties, { title: 'RefundResponse' });

const reason = Type.String({ minLength: 1, maxLength: 500 });
const returnAddress = Type.String({
  maxLength: 100,
  pattern: service.RETURN_ADDRESS_PATTERN,
  'x-message': 'must be a TRON or Solana (base58) or Base or Polygon (0x and 40 hex digits) address',
  description: "External-wallet payments only, and required for them: the payer's address for the on-chain refund",
});

const CreateRefundBody = Type.Object(
  {
    payment_intent: Type.String({ minLength: 1, maxLength: 255 }),
    amount: Type.Optional(DecimalString('If sent, the full amount of the payment intent; omit it to refund in full')),
    reason: Type.Optional(reason),
    return_address: Type.Optional(returnAddress),
  },
  { additionalProperties: false },
);

const RefundRequestResponse = Type.Object(
  {
    object: Type.Literal('refund_request'),
    payment_intent: Type.String(),
    status: StringEnum(REFUND_STATUSES),
    sandbox: Type.Boolean(),
    ...metaProperties,
  },
  { title: 'RefundRequest', additionalProperties: false },
);

export const refundRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const refundDeps: service.RefundDeps = {
    db: deps.db,
    clock: deps.clock,
    rails: deps.rails,
    checkoutUrl: checkoutUrlFor(deps.config),
    log: deps.logger,
  };

  app.post(
    '/refunds',
    {
      config: { scopes: ['refunds:write'] },
      schema: {
        summary: 'Refund a payment',
        description:
          'Full refunds only, at most one per payment. Sandbox refunds succeed at once; live provider-rail refunds are `requested` until reviewed. Service-balance payments are refunded in the dashboard (`use_dashboard_refund`).',
        tags: ['Refunds'],
        body: CreateRefundBody,
        response: { 201: RefundResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const row = await service.createRefund(refundDeps, requireAuth(request), {
        paymentIntent: b.payment_intent,
        amount: b.amount,
        reason: b.reason,
        returnAddress: b.return_address,
        intentParam: 'payment_intent',
      });
      return reply.code(201).send(withResponseMeta(request, service.refundView(row)));
    },
  );

  app.get(
    '/refunds',
    {
      config: { scopes: ['refunds:read'] },
      schema: {
        summary: 'List refunds',
        tags: ['Refunds'],
        querystring: listQuerySchema(20, 100, {
          payment_intent: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only refunds of this payment intent' })),
        }),
        response: { 200: ListOf(RefundRecord, { title: 'RefundList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await service.listRefunds(deps.db, requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, paymentIntent: q.payment_intent });
      return withResponseMeta(request, page);
    },
  );

  app.get(
    '/refunds/:id',
    {
      config: { scopes: ['refunds:read'] },
      schema: {
        summary: 'Retrieve a refund',
        tags: ['Refunds'],
        params: IdParams,
        response: { 200: RefundResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await service.getRefund(deps.db, requireAuth(request), request.params.id)),
  );

  app.post(
    '/payment-intents/:id/refund-request',
    {
      config: { scopes: ['refunds:write'] },
      schema: {
        summary: 'Request a refund (legacy)',
        description: 'The legacy form of `POST /refunds`, kept for its response shape; the same rules and errors. New integrations use `POST /refunds`.',
        tags: ['Refunds'],
        params: IdParams,
        body: Type.Object({ reason: Type.Optional(reason), return_address: Type.Optional(returnAddress) }, { additionalProperties: false }),
        response: { 200: RefundRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => {
      const scope = requireAuth(request);
      const row = await service.createRefund(refundDeps, scope, {
        paymentIntent: request.params.id,
        reason: request.body.reason,
        returnAddress: request.body.return_address,
        intentParam: 'id',
      });
      return withResponseMeta(request, {
        object: 'refund_request' as const,
        payment_intent: row.payment_intent_id,
        status: row.status,
        sandbox: scope.environment === 'test',
      });
    },
  );
};
