// The hosted checkout at every intent's checkout_url, its public status and pay actions, the simulated
// PayPal approval page, and payment link pages (/pay/:id). Public routes (no key): each is reached only
// through an unguessable id, shows nothing the page does not, and every action needs the page's
// anti-forgery token. Pages carry a strict Content-Security-Policy.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { serveAssets } from '../../http/static-assets.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../shared/errors.js';
import { StringEnum } from '../../shared/schema.js';
import type { Environment } from '../../shared/scope.js';
import { findMerchantName } from '../merchants/index.js';
import { PAYMENT_METHODS, isPayable } from '../payment-intents/index.js';
import { paymentUri, type StableAsset, type WalletNetwork } from '../rails/index.js';
import { Decimal } from '../../shared/money.js';
import type { OpenLinkResult } from '../payment-links/index.js';
import { checkoutPage, linkPage, messagePage, paypalPage, type Assets } from './checkout-page.js';
import { loadCheckoutSecret } from './checkout.repo.js';
import {
  customerError,
  loadCheckout,
  networkName,
  qrDataUrl,
  statusView,
  type CheckoutDeps,
  type CheckoutIntent,
} from './checkout.service.js';
import { CheckoutTokens } from './csrf.js';

export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CHECKOUT_CSP)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

const PayBody = Type.Object(
  {
    method: StringEnum(PAYMENT_METHODS),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
    card_number: Type.Optional(Type.String({ maxLength: 40 })),
    card_expiry: Type.Optional(Type.String({ maxLength: 10 })),
    card_cvc: Type.Optional(Type.String({ maxLength: 8 })),
    network: Type.Optional(Type.String({ maxLength: 20 })),
  },
  { additionalProperties: false },
);

