// A local PayPal for tests and for trying live PayPal payments on a laptop. It speaks PayPal's REST protocol
// as its published OpenAPI documents describe it (Orders v2, Payments v2, Webhooks): `POST
// /v1/oauth2/token` (Basic client id and secret, client_credentials, a Bearer token with `expires_in`);
// `POST /v2/checkout/orders` (intent CAPTURE, PayPal's decimals per currency, `PayPal-Request-Id`
// idempotent) answering a `payer-action` link to the peer's own buyer page, where a tester (or a test, with
// `approve`/`cancel`) approves, approves with an instrument that the capture will decline, or cancels;
// `GET /v2/checkout/orders/{id}`; `POST …/capture` (COMPLETED, PENDING or DECLINED as set; 422
// INSTRUMENT_DECLINED, ORDER_NOT_APPROVED, ORDER_ALREADY_CAPTURED); `POST /v2/payments/captures/{id}/refund`
// and `GET /v2/payments/refunds/{id}`; `POST /v1/notifications/verify-webhook-signature`; webhooks with the
// five PAYPAL-* transmission headers, sent once, twice, late, never or badly signed. Errors have PayPal's
// shape: `{name, message, debug_id, details: [{issue, description}]}`.
import { randomBytes } from 'node:crypto';
import { startPeerServer, type Answer, type PeerRequest } from '../shared/http-peer.js';
import { buyerPage, errorAnswer, orderView, captureView, refundView, type Capture, type Order, type Refund } from './views.js';
import { paypalWebhookSender, type PaypalWebhookFault } from './webhooks.js';

export type { Capture, Order, Refund } from './views.js';
export type { PaypalWebhookFault } from './webhooks.js';
export type CaptureOutcome = 'COMPLETED' | 'PENDING' | 'DECLINED';

export interface PaypalPeerOptions {
  host?: string;
  port?: number;
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** Where webhooks go (the server's `<live origin>/rails/paypal/webhook`). */
  webhookUrl?: string;
  /** Lifetime of a token (seconds, default 32400 as PayPal's). */
  tokenTtlS?: number;
  lateDelayMs?: number;
  /** How long a refund stays PENDING before it completes (or fails). */
  refundDelayMs?: number;
}

export interface PaypalPeer {
  url: string;
  port: number;
  orders: Map<string, Order>;
  captures: Map<string, Capture>;
  refunds: Map<string, Refund>;
  requests: PeerRequest[];
  webhooks: Array<{ event: string; status: number }>;
  webhookUrl: string | undefined;
  webhookFault: PaypalWebhookFault;
  /** What the next captures come to (default COMPLETED). */
  captureOutcome: CaptureOutcome;
  /** The next refund ends FAILED. */
  failNextRefund: boolean;
  /** The next order create is refused with this issue (422 UNPROCESSABLE_ENTITY), whatever else is asked meanwhile. */
  refuseNextOrder: string | null;
  /** Tokens handed out so far. */
  tokensIssued: number;
  /** Every token handed out is refused from now on (a token PayPal revoked). */
  revokeTokens(): void;
  /** The buyer approves (`declining`: with an instrument the capture will decline); answers the return URL. */
  approve(orderId: string, opts?: { declining?: boolean }): string;
  /** The buyer cancels at PayPal; answers the cancel URL. */
  cancel(orderId: string): string;
  /** A PENDING capture completes or is denied (its webhook sent). */
  settleCapture(captureId: string, to: 'COMPLETED' | 'DECLINED'): void;
  /** PayPal takes a completed capture's money back: PAYMENT.CAPTURE.REVERSED (a reversal, `up` to the capture). */
  reverseCapture(captureId: string): void;
  /** A dispute on a capture: CUSTOMER.DISPUTE.CREATED; answers its id. */
  openDispute(captureId: string, reason?: string): string;
  /** CUSTOMER.DISPUTE.RESOLVED with this outcome code (RESOLVED_SELLER_FAVOUR, RESOLVED_BUYER_FAVOUR, …). */
  resolveDispute(disputeId: string, outcomeCode: string): void;
  /** The next n requests answer this HTTP status with PayPal's error shape. */
  failNext(n?: number, status?: number): void;
  /** The answer to the next call of `endpoint` goes out `ms` later (the call is counted at once). */
  holdNext(endpoint: 'create' | 'capture' | 'get', ms: number): void;
  close(): Promise<void>;
}

const CURRENCIES: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, CAD: 2, AUD: 2, CHF: 2, JPY: 0, HUF: 0, TWD: 0 };
const id = (n = 17) =>
  randomBytes(n)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, n);

