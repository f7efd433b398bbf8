// Sandbox test helpers: the payment driver and the sandbox clock.
// A live key gets 400 sandbox_only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { withResponseMeta } from '../../http/context.js';
import { idempotentResponse } from '../../http/idempotency.js';
import type { PaymentIntentRow } from '../../db/schema.js';
import { errorResponses } from '../../http/openapi.js';
import { IdParams, metaProperties, withMeta } from '../../http/schemas.js';
import { requireAuth, type RequestScope } from '../../http/scope.js';
import { isoTime, type MerchantClocks } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { DecimalString, StringEnum } from '../../shared/schema.js';
import { FAILURE_CODES, PAYMENT_METHODS, PAYMENT_OUTCOMES, paymentIntentProperties } from '../payment-intents/index.js';
import { triggerRoutes } from './trigger.routes.js';
import type { SandboxService } from './sandbox.service.js';
import type { MerchantClocks as Clocks } from '../../shared/clock.js';
import type { IntentService } from '../payment-intents/index.js';

const PaymentIntentResponse = withMeta(paymentIntentProperties, { title: 'PaymentIntentResponse' });

function requireSandbox(request: FastifyRequest): RequestScope {
  const scope = requireAuth(request);
  if (scope.environment !== 'test') {
    throw new AppError('sandbox_only', 'This endpoint exists only in the sandbox; use a cwk_test_ key on the sandbox base URL.');
  }
  return scope;
}

const SimulateBody = Type.Object(
  {
    outcome: StringEnum(PAYMENT_OUTCOMES),
    payment_method: StringEnum(PAYMENT_METHODS),
    amount: Type.Optional(
      DecimalString('Asset amount received; defaults by outcome (the amount due; half of it when underpaid; 10 % more when overpaid)'),
    ),
    failure_code: Type.Optional(
      StringEnum(FAILURE_CODES, {
        description:
          'Why an `attempt_failed` (or `failed`) outcome failed; by default card_declined for a card, customer_cancelled for M-Pesa, provider_error otherwise',
      }),
    ),
  },
  { additionalProperties: false },
);

function clockView(clocks: MerchantClocks, offsetMs: number) {
  return { object: 'sandbox_clock' as const, now: isoTime(clocks.base.nowMs() + offsetMs), offset_seconds: Math.floor(offsetMs / 1000) };
}

const ClockResponse = Type.Object(
  {
    object: Type.Literal('sandbox_clock'),
    now: Type.String({ format: 'date-time' }),
    offset_seconds: Type.Integer(),
    ...metaProperties,
  },
  { title: 'SandboxClock' },
);

export interface SandboxRouteDeps {
  sandbox: SandboxService;
  clocks: Clocks;
  intents: IntentService;
}

export const sandboxRoutes: FastifyPluginAsyncTypebox<{ deps: SandboxRouteDeps }> = async (app, { deps }) => {
  const { clocks, intents, sandbox } = deps;
  await app.register(triggerRoutes, { sandbox });

  app.post(
    '/sandbox/payment-intents/:id/simulate',
    {
      config: { scopes: ['payments:write'] },
      schema: {
        summary: 'Simulate a payment outcome (sandbox)',
        description:
          'Drives a test payment through the sandbox rail, the same code path a real rail uses, and answers the intent. Outcomes: success, failed, underpaid, overpaid, expired, cancelled, review, duplicate, dispute.',
        tags: ['Sandbox'],
        params: IdParams,
        body: SimulateBody,
        response: { 200: PaymentIntentResponse, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const scope = requireSandbox(request);
      const respond = (intent: PaymentIntentRow) => withResponseMeta(request, intents.view(intent));
      const commitWith = idempotentResponse(request, reply, 200, respond);
      return respond(await sandbox.simulate(scope, request.params.id, request.body, commitWith));
    },
  );

  app.get(
    '/sandbox/clock',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'Read the sandbox clock',
        tags: ['Sandbox'],
        response: { 200: ClockResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const scope = requireSandbox(request);
      return withResponseMeta(request, clockView(clocks, await clocks.sandboxOffsetMs(scope.merchantId)));
    },
  );

  app.post(
    '/sandbox/clock/advance',
    {
      config: { scopes: ['payments:write'] },
      schema: {
        summary: 'Advance the sandbox clock',
        description:
          "Moves this merchant's sandbox time forward and runs the time-based jobs (expiry, ...) for it at once. Live time never moves.",
        tags: ['Sandbox'],
        body: Type.Object(
          { seconds: Type.Integer({ minimum: 1, maximum: 400 * 86_400, description: 'Seconds to move forward (at most 400 days)' }) },
          { additionalProperties: false },
        ),
        response: { 200: ClockResponse, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const scope = requireSandbox(request);
      const respond = (offset: number) => withResponseMeta(request, clockView(clocks, offset));
      const commitWith = idempotentResponse(request, reply, 200, respond);
      return respond(await sandbox.advanceClock(scope, request.body.seconds, commitWith));
    },
  );
};
