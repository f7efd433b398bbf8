// What every checkout route uses: the services (CheckoutRouteDeps), the security headers of every answer,
// and the kit (CheckoutKit): the anti-forgery tokens, the page assets, the page of an intent's checkout or
// the not-found page. Named *.routes.ts because it registers routes (the assets) and takes HTTP types
// (src/http/), which only route files may.
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import { Type } from 'typebox';
import { serveAssets } from '../../../http/static-assets.js';
import { AppError } from '../../../shared/errors.js';
import type { Environment } from '../../../shared/scope.js';
import { messagePage, type Assets } from '../checkout-page.js';
import { loadCheckoutSecret } from '../checkout.repo.js';
import { loadCheckout, type CheckoutDeps, type CheckoutIntent } from '../checkout.service.js';
import { CheckoutTokens } from './tokens.routes.js';
import type { PayerAccounts, PayerAuth } from '../../payers/index.js';

export interface CheckoutRouteDeps extends CheckoutDeps {
  /** The origin of each environment's base URL (the checkout's own). */
  origins: Record<Environment, string>;
  /** The signed-in payer of the wallet cookie, and their balances (paying from the live balance). */
  payerAuth: Pick<PayerAuth, 'session'>;
  payerAccounts: Pick<PayerAccounts, 'wallet'>;
}

/** The app as the checkout's plugin receives it: route schemas type each request (TypeBox). */
export type CheckoutApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** A request as a route with this schema receives it: params, query and body typed from the schema. */
export type RequestOf<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  TypeBoxTypeProvider
>;

export const CHECKOUT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CHECKOUT_CSP)
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

/** Every checkout route: reachable without an API key (an unguessable id instead), not in the API reference. */
export const PUBLIC_ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };

export const IntentParams = Type.Object({ id: Type.String({ maxLength: 80 }) });

/** Loads the checkout's anti-forgery key and registers its script and stylesheet; answers the kit its routes take. */
export async function checkoutKit(app: CheckoutApp, deps: CheckoutRouteDeps): Promise<CheckoutKit> {
  const tokens = new CheckoutTokens(app as unknown as FastifyInstance, await loadCheckoutSecret(deps.db, deps.clocks.base.nowMs()));
  const files = serveAssets(app, 'checkout', '/assets', ['checkout.js', 'checkout.css']);
  return new CheckoutKit(deps, tokens, { script: files['checkout.js']!, style: files['checkout.css']! });
}

export class CheckoutKit {
  constructor(
    readonly deps: CheckoutRouteDeps,
    readonly tokens: CheckoutTokens,
    readonly assets: Assets,
  ) {}

  /** Cookies of an environment served over https are marked Secure. */
  secure(env: Environment): boolean {
    return this.deps.origins[env].startsWith('https:');
  }

  notFoundPage(request: FastifyRequest, reply: FastifyReply) {
    return securityHeaders(reply)
      .code(404)
      .type('text/html; charset=utf-8')
      .send(
        messagePage(
          this.assets,
          request.environment === 'test',
          'Payment not found',
          'We could not find this payment. Check the address, or ask the merchant to send it again.',
        ),
      );
  }

  async requireCheckout(request: FastifyRequest, id: string): Promise<CheckoutIntent> {
    const c = await loadCheckout(this.deps, request.environment, id);
    if (!c) throw new AppError('resource_missing', 'No such payment.', { param: 'id' });
    return c;
  }

  /** A page of an intent's checkout (its anti-forgery token set), or the not-found page. */
  async servePage(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    render: (c: CheckoutIntent, token: string, base: string) => string,
  ) {
    const c = await loadCheckout(this.deps, request.environment, id);
    if (!c) return this.notFoundPage(request, reply);
    const token = this.tokens.forPage(request, reply, c.row.id, this.secure(c.row.environment));
    return securityHeaders(reply)
      .type('text/html; charset=utf-8')
      .send(render(c, token, `/checkout/${c.row.id}`));
  }
}