const DepositBody = Type.Object(
  { network: Type.String({ maxLength: 20 }), asset: Type.String({ maxLength: 10 }), amount: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);

const IntentParams = Type.Object({ id: Type.String({ maxLength: 80 }) });
const PaypalParams = Type.Object({ id: Type.String({ maxLength: 80 }), ref: Type.String({ maxLength: 80 }) });

export interface CheckoutRouteDeps extends CheckoutDeps {
  /** The origin of each environment's base URL (the checkout's own). */
  origins: Record<Environment, string>;
}

export const checkoutRoutes: FastifyPluginAsyncTypebox<{ deps: CheckoutRouteDeps }> = async (app, { deps }) => {
  const tokens = new CheckoutTokens(await loadCheckoutSecret(deps.db, deps.clocks.base.nowMs()));
  const files = serveAssets(app, 'checkout', '/assets', ['checkout.js', 'checkout.css']);
  const assets: Assets = { script: files['checkout.js']!, style: files['checkout.css']! };
  const secure = (env: Environment) => deps.origins[env].startsWith('https:');
  const publicRoute = { config: { access: 'public' as const }, schema: { hide: true } };

  const notFoundPage = (request: FastifyRequest, reply: FastifyReply) =>
    securityHeaders(reply)
      .code(404)
      .type('text/html; charset=utf-8')
      .send(
        messagePage(
          assets,
          request.environment === 'test',
          'Payment not found',
          'We could not find this payment. Check the address, or ask the merchant to send it again.',
        ),
      );

  async function requireCheckout(request: FastifyRequest, id: string): Promise<CheckoutIntent> {
    const c = await loadCheckout(deps, request.environment, id);
    if (!c) throw new AppError('resource_missing', 'No such payment.', { param: 'id' });
    return c;
  }

  /** A page of an intent's checkout (its anti-forgery token set), or the not-found page. */
  async function servePage(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    render: (c: CheckoutIntent, token: string, base: string) => string,
  ) {
    const c = await loadCheckout(deps, request.environment, id);
    if (!c) return notFoundPage(request, reply);
    const token = tokens.forPage(request, reply, c.row.id, secure(c.row.environment));
    return securityHeaders(reply)
      .type('text/html; charset=utf-8')
      .send(render(c, token, `/checkout/${c.row.id}`));
  }

  app.get('/checkout/:id', { ...publicRoute, schema: { hide: true, params: IntentParams } }, async (request, reply) =>
    servePage(request, reply, request.params.id, (c, token, base) =>
      checkoutPage(c, { assets, token, statusUrl: `${base}/status`, payUrl: `${base}/pay`, depositUrl: `${base}/wallet/deposit` }),
    ),
  );

  app.get('/checkout/:id/status', { ...publicRoute, schema: { hide: true, params: IntentParams } }, async (request, reply) => {
    const c = await requireCheckout(request, request.params.id);
    return securityHeaders(reply).send(statusView(c));
  });

  app.post('/checkout/:id/pay', { ...publicRoute, schema: { hide: true, params: IntentParams, body: PayBody } }, async (request, reply) => {
    const c = await requireCheckout(request, request.params.id);
    tokens.check(request, c.row.id);
    securityHeaders(reply);
    const body = request.body;
    const scope = { merchantId: c.row.merchant_id, environment: c.row.environment };
    if (!isPayable(c.row, c.now)) throw new AppError('intent_not_payable', 'This payment can no longer be paid.');
    if (c.linkFull) throw customerError(new AppError('payment_link_completed', ''), c.merchantName);
    if (!c.methods.includes(body.method)) {
      throw new AppError('payment_method_unavailable', 'This payment method is not available for this payment.', { param: 'method' });
    }
    const rail = deps.rails.railFor(c.row.environment, body.method)!;
    const details: Record<string, unknown> =
      body.method === 'card'
        ? { number: body.card_number ?? '', expiry: body.card_expiry ?? '', cvc: body.card_cvc ?? '' }
        : body.method === 'mpesa'
          ? { phone: body.phone ?? '' }
          : body.method === 'external_wallet'
            ? { network: body.network }
            : {};
    let result;
    try {
      result = await rail.startPayment({ scope, intent: c.row, method: body.method, details });
    } catch (err) {
      throw customerError(err, c.merchantName);
    }
    if (result.state === 'completed') return { state: 'completed', status: result.intent.status };
    const next = { ...result.nextAction };
    if (next['type'] === 'wallet_deposit') {
      const network = String(next['network']) as WalletNetwork;
      const amount = String(next['amount']);
      next['network_name'] = networkName(network);
      // One amount per method: the exact amount to send is what is due plus the tag that marks this payment.
      next['amount_due'] = c.row.pay_amount;
      next['tag'] = new Decimal(amount).minus(c.row.pay_amount).toFixed(6);
      next['payment_uri'] = paymentUri(network, String(next['asset']) as StableAsset, String(next['address']), amount, {
        ...(typeof next['token'] === 'string' ? { token: next['token'] } : {}),
        ...(typeof next['chain_id'] === 'number' ? { chainId: next['chain_id'] } : {}),
      });
      next['qr'] = await qrDataUrl(String(next['payment_uri']));
    }
    return { state: 'pending', status: result.intent.status, next_action: next };
  });

  app.post(
    '/checkout/:id/wallet/deposit',
    { ...publicRoute, schema: { hide: true, params: IntentParams, body: DepositBody } },
    async (request, reply) => {
      const c = await requireCheckout(request, request.params.id);
      tokens.check(request, c.row.id);
      securityHeaders(reply);
      const rail = deps.rails.railFor(c.row.environment, 'external_wallet');
      if (c.row.environment !== 'test' || !rail?.simulateDeposit) {
        throw new AppError('sandbox_only', 'Simulated deposits exist only in the sandbox.');
      }
      const scope = { merchantId: c.row.merchant_id, environment: c.row.environment };
      const deposit = await rail.simulateDeposit(scope, request.body);
      return {
        deposit: {
          id: deposit.id,
          status: deposit.status,
          reason: deposit.reason,
          credited_this_payment: deposit.payment_intent === c.row.id && deposit.status === 'credited',
        },
      };
    },
  );

  app.get('/checkout/:id/paypal/:ref', { ...publicRoute, schema: { hide: true, params: PaypalParams } }, async (request, reply) =>
    servePage(request, reply, request.params.id, (c, token, base) =>
      paypalPage(c, { assets, token, approveUrl: `${base}/paypal/${encodeURIComponent(request.params.ref)}`, backUrl: base }),
    ),
  );

  app.post(
    '/checkout/:id/paypal/:ref',
    {
      ...publicRoute,
      schema: { hide: true, params: PaypalParams, body: Type.Object({ approve: Type.Boolean() }, { additionalProperties: false }) },
    },
    async (request, reply) => {
      const c = await requireCheckout(request, request.params.id);
      tokens.check(request, c.row.id);
      securityHeaders(reply);
      const rail = deps.rails.railFor(c.row.environment, 'paypal');
      if (!rail?.approve)
        throw new AppError('payment_method_unavailable', 'PayPal is not available for this payment.', { param: 'method' });
      const scope = { merchantId: c.row.merchant_id, environment: c.row.environment };
      try {
        await rail.approve(scope, request.params.ref, request.body.approve);
      } catch (err) {
        throw customerError(err, c.merchantName);
      }
      return { redirect: `/checkout/${c.row.id}` };
    },
  );

  // Payment link pages. Opening the url (GET or HEAD, a link preview or a crawler included) shows the link
  // and mints nothing; sending its form (the customer acting, with the amount when the link has none)
  // mints the visit's intent once and sends the customer to its checkout.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const html = (reply: FastifyReply, code: number, page: string) => reply.code(code).type('text/html; charset=utf-8').send(page);

  async function findLink(request: FastifyRequest, id: string) {
    return /^pl_[0-9A-Za-z]{1,64}$/.test(id) ? deps.links.findPublic(request.environment, id) : undefined;
  }

  const linkNotFound = (request: FastifyRequest) =>
    messagePage(
      assets,
      request.environment === 'test',
      'Payment link not found',
      'This payment link is not valid. Check the address, or ask the merchant for a new one.',
    );

  /** The link's page for one result of opening or sending it. */
  async function linkAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    opened: OpenLinkResult,
    token: string,
    value: string,
    /** Of a page that shows an error: 400 unless said (503 when prices are stale). */
    errorStatus = 400,
  ): Promise<FastifyReply> {
    const link = opened.link;
    const sandbox = link.environment === 'test';
    const merchantName = (await findMerchantName(deps.db, link.merchant_id)) ?? '';
    switch (opened.kind) {
      case 'inactive': {
        const [title, text] =
          opened.status === 'expired'
            ? ['This payment link has expired', `It no longer takes payments. Ask ${merchantName} for a new link.`]
            : opened.status === 'completed'
              ? ['This payment link is complete', `${merchantName} has received all the payments this link accepts, so it takes no more.`]
              : ['This payment link is not active', `${merchantName} has paused this link, so it takes no payments now.`];
        return html(reply, 410, messagePage(assets, sandbox, title, text));
      }
      case 'page':
        return html(
          reply,
          opened.error ? errorStatus : 200,
          linkPage(link, merchantName, { assets, error: opened.error, value, action: `/pay/${link.id}`, token }),
        );
      case 'minted':
        return reply.code(303).header('location', `/checkout/${opened.intentId}`).send();
    }
  }

  app.route({
    method: ['GET', 'HEAD'],
    url: '/pay/:id',
    ...publicRoute,
    schema: { hide: true, params: IntentParams, querystring: Type.Object({ amount: Type.Optional(Type.String({ maxLength: 200 })) }) },
    handler: async (request, reply) => {
      securityHeaders(reply);
      const link = await findLink(request, request.params.id);
      if (!link) return html(reply, 404, linkNotFound(request));
      const token = tokens.forVisit(request, reply, link.id, secure(link.environment));
      // `?amount=` fills in the form (a merchant may link to a suggested amount); it never mints.
      return linkAnswer(request, reply, await deps.links.open(link), token, request.query.amount ?? '');
    },
  });

  app.post(
    '/pay/:id',
    {
      ...publicRoute,
      schema: {
        hide: true,
        params: IntentParams,
        body: Type.Object({
          visit: Type.Optional(Type.String({ maxLength: 200 })),
          amount: Type.Optional(Type.String({ maxLength: 200 })),
        }),
      },
    },
    async (request, reply) => {
      securityHeaders(reply);
      const link = await findLink(request, request.params.id);
      if (!link) return html(reply, 404, linkNotFound(request));
      let visit: string;
      try {
        visit = tokens.checkVisit(request, link.id, request.body.visit);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const fresh = tokens.forVisit(request, reply, link.id, secure(link.environment));
        const page = await deps.links.open(link);
        if (page.kind !== 'page') return linkAnswer(request, reply, page, fresh, '');
        return linkAnswer(request, reply, { ...page, error: 'This page had gone stale, so nothing was paid. Try again.' }, fresh, '');
      }
      const amount = request.body.amount;
      let minted: OpenLinkResult;
      try {
        minted = await deps.links.mint(link, visit, amount);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'rates_unavailable') throw err;
        // The customer sees the form again, told that nothing happened; the merchant's log says why.
        request.log.warn({ payment_link: link.id, reason: err.message }, 'payment link minted nothing: rates_unavailable');
        const page = {
          kind: 'page' as const,
          link,
          error: 'Prices are being updated, so nothing was charged. Try again in a few minutes.',
        };
        return linkAnswer(request, reply, page, request.body.visit!, amount ?? '', 503);
      }
      return linkAnswer(request, reply, minted, request.body.visit!, amount ?? '');
    },
  );
};