export async function startPaypalPeer(opts: PaypalPeerOptions): Promise<PaypalPeer> {
  const orders = new Map<string, Order>();
  const captures = new Map<string, Capture>();
  const refunds = new Map<string, Refund>();
  const disputes = new Map<string, { id: string; capture: Capture; reason: string }>();
  const tokens = new Map<string, number>();
  const idempotent = new Map<string, Answer>();
  const holds: Partial<Record<'create' | 'capture' | 'get', number>> = {};
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const held = async (endpoint: 'create' | 'capture' | 'get', answer: () => Answer): Promise<Answer> => {
    const ms = holds[endpoint];
    delete holds[endpoint];
    if (ms) await new Promise<void>((resolve) => later(ms, resolve));
    return answer();
  };
  const webhooks = paypalWebhookSender({
    webhookId: opts.webhookId,
    url: () => peer.webhookUrl,
    fault: () => peer.webhookFault,
    later,
    lateMs: opts.lateDelayMs ?? 1_500,
  });

  const token = (req: PeerRequest): Answer => {
    const basic = `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`;
    if (req.headers['authorization'] !== basic)
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    if (!String(req.body ?? '').includes('grant_type=client_credentials')) {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' } };
    }
    const value = `A21AA${id(40)}`;
    const ttl = opts.tokenTtlS ?? 32_400;
    tokens.set(value, Date.now() + ttl * 1000);
    peer.tokensIssued++;
    return {
      status: 200,
      body: {
        scope: 'https://uri.paypal.com/services/payments/payment',
        access_token: value,
        token_type: 'Bearer',
        app_id: 'APP-PEER',
        expires_in: ttl,
        nonce: id(20),
      },
    };
  };

  const createOrder = (body: Record<string, unknown>): Answer => {
    const refusal = peer.refuseNextOrder;
    peer.refuseNextOrder = null;
    if (refusal) return errorAnswer(422, 'UNPROCESSABLE_ENTITY', refusal, '');
    const unit = (Array.isArray(body['purchase_units']) ? body['purchase_units'][0] : undefined) as Record<string, unknown> | undefined;
    const amount = (unit?.['amount'] ?? {}) as Record<string, unknown>;
    const ctx = (((body['payment_source'] as Record<string, unknown> | undefined)?.['paypal'] as Record<string, unknown> | undefined)?.[
      'experience_context'
    ] ?? {}) as Record<string, unknown>;
    if (body['intent'] !== 'CAPTURE' && body['intent'] !== 'AUTHORIZE')
      return errorAnswer(400, 'INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', '/intent');
    const currency = String(amount['currency_code'] ?? '');
    const value = String(amount['value'] ?? '');
    if (!(currency in CURRENCIES))
      return errorAnswer(
        422,
        'UNPROCESSABLE_ENTITY',
        'CURRENCY_NOT_SUPPORTED',
        "/purchase_units/@reference_id=='default'/amount/currency_code",
      );
    const places = CURRENCIES[currency]!;
    if (!new RegExp(places === 0 ? '^[0-9]{1,10}$' : `^[0-9]{1,10}\\.[0-9]{${places}}$`).test(value) || Number(value) <= 0) {
      return errorAnswer(422, 'UNPROCESSABLE_ENTITY', 'DECIMAL_PRECISION', "/purchase_units/@reference_id=='default'/amount/value");
    }
    if (typeof ctx['return_url'] !== 'string' || typeof ctx['cancel_url'] !== 'string')
      return errorAnswer(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', '/payment_source/paypal/experience_context/return_url');
    const order: Order = {
      id: id(17),
      status: 'PAYER_ACTION_REQUIRED',
      referenceId: String(unit?.['reference_id'] ?? 'default'),
      customId: typeof unit?.['custom_id'] === 'string' ? unit['custom_id'] : null,
      currency,
      value,
      returnUrl: ctx['return_url'],
      cancelUrl: ctx['cancel_url'],
      experience: ctx,
      declining: false,
      capture: null,
    };
    orders.set(order.id, order);
    return { status: 200, body: orderView(order, peer.url) };
  };

  const capture = (order: Order): Answer => {
    if (order.capture) return errorAnswer(422, 'UNPROCESSABLE_ENTITY', 'ORDER_ALREADY_CAPTURED', '');
    if (order.status !== 'APPROVED') return errorAnswer(422, 'UNPROCESSABLE_ENTITY', 'ORDER_NOT_APPROVED', '');
    if (order.declining) {
      order.declining = false;
      order.status = 'PAYER_ACTION_REQUIRED';
      return errorAnswer(422, 'UNPROCESSABLE_ENTITY', 'INSTRUMENT_DECLINED', '');
    }
    const c: Capture = {
      id: id(17),
      orderId: order.id,
      status: peer.captureOutcome,
      currency: order.currency,
      value: order.value,
      customId: order.customId,
    };
    captures.set(c.id, c);
    order.capture = c;
    order.status = 'COMPLETED';
    const event =
      c.status === 'COMPLETED'
        ? 'PAYMENT.CAPTURE.COMPLETED'
        : c.status === 'PENDING'
          ? 'PAYMENT.CAPTURE.PENDING'
          : 'PAYMENT.CAPTURE.DENIED';
    webhooks.send(event, 'capture', captureView(c, peer.url));
    return { status: 201, body: orderView(order, peer.url) };
  };

  const refund = (c: Capture | undefined): Answer => {
    if (!c) return errorAnswer(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', '');
    if (c.status !== 'COMPLETED')
      return errorAnswer(422, 'UNPROCESSABLE_ENTITY', c.status === 'REFUNDED' ? 'CAPTURE_FULLY_REFUNDED' : 'REFUND_NOT_ALLOWED', '');
    const r: Refund = { id: id(17), captureId: c.id, status: 'PENDING', currency: c.currency, value: c.value };
    refunds.set(r.id, r);
    const failing = peer.failNextRefund;
    peer.failNextRefund = false;
    later(opts.refundDelayMs ?? 200, () => {
      r.status = failing ? 'FAILED' : 'COMPLETED';
      if (failing) return;
      c.status = 'REFUNDED';
      webhooks.send('PAYMENT.CAPTURE.REFUNDED', 'refund', refundView(r, peer.url));
    });
    return { status: 201, body: refundView(r, peer.url) };
  };

  /** A POST made idempotent by PayPal-Request-Id: the same id answers the first answer again. */
  const once = (req: PeerRequest, answer: () => Answer): Answer => {
    const key = req.headers['paypal-request-id'];
    if (typeof key !== 'string') return answer();
    const scoped = `${req.path} ${key}`;
    const seen = idempotent.get(scoped);
    if (seen) return seen;
    const fresh = answer();
    // Only what succeeded is answered again; a refused request may be made again with the same id.
    if (fresh.status < 300) idempotent.set(scoped, fresh);
    return fresh;
  };

  const buyer = (req: PeerRequest): Answer => {
    const order = orders.get(req.query['token'] ?? '');
    if (!order) return { status: 404, body: 'No such order' };
    if (req.method === 'GET') return buyerPage(order);
    const choice = new URLSearchParams(typeof req.body === 'string' ? req.body : '').get('choice');
    const to = choice === 'cancel' ? peer.cancel(order.id) : peer.approve(order.id, { declining: choice === 'declining' });
    return { status: 302, body: '', headers: { location: to } };
  };

  const api = (req: PeerRequest, body: Record<string, unknown>): Answer | Promise<Answer> => {
    if (req.method === 'POST' && req.path === '/v2/checkout/orders') return held('create', () => once(req, () => createOrder(body)));
    const o = /^\/v2\/checkout\/orders\/([A-Z0-9]+)(\/capture)?$/.exec(req.path);
    if (o) {
      const order = orders.get(o[1]!);
      if (!order) return errorAnswer(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', '');
      if (req.method === 'GET' && !o[2]) return held('get', () => ({ status: 200, body: orderView(order, peer.url) }));
      if (req.method === 'POST' && o[2]) return held('capture', () => once(req, () => capture(order)));
    }
    const cr = /^\/v2\/payments\/captures\/([A-Z0-9]+)\/refund$/.exec(req.path);
    if (req.method === 'POST' && cr) return once(req, () => refund(captures.get(cr[1]!)));
    const r = /^\/v2\/payments\/refunds\/([A-Z0-9]+)$/.exec(req.path);
    if (req.method === 'GET' && r) {
      const found = refunds.get(r[1]!);
      return found ? { status: 200, body: refundView(found, peer.url) } : errorAnswer(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', '');
    }
    if (req.method === 'POST' && req.path === '/v1/notifications/verify-webhook-signature') {
      return { status: 200, body: { verification_status: webhooks.verify(body) ? 'SUCCESS' : 'FAILURE' } };
    }
    return errorAnswer(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', req.path);
  };

  const answer = (req: PeerRequest, _q: URLSearchParams, badJson: boolean): Answer | Promise<Answer> => {
    if (req.path === '/checkoutnow') return buyer(req);
    if (req.method === 'POST' && req.path === '/v1/oauth2/token') return token(req);
    const bearer = /^Bearer (\S+)$/.exec(String(req.headers['authorization'] ?? ''))?.[1];
    const until = bearer ? tokens.get(bearer) : undefined;
    if (until === undefined || until <= Date.now()) {
      return { status: 401, body: { error: 'invalid_token', error_description: 'Token signature verification failed' } };
    }
    return api(req, (badJson ? {} : (req.body ?? {})) as Record<string, unknown>);
  };

  const server = await startPeerServer({
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    control: {},
    failure: (status) =>
      errorAnswer(status, status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'UNPROCESSABLE_ENTITY', 'INTERNAL_SERVICE_ERROR', ''),
    answer,
  });

  const peer: PaypalPeer = {
    url: server.url,
    port: server.port,
    orders,
    captures,
    refunds,
    requests: server.requests,
    webhooks: webhooks.sent,
    webhookUrl: opts.webhookUrl,
    webhookFault: 'once',
    captureOutcome: 'COMPLETED',
    failNextRefund: false,
    refuseNextOrder: null,
    tokensIssued: 0,
    revokeTokens: () => tokens.clear(),
    approve(orderId, o = {}) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`no order ${orderId}`);
      if (order.status === 'PAYER_ACTION_REQUIRED' || order.status === 'APPROVED') {
        order.status = 'APPROVED';
        order.declining = o.declining === true;
        webhooks.send('CHECKOUT.ORDER.APPROVED', 'checkout-order', orderView(order, peer.url));
      }
      const back = new URL(order.returnUrl);
      back.searchParams.set('token', order.id);
      back.searchParams.set('PayerID', 'PEERPAYER0001');
      return back.toString();
    },
    cancel(orderId) {
      const order = orders.get(orderId);
      if (!order) throw new Error(`no order ${orderId}`);
      const back = new URL(order.cancelUrl);
      back.searchParams.set('token', order.id);
      return back.toString();
    },
    settleCapture(captureId, to) {
      const c = captures.get(captureId);
      if (!c || c.status !== 'PENDING') throw new Error(`no pending capture ${captureId}`);
      c.status = to;
      webhooks.send(to === 'COMPLETED' ? 'PAYMENT.CAPTURE.COMPLETED' : 'PAYMENT.CAPTURE.DENIED', 'capture', captureView(c, peer.url));
    },
    reverseCapture(captureId) {
      const c = captures.get(captureId);
      if (!c || c.status !== 'COMPLETED') throw new Error(`no completed capture ${captureId}`);
      c.status = 'REFUNDED';
      const reversal: Refund = { id: id(17), captureId: c.id, status: 'COMPLETED', currency: c.currency, value: c.value };
      webhooks.send('PAYMENT.CAPTURE.REVERSED', 'refund', refundView(reversal, peer.url));
    },
    openDispute(captureId, reason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED') {
      const c = captures.get(captureId);
      if (!c || c.status !== 'COMPLETED') throw new Error(`no completed capture ${captureId}`);
      const d = { id: `PP-D-${id(6)}`, capture: c, reason };
      disputes.set(d.id, d);
      webhooks.send('CUSTOMER.DISPUTE.CREATED', 'dispute', disputeView(d, 'OPEN', null));
      return d.id;
    },
    resolveDispute(disputeId, outcomeCode) {
      const d = disputes.get(disputeId);
      if (!d) throw new Error(`no dispute ${disputeId}`);
      webhooks.send('CUSTOMER.DISPUTE.RESOLVED', 'dispute', disputeView(d, 'RESOLVED', outcomeCode));
    },
    failNext: server.failNext,
    holdNext(endpoint, ms) {
      holds[endpoint] = ms;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      await server.close();
    },
  };
  return peer;
}

function disputeView(d: { id: string; capture: Capture; reason: string }, status: string, outcome: string | null) {
  return {
    dispute_id: d.id,
    reason: d.reason,
    status,
    dispute_amount: { currency_code: d.capture.currency, value: d.capture.value },
    disputed_transactions: [{ seller_transaction_id: d.capture.id, seller: { merchant_id: 'PEERMERCHANT' } }],
    ...(outcome ? { dispute_outcome: { outcome_code: outcome } } : {}),
    create_time: new Date().toISOString(),
  };
}
