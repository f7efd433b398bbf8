// A client of Paystack's API: initialize a transaction, verify it, create and fetch a refund, and check a
// webhook's signature. Written from Paystack's public documentation (every answer is `{status, message,
// data}`; amounts are integers in the currency's subunit; the secret key is the Bearer token and the key
// of the webhooks' HMAC-SHA512); it knows nothing of the rest of Cowrie.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface PaystackClientOptions {
  baseUrl: string;
  secretKey: string;
  /** Per HTTP call. */
  timeoutMs?: number;
}

/** Paystack refused a call (`status: false`, or an HTTP error), with its message. */
export class PaystackError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly providerMessage: string,
  ) {
    super(`Paystack answered ${httpStatus}: ${providerMessage}`);
  }
}

export interface InitializeRequest {
  email: string;
  /** In the currency's subunit (KES and USD: × 100). */
  amount: number;
  currency: string;
  reference: string;
  callbackUrl: string;
  metadata: Record<string, unknown>;
}

/** What verify says of a transaction (only what Cowrie reads). */
export interface VerifiedTransaction {
  id: string;
  status: string;
  reference: string;
  /** Subunits. */
  amount: number;
  currency: string;
  gatewayResponse: string;
}

export interface PaystackRefund {
  id: string;
  /** pending, processing, processed, failed, … */
  status: string;
}

type Json = Record<string, unknown>;

export class PaystackClient {
  constructor(private readonly opts: PaystackClientOptions) {}

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> {
    const data = await this.callFor(method, path, body);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new PaystackError(200, 'the answer has no data');
    return data as Json;
  }

  /** A call answering `data` as it is (an object, or a list). */
  private async callFor(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.opts.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.opts.secretKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let json: Json | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Json;
    } catch {
      json = null;
    }
    if (!res.ok || json?.['status'] !== true) {
      const message = typeof json?.['message'] === 'string' ? json['message'] : `an answer Paystack does not give (HTTP ${res.status})`;
      throw new PaystackError(res.status, message);
    }
    return json['data'];
  }

  /** `POST /transaction/initialize`, card only: answers the page the customer pays on. */
  async initialize(req: InitializeRequest): Promise<{ authorizationUrl: string; accessCode: string }> {
    if (!Number.isInteger(req.amount) || req.amount < 1) throw new RangeError('Paystack takes a whole number of subunits, at least 1');
    const data = await this.call('POST', '/transaction/initialize', {
      email: req.email,
      amount: req.amount,
      currency: req.currency,
      reference: req.reference,
      callback_url: req.callbackUrl,
      channels: ['card'],
      metadata: req.metadata,
    });
    const url = data['authorization_url'];
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new PaystackError(200, 'no authorization_url in the answer');
    return { authorizationUrl: url, accessCode: String(data['access_code'] ?? '') };
  }

  /** `GET /transaction/verify/{reference}`. */
  async verify(reference: string): Promise<VerifiedTransaction> {
    const data = await this.call('GET', `/transaction/verify/${encodeURIComponent(reference)}`);
    const amount = Number(data['amount']);
    if (!Number.isInteger(amount) || typeof data['status'] !== 'string') throw new PaystackError(200, 'a malformed transaction');
    return {
      id: String(data['id']),
      status: data['status'],
      reference: String(data['reference'] ?? reference),
      amount,
      currency: String(data['currency'] ?? ''),
      gatewayResponse: String(data['gateway_response'] ?? ''),
    };
  }

  /** `POST /refund`: the full amount of the transaction with this reference. */
  async createRefund(transactionReference: string): Promise<PaystackRefund> {
    return refundOf(await this.call('POST', '/refund', { transaction: transactionReference }));
  }

  /** `GET /refund?transaction=…`: the refunds of a transaction (by its reference), newest first. */
  async listRefunds(transactionReference: string): Promise<PaystackRefund[]> {
    const data = await this.callFor('GET', `/refund?transaction=${encodeURIComponent(transactionReference)}`);
    if (!Array.isArray(data)) throw new PaystackError(200, 'the refund list is not a list');
    return data.map((r) => refundOf(r as Json));
  }

  /** `GET /refund/{id}`. */
  async fetchRefund(id: string): Promise<PaystackRefund> {
    return refundOf(await this.call('GET', `/refund/${encodeURIComponent(id)}`));
  }
}

function refundOf(data: Json): PaystackRefund {
  if (data['id'] === undefined || typeof data['status'] !== 'string') throw new PaystackError(200, 'a malformed refund');
  return { id: String(data['id']), status: data['status'] };
}

/** The hex HMAC-SHA512 of a body keyed with the secret key: what `x-paystack-signature` carries. */
export function paystackSignature(secretKey: string, rawBody: Buffer | string): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}

/** Whether `x-paystack-signature` is the body's signature (compared in constant time). */
export function signatureValid(secretKey: string, rawBody: Buffer, header: string | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{128}$/i.test(header)) return false;
  const want = Buffer.from(paystackSignature(secretKey, rawBody), 'hex');
  return timingSafeEqual(want, Buffer.from(header, 'hex'));
}

/** A webhook event as Paystack posts it: `{event, data}`. */
export function parseWebhookEvent(rawBody: Buffer): { event: string; data: Json } | null {
  try {
    const body: unknown = JSON.parse(rawBody.toString('utf8'));
    if (body === null || typeof body !== 'object') return null;
    const { event, data } = body as Json;
    if (typeof event !== 'string' || data === null || typeof data !== 'object' || Array.isArray(data)) return null;
    return { event, data: data as Json };
  } catch {
    return null;
  }
}
