// A client of PayPal's REST API: the client-credentials token, Orders v2 (create, look up, capture),
// Payments v2 (refund a capture, look a refund up) and the webhook signature check. Written from PayPal's
// public documentation: a refusal is `{name, message, debug_id, details: [{issue, description}]}`, amounts
// are decimal strings, `PayPal-Request-Id` makes a POST idempotent. It knows nothing of the rest of Cowrie.

export interface PaypalClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Per HTTP call. */
  timeoutMs?: number;
  /** Milliseconds now (tests move it); the token is kept until shortly before it runs out. */
  nowMs?: () => number;
}

/** PayPal refused a call (or answered what it does not answer), in its own words and with its debug id. */
export class PaypalError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly errorName: string,
    readonly providerMessage: string,
    readonly debugId: string | null,
    /** The first `details[].issue` (INSTRUMENT_DECLINED, ORDER_NOT_APPROVED, …), or null. */
    readonly issue: string | null,
  ) {
    super(`PayPal answered ${httpStatus} ${errorName}${issue ? ` (${issue})` : ''}: ${providerMessage}`);
  }

  /** What the customer and the merchant are told: the issue when PayPal named one, else its message. */
  get clearText(): string {
    return this.issue
      ? `PayPal refused the payment: ${this.issue} (${this.providerMessage})`
      : `PayPal refused the payment: ${this.providerMessage}`;
  }
}

export interface OrderAmount {
  currency_code: string;
  value: string;
}

export interface PaypalCapture {
  id: string;
  /** COMPLETED, PENDING, DECLINED, REFUNDED, PARTIALLY_REFUNDED, FAILED. */
  status: string;
  amount: OrderAmount | null;
}

export interface PaypalOrder {
  id: string;
  /** CREATED, SAVED, APPROVED, VOIDED, COMPLETED, PAYER_ACTION_REQUIRED. */
  status: string;
  /** The `payer-action` (or `approve`) link. */
  approveUrl: string | null;
  /** The first purchase unit's first capture, once captured. */
  capture: PaypalCapture | null;
}

export interface PaypalRefund {
  id: string;
  /** COMPLETED, PENDING, CANCELLED, FAILED. */
  status: string;
}

export interface CreateOrderRequest {
  requestId: string;
  referenceId: string;
  customId: string;
  amount: OrderAmount;
  returnUrl: string;
  cancelUrl: string;
}

type Json = Record<string, unknown>;
const REFRESH_BEFORE_MS = 60_000;

export class PaypalClient {
  private token: { value: string; until: number } | null = null;
  private fetching: Promise<string> | null = null;

  constructor(private readonly opts: PaypalClientOptions) {}

  private now(): number {
    return this.opts.nowMs ? this.opts.nowMs() : Date.now();
  }

