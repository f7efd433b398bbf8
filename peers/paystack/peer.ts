// A local Paystack for tests and for trying live card payments on a laptop. It speaks Paystack's real
// protocol, written from its public API documentation: every answer is `{status, message, data}`, the
// secret key is the Bearer token, amounts are integers in the currency's subunit. `POST
// /transaction/initialize` answers an `authorization_url` on the peer's own hosted page, where a tester (or a
// test, with `complete`) picks success, decline, insufficient funds or abandon, and is sent back to
// `callback_url?trxref=…&reference=…`; `GET /transaction/verify/{reference}`; `POST /refund` and `GET
// /refund/{id}`; webhooks signed `x-paystack-signature` (hex HMAC-SHA512 of the body with the secret key):
// `charge.success`, `refund.processed`, `refund.failed`, `charge.dispute.create`, `charge.dispute.resolve`,
// each sent once, twice, late, never or with a bad signature.
import { createHmac, randomBytes } from 'node:crypto';
import { startPeerServer, type Answer, type PeerRequest } from '../shared/http-peer.js';

export type CardOutcome = 'success' | 'decline' | 'insufficient_funds' | 'abandon';
export type WebhookFault = 'once' | 'twice' | 'late' | 'never' | 'bad_signature';

export interface PaystackTransaction {
  id: number;
  reference: string;
  accessCode: string;
  email: string;
  amount: number;
  currency: string;
  callbackUrl: string;
  metadata: unknown;
  channels: unknown;
  status: 'abandoned' | 'success' | 'failed' | 'reversed';
  gatewayResponse: string;
  /** Subunits charged, when not what was asked (a test of another amount). */
  chargedAmount?: number;
}

export interface PaystackRefundRecord {
  id: number;
  transaction: PaystackTransaction;
  status: 'pending' | 'processing' | 'processed' | 'failed';
}

export interface PaystackPeerOptions {
  host?: string;
  port?: number;
  secretKey: string;
  /** Where webhooks go (the server's `<live origin>/rails/paystack/webhook`); none are sent without it. */
  webhookUrl?: string;
  /** Extra delay of a `late` webhook. */
  lateDelayMs?: number;
  /** How long a refund stays pending before it is processed (or fails). */
  refundDelayMs?: number;
}

export interface PaystackPeer {
  url: string;
  port: number;
  transactions: Map<string, PaystackTransaction>;
  refunds: Map<number, PaystackRefundRecord>;
  /** Every request received (method, path, body, headers). */
  requests: PeerRequest[];
  /** Webhooks sent: event, the answer's status (0 when the server could not be reached). */
  webhooks: Array<{ event: string; status: number }>;
  webhookUrl: string | undefined;
  /** How the next webhooks are sent (default once). */
  webhookFault: WebhookFault;
  /** The next refund fails instead of being processed. */
  failNextRefund: boolean;
  /** The customer's choice on the hosted page; answers where the customer is sent back to. */
  complete(reference: string, outcome: CardOutcome, opts?: { chargedAmount?: number }): Promise<string>;
  /** A chargeback on a paid transaction: `charge.dispute.create`; answers the dispute's id. */
  openDispute(reference: string, reason?: string): Promise<number>;
  /** Closes a dispute: `declined` (the merchant contested and won) or `merchant-accepted` (lost). */
  resolveDispute(id: number, resolution: 'declined' | 'merchant-accepted'): Promise<void>;
  /** The next n requests answer this HTTP status with Paystack's error shape. */
  failNext(n?: number, status?: number): void;
  /** The answer to the next call of `endpoint` goes out `ms` later (a slow Paystack; the call is counted at once). */
  holdNext(endpoint: 'initialize' | 'verify', ms: number): void;
  close(): Promise<void>;
}

const REFERENCE = /^[A-Za-z0-9.=-]{1,100}$/;
const CURRENCIES = ['NGN', 'GHS', 'ZAR', 'KES', 'USD'];
const GATEWAY: Record<CardOutcome, string> = {
  success: 'Approved',
  decline: 'Declined',
  insufficient_funds: 'Insufficient Funds',
  abandon: 'The transaction was not completed',
};

const fail = (status: number, message: string): Answer => ({ status, body: { status: false, message } });
const ok = (message: string, data: unknown): Answer => ({ status: 200, body: { status: true, message, data } });

