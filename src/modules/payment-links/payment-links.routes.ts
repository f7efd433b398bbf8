import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../app.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { DecimalString, IdParams, Metadata, MetadataRecord, StringEnum, withMeta } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { intentContext } from '../payment-intents/index.js';
import * as service from './payment-links.service.js';

const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T, description: string) =>
  Type.Union([t, Type.Null()], { description });

export const paymentLinkProperties = {
  id: Type.String({ description: 'Identifier, prefix `pl_`' }),
  object: Type.Literal('payment_link'),
  url: Type.String({ format: 'uri', description: 'Reusable hosted page; each open mints a fresh payment intent' }),
  status: StringEnum(['active', 'completed', 'expired'] as const),
  title: Type.String(),
  amount: nullable(Type.String(), 'Fiat amount; null when the customer enters it'),
  currency: Type.String(),
  settlement_currency: Type.String(),
  paid_count: Type.Integer({ description: 'Paid intents minted by this link (a later refund still counts)' }),
  max_payments: nullable(Type.Integer(), 'Cap on paid payments; null for no cap'),
  expires_at: nullable(Type.String({ format: 'date-time' }), 'When the link stops minting intents; null for never'),
  metadata: MetadataRecord,
  created_at: Type.String({ format: 'date-time' }),
  livemode: Type.Boolean(),
};

export const PaymentLinkResponse = withMeta(paymentLinkProperties, { title: 'PaymentLinkResponse' });

const CreateLinkBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Shown to the customer, and the description of every intent minted' }),
    currency: Type.String({ maxLength: 10, description: 'KES, USD, EUR, GBP, NGN, TZS, GHS, ZAR, UGX or RWF' }),
    amount: Type.Optional(DecimalString('Fiat amount; omit so that the customer enters it')),
    settlement_currency: Type.Optional(Type.String({ maxLength: 10, default: 'USDT', description: 'USDT (default), USDC, BTC, ETH or SOL' })),
    max_payments: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Cap on paid payments; omit for no cap' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the link stops minting intents (must be in the future)' })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);

export const paymentLinkRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  const ctx = intentContext(deps);
  const urlFor = service.linkUrlFor(deps.config);

  app.post(
    '/payment-links',
    {
      config: { scopes: ['payment_links:write', 'checkout:write'] },
      schema: {
        summary: 'Create a payment link',
        tags: ['Payment links'],
        body: CreateLinkBody,
        response: { 201: PaymentLinkResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const link = await service.createLink(ctx, urlFor, requireAuth(request), request.body);
      return reply.code(201).send(withResponseMeta(request, link));
    },
  );

  app.get(
    '/payment-links/:id',
    {
      config: { scopes: ['payment_links:read', 'payments:read'] },
      schema: {
        summary: 'Retrieve a payment link',
        tags: ['Payment links'],
        params: IdParams,
        response: { 200: PaymentLinkResponse, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => withResponseMeta(request, await service.getLink(ctx, urlFor, requireAuth(request), request.params.id)),
  );
};
