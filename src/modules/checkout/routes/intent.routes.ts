// An intent's checkout: its page, its public status, and its actions (pay with a method, and in the sandbox
// a simulated wallet deposit), each action with the page's anti-forgery token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../../shared/errors.js';
import { Decimal } from '../../../shared/money.js';
import { StringEnum } from '../../../shared/schema.js';
import { PAYMENT_METHODS, isPayable } from '../../payment-intents/index.js';
import { paymentUri, type StableAsset, type WalletNetwork } from '../../rails/index.js';
import { WALLET_COOKIE } from '../../payers/index.js';
import { checkoutPage, type CheckoutWallet } from '../checkout-page.js';
import { customerError, networkName, qrDataUrl, statusView, type CheckoutIntent } from '../checkout.service.js';
import { IntentParams, PUBLIC_ROUTE, securityHeaders, type CheckoutApp, type CheckoutKit, type RequestOf } from './shared.routes.js';

const PayBody = Type.Object(
  {
    method: StringEnum(PAYMENT_METHODS),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
    card_number: Type.Optional(Type.String({ maxLength: 40 })),
    card_expiry: Type.Optional(Type.String({ maxLength: 10 })),
    card_cvc: Type.Optional(Type.String({ maxLength: 8 })),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    network: Type.Optional(Type.String({ maxLength: 20 })),
    pin: Type.Optional(Type.String({ maxLength: 12 })),
  },
  { additionalProperties: false },
);

const DepositBody = Type.Object(
  { network: Type.String({ maxLength: 20 }), asset: Type.String({ maxLength: 10 }), amount: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);

const IntentSchema = { hide: true, params: IntentParams };
const PaySchema = { hide: true, params: IntentParams, body: PayBody };
const DepositSchema = { hide: true, params: IntentParams, body: DepositBody };

async function showCheckout(kit: CheckoutKit, request: RequestOf<typeof IntentSchema>, reply: FastifyReply) {
  const wallet = await signedInWallet(kit, request);
  return kit.servePage(request, reply, request.params.id, (c, token, base) =>
    checkoutPage(c, {
      assets: kit.assets,
      token,
      statusUrl: `${base}/status`,
      payUrl: `${base}/pay`,
      depositUrl: `${base}/wallet/deposit`,
      wallet,
    }),
  );
}

/** The payer signed in to the wallet on this origin, with their balances (the live balance panel shows them). */
async function signedInWallet(kit: CheckoutKit, request: FastifyRequest): Promise<CheckoutWallet | null> {
  if (request.environment !== 'live') return null;
  const session = await kit.deps.payerAuth.session('live', request.cookies[WALLET_COOKIE]);
  if (!session) return null;
  const { balances } = await kit.deps.payerAccounts.wallet(session.payer.id, 'live');
  return { email: session.payer.email, balances: { USDT: balances.USDT.toFixed(6), USDC: balances.USDC.toFixed(6) } };
}

async function showStatus(kit: CheckoutKit, request: RequestOf<typeof IntentSchema>, reply: FastifyReply) {
  const c = await kit.requireCheckout(request, request.params.id);
  return securityHeaders(reply).send(statusView(c));
}

/** What the chosen method's rail needs from the form. */
function paymentDetails(body: Static<typeof PayBody>): Record<string, unknown> {
  return body.method === 'card'
    ? { number: body.card_number ?? '', expiry: body.card_expiry ?? '', cvc: body.card_cvc ?? '', email: body.email ?? '' }
    : body.method === 'mpesa'
      ? { phone: body.phone ?? '' }
      : body.method === 'external_wallet'
        ? { network: body.network }
        : {};
}

async function pay(kit: CheckoutKit, request: RequestOf<typeof PaySchema>, reply: FastifyReply) {
  const c = await kit.requireCheckout(request, request.params.id);
  await kit.tokens.check(request, c.row.id);
  securityHeaders(reply);
  const body = request.body;
  const scope = { merchantId: c.row.merchant_id, environment: c.row.environment };
  if (!isPayable(c.row, c.now)) throw new AppError('intent_not_payable', 'This payment can no longer be paid.');
  if (c.linkFull) throw customerError(new AppError('payment_link_completed', ''), c.merchantName);
  if (!c.methods.includes(body.method)) {
    throw new AppError('payment_method_unavailable', 'This payment method is not available for this payment.', { param: 'method' });
  }
  const rail = kit.deps.rails.railFor(c.row.environment, body.method)!;
  const details = paymentDetails(body);
  if (body.method === 'service_balance' && c.row.environment === 'live') {
    // The live balance: the payer signed in to the wallet on this origin, and the PIN they typed.
    const session = await kit.deps.payerAuth.session('live', request.cookies[WALLET_COOKIE]);
    Object.assign(details, { payer: session?.payer.id ?? null, pin: body.pin ?? '', ip: request.ip });
  }
  let result;
  try {
    result = await rail.startPayment({ scope, intent: c.row, method: body.method, details });
  } catch (err) {
    throw customerError(err, c.merchantName);
  }
  if (result.state === 'completed') return { state: 'completed', status: result.intent.status };
  const next = { ...result.nextAction };
  if (next['type'] === 'wallet_deposit') await describeWalletDeposit(c, next);
  return { state: 'pending', status: result.intent.status, next_action: next };
}

/** Adds to a wallet deposit's next action what the page shows: the network's name, the amounts, the payment URI and its QR code. */
async function describeWalletDeposit(c: CheckoutIntent, next: Record<string, unknown>): Promise<void> {
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

async function simulateDeposit(kit: CheckoutKit, request: RequestOf<typeof DepositSchema>, reply: FastifyReply) {
  const c = await kit.requireCheckout(request, request.params.id);
  await kit.tokens.check(request, c.row.id);
  securityHeaders(reply);
  const rail = kit.deps.rails.railFor(c.row.environment, 'external_wallet');
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
}

export function registerIntentRoutes(app: CheckoutApp, kit: CheckoutKit): void {
  app.get('/checkout/:id', { ...PUBLIC_ROUTE, schema: IntentSchema }, (request, reply) => showCheckout(kit, request, reply));
  app.get('/checkout/:id/status', { ...PUBLIC_ROUTE, schema: IntentSchema }, (request, reply) => showStatus(kit, request, reply));
  app.post('/checkout/:id/pay', { ...PUBLIC_ROUTE, schema: PaySchema }, (request, reply) => pay(kit, request, reply));
  app.post('/checkout/:id/wallet/deposit', { ...PUBLIC_ROUTE, schema: DepositSchema }, (request, reply) =>
    simulateDeposit(kit, request, reply),
  );
}