export async function startPaystackPeer(opts: PaystackPeerOptions): Promise<PaystackPeer> {
  const transactions = new Map<string, PaystackTransaction>();
  const refunds = new Map<number, PaystackRefundRecord>();
  const disputes = new Map<number, { id: number; transaction: PaystackTransaction; reason: string }>();
  const webhooks: PaystackPeer['webhooks'] = [];
  let nextId = 4_000_000_000 + Math.floor(Math.random() * 1_000_000);
  const timers = new Set<NodeJS.Timeout>();
  const holds: Partial<Record<'initialize' | 'verify', number>> = {};
  const held = async (endpoint: 'initialize' | 'verify', answer: () => Answer): Promise<Answer> => {
    const ms = holds[endpoint];
    delete holds[endpoint];
    if (ms) await new Promise<void>((resolve) => later(ms, resolve));
    return answer();
  };

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const post = async (event: string, data: unknown, badSignature: boolean) => {
    const body = JSON.stringify({ event, data });
    const key = badSignature ? `${opts.secretKey}-wrong` : opts.secretKey;
    let status = 0;
    try {
      const res = await fetch(peer.webhookUrl!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paystack-signature': createHmac('sha512', key).update(body).digest('hex') },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
    } catch {
      status = 0;
    }
    webhooks.push({ event, status });
  };

  /** Sends an event as the current fault says (a webhook is never awaited by the action that caused it). */
  const sendWebhook = (event: string, data: unknown) => {
    if (!peer.webhookUrl || peer.webhookFault === 'never') return;
    const fault = peer.webhookFault;
    if (fault === 'late') {
      later(opts.lateDelayMs ?? 1_500, () => void post(event, data, false));
      return;
    }
    void post(event, data, fault === 'bad_signature').then(() => (fault === 'twice' ? post(event, data, false) : undefined));
  };

  const txView = (t: PaystackTransaction) => ({
    id: t.id,
    domain: 'live',
    status: t.status,
    reference: t.reference,
    amount: t.chargedAmount ?? t.amount,
    currency: t.currency,
    gateway_response: t.gatewayResponse,
    channel: 'card',
    paid_at: t.status === 'success' ? new Date().toISOString() : null,
    metadata: t.metadata,
    customer: { email: t.email },
  });
  const refundView = (r: PaystackRefundRecord) => ({
    id: r.id,
    status: r.status,
    transaction: { id: r.transaction.id, reference: r.transaction.reference },
    transaction_reference: r.transaction.reference,
    amount: r.transaction.chargedAmount ?? r.transaction.amount,
    currency: r.transaction.currency,
    domain: 'live',
  });

  const initialize = (body: Record<string, unknown>): Answer => {
    const email = body['email'];
    const amount = Number(body['amount']);
    const currency = String(body['currency'] ?? 'NGN');
    const reference = String(body['reference'] ?? randomBytes(8).toString('hex'));
    if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return fail(400, 'Invalid Email Address Passed');
    if (!Number.isInteger(amount) || amount < 100) return fail(400, 'Invalid Amount Sent');
    if (!CURRENCIES.includes(currency)) return fail(403, 'Currency not supported by merchant');
    if (!REFERENCE.test(reference)) return fail(400, 'Invalid transaction reference');
    if (transactions.has(reference)) return fail(400, 'Duplicate Transaction Reference');
    const accessCode = randomBytes(8).toString('hex');
    transactions.set(reference, {
      id: nextId++,
      reference,
      accessCode,
      email,
      amount,
      currency,
      callbackUrl: String(body['callback_url'] ?? ''),
      metadata: body['metadata'] ?? null,
      channels: body['channels'] ?? null,
      status: 'abandoned',
      gatewayResponse: 'The transaction was not completed',
    });
    return ok('Authorization URL created', { authorization_url: `${peer.url}/checkout/${accessCode}`, access_code: accessCode, reference });
  };

  const createRefund = (body: Record<string, unknown>): Answer => {
    const key = String(body['transaction'] ?? '');
    const t = transactions.get(key) ?? [...transactions.values()].find((x) => String(x.id) === key);
    if (!t) return fail(404, 'Transaction not found');
    if (t.status !== 'success') return fail(400, 'Transaction has been fully reversed');
    const r: PaystackRefundRecord = { id: nextId++, transaction: t, status: 'pending' };
    refunds.set(r.id, r);
    const failing = peer.failNextRefund;
    peer.failNextRefund = false;
    later(opts.refundDelayMs ?? 200, () => {
      r.status = failing ? 'failed' : 'processed';
      if (!failing) t.status = 'reversed';
      sendWebhook(failing ? 'refund.failed' : 'refund.processed', refundView(r));
    });
    return ok('Refund has been queued for processing', refundView(r));
  };

  const byAccessCode = (code: string) => [...transactions.values()].find((t) => t.accessCode === code);

  const hostedPage = (t: PaystackTransaction): Answer => ({
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Paystack peer: pay</title></head><body>
<h1>Paystack peer</h1><p>Pay ${t.currency} ${(t.amount / 100).toFixed(2)} as ${t.email} (reference ${t.reference}).</p>
<form method="post" action="/checkout/${t.accessCode}">
<button name="outcome" value="success">Pay (success)</button>
<button name="outcome" value="decline">Decline</button>
<button name="outcome" value="insufficient_funds">Insufficient funds</button>
<button name="outcome" value="abandon">Cancel and go back</button>
</form></body></html>`,
  });

  const answer = async (req: PeerRequest, _q: URLSearchParams, badJson: boolean): Promise<Answer> => {
    const page = /^\/checkout\/([0-9a-f]{16})$/.exec(req.path);
    if (page) {
      const t = byAccessCode(page[1]!);
      if (!t) return { status: 404, body: 'No such payment page' };
      if (req.method === 'GET') return hostedPage(t);
      const outcome = new URLSearchParams(typeof req.body === 'string' ? req.body : '').get('outcome') as CardOutcome | null;
      if (!outcome || !(outcome in GATEWAY)) return { status: 400, body: 'Pick an outcome' };
      return { status: 302, body: '', headers: { location: await peer.complete(t.reference, outcome) } };
    }
    if (req.headers['authorization'] !== `Bearer ${opts.secretKey}`) return fail(401, 'Invalid key');
    const body = (badJson ? {} : (req.body ?? {})) as Record<string, unknown>;
    if (req.method === 'POST' && req.path === '/transaction/initialize') return held('initialize', () => initialize(body));
    const verify = /^\/transaction\/verify\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && verify) {
      return held('verify', () => {
        const t = transactions.get(decodeURIComponent(verify[1]!));
        return t ? ok('Verification successful', txView(t)) : fail(400, 'Transaction reference not found');
      });
    }
    if (req.method === 'POST' && req.path === '/refund') return createRefund(body);
    if (req.method === 'GET' && req.path === '/refund') {
      const key = req.query['transaction'] ?? '';
      const list = [...refunds.values()].filter((r) => r.transaction.reference === key || String(r.transaction.id) === key);
      return ok('Refunds retrieved', list.reverse().map(refundView));
    }
    const refund = /^\/refund\/(\d+)$/.exec(req.path);
    if (req.method === 'GET' && refund) {
      const r = refunds.get(Number(refund[1]));
      return r ? ok('Refund retrieved', refundView(r)) : fail(404, 'Refund not found');
    }
    return fail(404, `No route ${req.method} ${req.path}`);
  };

  const server = await startPeerServer({
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    control: {},
    failure: (status) => fail(status, 'An error occurred'),
    answer,
  });

  const peer: PaystackPeer = {
    url: server.url,
    port: server.port,
    transactions,
    refunds,
    requests: server.requests,
    webhooks,
    webhookUrl: opts.webhookUrl,
    webhookFault: 'once',
    failNextRefund: false,
    async complete(reference, outcome, o = {}) {
      const t = transactions.get(reference);
      if (!t) throw new Error(`no transaction ${reference}`);
      if (t.status === 'abandoned' && outcome !== 'abandon') {
        t.status = outcome === 'success' ? 'success' : 'failed';
        t.gatewayResponse = GATEWAY[outcome];
        if (o.chargedAmount !== undefined) t.chargedAmount = o.chargedAmount;
        if (t.status === 'success') sendWebhook('charge.success', txView(t));
      }
      const back = new URL(t.callbackUrl);
      back.searchParams.set('trxref', t.reference);
      back.searchParams.set('reference', t.reference);
      return back.toString();
    },
    async openDispute(reference, reason = 'Customer says the goods never arrived') {
      const t = transactions.get(reference);
      if (!t || t.status !== 'success') throw new Error(`no paid transaction ${reference}`);
      const d = { id: nextId++, transaction: t, reason };
      disputes.set(d.id, d);
      sendWebhook('charge.dispute.create', disputeView(d, 'awaiting-merchant-feedback', null));
      return d.id;
    },
    async resolveDispute(id, resolution) {
      const d = disputes.get(id);
      if (!d) throw new Error(`no dispute ${id}`);
      sendWebhook('charge.dispute.resolve', disputeView(d, 'resolved', resolution));
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

function disputeView(d: { id: number; transaction: PaystackTransaction; reason: string }, status: string, resolution: string | null) {
  const t = d.transaction;
  return {
    id: d.id,
    refund_amount: t.chargedAmount ?? t.amount,
    currency: t.currency,
    status,
    resolution,
    domain: 'live',
    category: 'chargeback',
    note: d.reason,
    transaction: { id: t.id, reference: t.reference, amount: t.chargedAmount ?? t.amount, currency: t.currency },
    created_at: new Date().toISOString(),
    resolved_at: resolution ? new Date().toISOString() : null,
  };
}
