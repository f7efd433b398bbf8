import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import { errorResponses } from '../../http/openapi.js';
import { listQuerySchema } from '../../http/pagination.js';
import { IdParams, ListOf, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import type { PayoutRow } from '../../db/schema.js';
import { DecimalString, StringEnum } from '../../shared/schema.js';
import { PAYOUT_ASSETS, PAYOUT_NETWORKS, PAYOUT_STATUSES, PayoutRecord, payoutProperties, payoutView } from './payout.schema.js';
import type { PayoutService } from './payouts.service.js';

const PayoutResponse = withMeta(payoutProperties, { title: 'PayoutResponse' });

const CreatePayoutBody = Type.Object(
  {
    amount: DecimalString('In the asset, more than 0 and at most the available balance; at most 6 decimals'),
    asset: StringEnum(PAYOUT_ASSETS),
    network: StringEnum([...PAYOUT_NETWORKS, ...PAYOUT_NETWORKS.map((n) => n.toLowerCase())], {
      description: '`BASE`, `POLYGON`, `TRON` or `SOLANA` (lower case is accepted too)',
    }),
    address: Type.String({ minLength: 1, maxLength: 100, description: "The receiving address on the network, the merchant's own" }),
  },
  { additionalProperties: false },
);

const CreatePayoutSchema = {
  summary: 'Pay out',
  description:
    'Holds `amount` from the available balance at once and sends it to `address` on `network` from the operator’s hot wallet (which pays the network fee). Live payouts above the operator’s auto-approval threshold wait for approval (`requested`); an auto-approved one may already be `sent`. Sandbox payouts are `sent` at once with a simulated hash and `paid` 30 s of sandbox time later.',
  tags: ['Payouts'],
  body: CreatePayoutBody,
  response: { 201: PayoutResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
};

const ListPayoutsSchema = {
  summary: 'List payouts',
  tags: ['Payouts'],
  querystring: listQuerySchema(20, 100, {
    status: Type.Optional(StringEnum(PAYOUT_STATUSES, { description: 'Only payouts in this status' })),
  }),
  response: { 200: ListOf(PayoutRecord, { title: 'PayoutList' }), ...errorResponses(400, 401, 403, 429) },
};

const RetrievePayoutSchema = {
  summary: 'Retrieve a payout',
  tags: ['Payouts'],
  params: IdParams,
  response: { 200: PayoutResponse, ...errorResponses(401, 403, 404, 429) },
};

const FailSandboxPayoutSchema = {
  summary: 'Fail a sandbox payout',
  description: 'Sandbox only: a payout not yet paid becomes `failed` (its hold is released and `payout.failed` fires).',
  tags: ['Sandbox'],
  params: IdParams,
  response: { 200: PayoutResponse, ...errorResponses(400, 401, 403, 404, 409, 429) },
};

export const payoutRoutes: FastifyPluginAsyncTypebox<{ payouts: PayoutService }> = async (app, { payouts }) => {
  app.post('/payouts', { config: { scopes: ['payouts:write'] }, schema: CreatePayoutSchema }, async (request, reply) => {
    const respond = (row: PayoutRow) => withResponseMeta(request, payoutView(row));
    const row = await payouts.create(
      requireAuth(request),
      request.body,
      { actor: 'api' },
      idempotentResponse(request, reply, 201, respond),
    );
    return reply.code(201).send(respond(row));
  });

  app.get('/payouts', { config: { scopes: ['payouts:read'] }, schema: ListPayoutsSchema }, async (request) => {
    const q = request.query;
    const page = await payouts.list(requireAuth(request), { limit: q.limit, startingAfter: q.starting_after, status: q.status });
    return withResponseMeta(request, page);
  });

  app.get('/payouts/:id', { config: { scopes: ['payouts:read'] }, schema: RetrievePayoutSchema }, async (request) =>
    withResponseMeta(request, await payouts.get(requireAuth(request), request.params.id)),
  );

  app.post('/sandbox/payouts/:id/fail', { config: { scopes: ['payouts:write'] }, schema: FailSandboxPayoutSchema }, async (request) =>
    withResponseMeta(request, payoutView(await payouts.failSandboxPayout(requireAuth(request), request.params.id))),
  );
};
