import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import type { RefundRow } from '../../db/schema.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, metaProperties, withMeta } from '../../http/schemas.js';
import { DecimalString, StringEnum } from '../../shared/schema.js';
import { requireAuth } from '../../http/scope.js';
import { REFUND_STATUSES, RefundRecord, refundProperties, refundView } from './refund.schema.js';
import { RETURN_ADDRESS_PATTERN, type RefundService } from './refunds.service.js';

const RefundResponse = withMeta(refundProperties, { title: 'RefundResponse' });

const reason = Type.String({ minLength: 1, maxLength: 500 });
const returnAddress = Type.String({
  maxLength: 100,
  pattern: RETURN_ADDRESS_PATTERN,
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

const CreateRefundSchema = {
  summary: 'Refund a payment',
  description:
    'Full refunds only, at most one per payment. Sandbox refunds succeed at once; live provider-rail refunds are `requested` until reviewed. Service-balance payments are refunded in the dashboard (`use_dashboard_refund`).',
  tags: ['Refunds'],
  body: CreateRefundBody,
  response: { 201: RefundResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
};

const ListRefundsSchema = {
  summary: 'List refunds',
  tags: ['Refunds'],
  querystring: listQuerySchema(20, 100, {
    payment_intent: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only refunds of this payment intent' })),
  }),
  response: { 200: ListOf(RefundRecord, { title: 'RefundList' }), ...errorResponses(400, 401, 403, 429) },
};

const RetrieveRefundSchema = {
  summary: 'Retrieve a refund',
  tags: ['Refunds'],
  params: IdParams,
  response: { 200: RefundResponse, ...errorResponses(401, 403, 404, 429) },
};

const RefundRequestSchema = {
  summary: 'Request a refund (legacy)',
  description:
    'The legacy form of `POST /refunds`, kept for its response shape; the same rules and errors. New integrations use `POST /refunds`.',
  tags: ['Refunds'],
  params: IdParams,
  body: Type.Object({ reason: Type.Optional(reason), return_address: Type.Optional(returnAddress) }, { additionalProperties: false }),
  response: { 200: RefundRequestResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
};

export const refundRoutes: FastifyPluginAsyncTypebox<{ refunds: RefundService }> = async (app, { refunds }) => {
  app.post('/refunds', { config: { scopes: ['refunds:write'] }, schema: CreateRefundSchema }, async (request, reply) => {
    const b = request.body;
    const respond = (row: RefundRow) => withResponseMeta(request, refundView(row));
    const input = { paymentIntent: b.payment_intent, amount: b.amount, reason: b.reason, returnAddress: b.return_address };
    const row = await refunds.create(
      requireAuth(request),
      { ...input, intentParam: 'payment_intent' },
      idempotentResponse(request, reply, 201, respond),
    );
    return reply.code(201).send(respond(row));
  });

  app.get('/refunds', { config: { scopes: ['refunds:read'] }, schema: ListRefundsSchema }, async (request) => {
    const q = request.query;
    const page = await refunds.list(requireAuth(request), {
      limit: q.limit,
      startingAfter: q.starting_after,
      paymentIntent: q.payment_intent,
    });
    return withResponseMeta(request, page);
  });

  app.get('/refunds/:id', { config: { scopes: ['refunds:read'] }, schema: RetrieveRefundSchema }, async (request) =>
    withResponseMeta(request, await refunds.get(requireAuth(request), request.params.id)),
  );

  app.post(
    '/payment-intents/:id/refund-request',
    { config: { scopes: ['refunds:write'] }, schema: RefundRequestSchema },
    async (request, reply) => {
      const scope = requireAuth(request);
      const respond = (row: RefundRow) =>
        withResponseMeta(request, {
          object: 'refund_request' as const,
          payment_intent: row.payment_intent_id,
          status: row.status,
          sandbox: scope.environment === 'test',
        });
      const input = { paymentIntent: request.params.id, reason: request.body.reason, returnAddress: request.body.return_address };
      return respond(await refunds.create(scope, { ...input, intentParam: 'id' }, idempotentResponse(request, reply, 200, respond)));
    },
  );
};