  /** The cached token, or one fetch of a new one however many callers ask at once. */
  private accessToken(): Promise<string> {
    if (this.token && this.token.until > this.now()) return Promise.resolve(this.token.value);
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${this.opts.clientId}:${this.opts.clientSecret}`).toString('base64');
    const res = await fetch(`${this.opts.baseUrl}/v1/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
    });
    const json = await readJson(res);
    const value = json?.['access_token'];
    const expiresIn = Number(json?.['expires_in']);
    if (!res.ok || typeof value !== 'string' || !Number.isFinite(expiresIn)) {
      throw errorOf(res.status, json, 'no access token in the answer');
    }
    // Kept until shortly before it runs out (a short-lived token: until half its life).
    const keep = Math.max(expiresIn * 1000 - REFRESH_BEFORE_MS, (expiresIn * 1000) / 2);
    this.token = { value, until: this.now() + keep };
    return value;
  }

  /** A call with the token; a 401 drops the cached token and tries once more with a new one. */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown, requestId?: string): Promise<Json> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken();
      const res = await fetch(`${this.opts.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(requestId === undefined ? {} : { 'paypal-request-id': requestId }),
          prefer: 'return=representation',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
      });
      const json = await readJson(res);
      if (res.status === 401 && attempt === 0) {
        if (this.token?.value === token) this.token = null;
        continue;
      }
      if (!res.ok || json === null) throw errorOf(res.status, json, `an answer PayPal does not give (HTTP ${res.status})`);
      return json;
    }
  }

  /** `POST /v2/checkout/orders`, intent CAPTURE, the buyer sent to PayPal and back. */
  async createOrder(req: CreateOrderRequest): Promise<PaypalOrder> {
    const body = {
      intent: 'CAPTURE',
      purchase_units: [{ reference_id: req.referenceId, custom_id: req.customId, amount: req.amount }],
      payment_source: {
        paypal: {
          experience_context: {
            return_url: req.returnUrl,
            cancel_url: req.cancelUrl,
            user_action: 'PAY_NOW',
            shipping_preference: 'NO_SHIPPING',
          },
        },
      },
    };
    return orderOf(await this.call('POST', '/v2/checkout/orders', body, req.requestId));
  }

  /** `GET /v2/checkout/orders/{id}`. */
  async getOrder(id: string): Promise<PaypalOrder> {
    return orderOf(await this.call('GET', `/v2/checkout/orders/${encodeURIComponent(id)}`));
  }

  /** `POST /v2/checkout/orders/{id}/capture`. */
  async captureOrder(id: string, requestId: string): Promise<PaypalOrder> {
    return orderOf(await this.call('POST', `/v2/checkout/orders/${encodeURIComponent(id)}/capture`, {}, requestId));
  }

  /** `POST /v2/payments/captures/{id}/refund`: the whole capture. */
  async refundCapture(captureId: string, requestId: string): Promise<PaypalRefund> {
    return refundOf(await this.call('POST', `/v2/payments/captures/${encodeURIComponent(captureId)}/refund`, {}, requestId));
  }

  /** `GET /v2/payments/refunds/{id}`. */
  async getRefund(id: string): Promise<PaypalRefund> {
    return refundOf(await this.call('GET', `/v2/payments/refunds/${encodeURIComponent(id)}`));
  }

  /** `POST /v1/notifications/verify-webhook-signature`: true only for `verification_status: SUCCESS`. */
  async verifyWebhook(headers: Record<string, string | undefined>, webhookId: string, event: unknown): Promise<boolean> {
    const body = {
      auth_algo: headers['paypal-auth-algo'],
      cert_url: headers['paypal-cert-url'],
      transmission_id: headers['paypal-transmission-id'],
      transmission_sig: headers['paypal-transmission-sig'],
      transmission_time: headers['paypal-transmission-time'],
      webhook_id: webhookId,
      webhook_event: event,
    };
    const json = await this.call('POST', '/v1/notifications/verify-webhook-signature', body);
    return json['verification_status'] === 'SUCCESS';
  }
}

async function readJson(res: Response): Promise<Json | null> {
  const text = await res.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : null;
  } catch {
    return null;
  }
}

/** PayPal's error shape (`name`, `message`, `debug_id`, `details[].issue`), or OAuth's (`error`, `error_description`). */
function errorOf(status: number, json: Json | null, fallback: string): PaypalError {
  const details = Array.isArray(json?.['details']) ? (json['details'] as Json[]) : [];
  const issue = typeof details[0]?.['issue'] === 'string' ? details[0]['issue'] : null;
  const name = typeof json?.['name'] === 'string' ? json['name'] : typeof json?.['error'] === 'string' ? json['error'] : 'UNKNOWN';
  const message =
    typeof json?.['message'] === 'string'
      ? json['message']
      : typeof json?.['error_description'] === 'string'
        ? json['error_description']
        : fallback;
  const debugId = typeof json?.['debug_id'] === 'string' ? json['debug_id'] : null;
  return new PaypalError(status, name, message, debugId, issue);
}

function orderOf(json: Json): PaypalOrder {
  if (typeof json['id'] !== 'string' || typeof json['status'] !== 'string') throw errorOf(200, null, 'a malformed order');
  const links = Array.isArray(json['links']) ? (json['links'] as Json[]) : [];
  const link = links.find((l) => l['rel'] === 'payer-action') ?? links.find((l) => l['rel'] === 'approve');
  const units = Array.isArray(json['purchase_units']) ? (json['purchase_units'] as Json[]) : [];
  const payments = units[0]?.['payments'] as Json | undefined;
  const captures = Array.isArray(payments?.['captures']) ? (payments['captures'] as Json[]) : [];
  const c = captures[0];
  const amount = c?.['amount'] as Json | undefined;
  return {
    id: json['id'],
    status: json['status'],
    approveUrl: typeof link?.['href'] === 'string' ? link['href'] : null,
    capture:
      c && typeof c['id'] === 'string'
        ? {
            id: c['id'],
            status: String(c['status'] ?? ''),
            amount: amount ? { currency_code: String(amount['currency_code'] ?? ''), value: String(amount['value'] ?? '') } : null,
          }
        : null,
  };
}

function refundOf(json: Json): PaypalRefund {
  if (typeof json['id'] !== 'string' || typeof json['status'] !== 'string') throw errorOf(200, null, 'a malformed refund');
  return { id: json['id'], status: json['status'] };
}
