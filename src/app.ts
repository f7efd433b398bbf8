// buildApp(deps): plugins in a fixed order, the auth hook, module routes, error and not-found handlers.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from './deps.js';
import { registerAuth } from './http/auth.js';
import { registerRequestContext } from './http/context.js';
import { RequestLog } from './http/request-log.js';
import { frameworkErrorHandler, registerErrorHandling } from './http/errors.js';
import { registerForms } from './http/forms.js';
import { registerIdempotency } from './http/idempotency.js';
import { checkStrings, registerJsonParser } from './http/json-parser.js';
import { registerOpenApi } from './http/openapi.js';
import { serializerCompiler, validatorCompiler } from './http/validation.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { balanceRoutes } from './modules/balances/balances.routes.js';
import { checkoutRoutes } from './modules/checkout/checkout.routes.js';
import { consoleRoutes } from './modules/console/console.routes.js';
import { walletRoutes } from './modules/payers/wallet.routes.js';
import { mpesaCallbackRoutes } from './modules/rails/mpesa/mpesa.routes.js';
import { paystackRoutes } from './modules/rails/card/paystack.routes.js';
import { paypalRoutes } from './modules/rails/paypal/paypal.routes.js';
import { customerRoutes } from './modules/customers/customers.routes.js';
import { docsRoutes } from './modules/docs/docs.routes.js';
import { registerHealth } from './http/health.js';
import { eventFeedRoutes } from './modules/event-feed/event-feed.routes.js';
import { paymentIntentRoutes } from './modules/payment-intents/payment-intents.routes.js';
import { paymentLinkRoutes } from './modules/payment-links/payment-links.routes.js';
import { quoteRoutes } from './modules/quotes/quotes.routes.js';
import { walletDepositRoutes } from './modules/rails/wallet-deposits.routes.js';
import { rateRoutes } from './modules/rates/rates.routes.js';
import { refundRoutes } from './modules/refunds/refunds.routes.js';
import { payoutRoutes } from './modules/payouts/payouts.routes.js';
import { reportRoutes } from './modules/reports/reports.routes.js';
import { sandboxRoutes } from './modules/sandbox/sandbox.routes.js';
import { settlementRoutes } from './modules/settlements/settlements.routes.js';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.js';
import { newId } from './shared/ids.js';
import { logContext } from './shared/log-context.js';
import { metricsEnabled, observeHttp } from './shared/metrics.js';

export const BODY_LIMIT = 1024 * 1024;

export async function buildApp(deps: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    // The id also names the request's log context (opened by the listener, src/server.ts), before Fastify
    // writes its first line about it.
    genReqId: () => {
      const id = newId('request');
      const store = logContext.getStore();
      if (store) store.requestId = id;
      return id;
    },
    requestIdHeader: false,
    // The request id reaches every log line through the logger's mixin (shared/log-context.ts), so a
    // request's lines need no child logger of their own.
    childLoggerFactory: (logger) => logger,
    logController: new RequestLog(),
    bodyLimit: BODY_LIMIT,

    trustProxy: deps.config.trustProxy.length > 0 ? [...deps.config.trustProxy] : false,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: frameworkErrorHandler(deps.config),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Every /v1 route must say who may call it: a scope list or an explicit access level.
  app.addHook('onRoute', (route) => {
    const cfg = (route.config ?? {}) as { scopes?: unknown[]; access?: string };
    if (route.url.startsWith('/v1/') && !cfg.access && !(cfg.scopes && cfg.scopes.length > 0)) {
      throw new Error(`route ${String(route.method)} ${route.url} declares neither scopes nor access`);
    }
    // Unknown query parameters answer 400 parameter_unknown on every endpoint, not only on lists: a route
    // that takes none gets an empty query schema.
    if (route.url.startsWith('/v1/') && cfg.access !== 'public' && route.schema && !route.schema.querystring) {
      route.schema = { ...route.schema, querystring: Type.Object({}, { additionalProperties: false }) };
    }
  });

  // Request counts and latency by route pattern and status (shared/metrics.ts), when metrics are on.
  if (metricsEnabled()) {
    app.addHook('onResponse', (request, reply, done) => {
      observeHttp(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
  registerJsonParser(app);
  registerRequestContext(app, deps.config);
  registerErrorHandling(app, deps.config);
  registerAuth(app, { db: deps.db, clock: deps.clocks.base, config: deps.config, rateLimiter: deps.rateLimiter });
  registerIdempotency(app, { db: deps.db, clock: deps.clocks.base, lockMs: deps.config.idempotencyLockMs, box: deps.secrets });
  // Bodies are optional on endpoints whose fields are all optional: no body reads as {}.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.method === 'POST') request.body = {};
    // Path and query text obeys the body's rule (no NUL, no lone surrogate): PostgreSQL cannot even
    // compare such text, so it would otherwise surface as a 500.
    try {
      checkStrings(request.params, '');
      checkStrings(request.query, '');
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
  await registerOpenApi(app, deps.config);

  // Cookies, urlencoded forms and CSRF tokens of the HTML pages (the checkout and the console).
  await registerForms(app);
  registerHealth(app, deps.database, deps.rates);
  await registerPages(app, deps);
  await app.register(mpesaCallbackRoutes, { rail: deps.mpesa, topups: deps.payerMpesaTopups });
  await app.register(paystackRoutes, { rail: deps.card, webhooks: deps.paystackWebhooks });
  await app.register(paypalRoutes, { rail: deps.paypal, webhooks: deps.paypalWebhooks });
  await app.register(
    async (v1) => {
      await v1.register(authRoutes);
      await v1.register(customerRoutes, { customers: deps.customers });
      await v1.register(rateRoutes, { rates: deps.rates });
      await v1.register(quoteRoutes, { quotes: deps.quotes });
      await v1.register(paymentIntentRoutes, { intents: deps.intents });
      await v1.register(sandboxRoutes, { deps });
      await v1.register(paymentLinkRoutes, { links: deps.links });
      await v1.register(walletDepositRoutes, { db: deps.db });
      await v1.register(webhookRoutes, { webhooks: deps.webhooks });
      await v1.register(eventFeedRoutes, { db: deps.db });
      await v1.register(refundRoutes, { refunds: deps.refunds });
      await v1.register(payoutRoutes, { payouts: deps.payouts });
      await v1.register(settlementRoutes, { db: deps.db });
      await v1.register(balanceRoutes, { db: deps.db });
      await v1.register(reportRoutes, { reports: deps.reports });
    },
    { prefix: '/v1' },
  );
  return app;
}

/** The HTML areas: the docs, the hosted checkout, the merchant console and the payer's wallet. */
async function registerPages(app: FastifyInstance, deps: Services): Promise<void> {
  await app.register(docsRoutes);
  await app.register(checkoutRoutes, { deps });
  await app.register(consoleRoutes, { deps });
  await app.register(walletRoutes, { deps: { ...deps, liveOn: deps.config.payerAccounts } });
}
