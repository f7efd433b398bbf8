// A client of Safaricom's Daraja API (M-Pesa Express): the OAuth client-credentials token, the STK push and
// the STK query, and strict parsing of the STK callback; the reversal of a payment and its result. Written from Daraja's public documentation; it knows
// nothing of the rest of Cowrie.
import { Buffer } from 'node:buffer';
import type { FailureCode } from '../../payment-intents/index.js';

export interface DarajaClientOptions {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  /** Real time by default; tests may set it. */
  now?: () => Date;
  /** Per HTTP call. */
  timeoutMs?: number;
}

/** An error answer of Daraja: `{requestId, errorCode, errorMessage}` with its HTTP status. */
export class DarajaError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly errorMessage: string,
  ) {
    super(`Daraja answered ${status} ${errorCode}: ${errorMessage}`);
  }
}

/** Daraja's refusal of an access token it does not know (or that ran out). */
const INVALID_TOKEN = '404.001.03';
/** Daraja's answer to a query about a payment the customer has not answered yet. */
const STILL_PROCESSING = '500.001.1001';
/** A token is renewed this long before Daraja says it runs out. */
const TOKEN_MARGIN_MS = 60_000;

/** `YYYYMMDDHHmmss` in Nairobi time (UTC+3 all year), as Daraja wants its Timestamp. */
export function nairobiTimestamp(at: Date): string {
  const t = new Date(at.getTime() + 3 * 3_600_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.getUTCFullYear(), 4)}${p(t.getUTCMonth() + 1)}${p(t.getUTCDate())}${p(t.getUTCHours())}${p(t.getUTCMinutes())}${p(t.getUTCSeconds())}`;
}

/** Daraja's Password: base64(shortcode + passkey + timestamp). */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`).toString('base64');
}

export interface StkPushRequest {
  /** Whole shillings. */
  amount: number;
  /** 2547XXXXXXXX or 2541XXXXXXXX. */
  phone: string;
  callbackUrl: string;
  accountReference: string;
  description: string;
}

export type StkQueryAnswer = { state: 'pending' } | { state: 'final'; resultCode: number; resultDesc: string };

export class DarajaClient {
  private token: { value: string; expiresAt: number } | null = null;
  private fetching: Promise<string> | null = null;
  /** OAuth tokens fetched by this client (a figure for tests and logs). */
  tokenFetches = 0;

  constructor(private readonly opts: DarajaClientOptions) {}

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** The cached token, or one fetched once for every caller waiting on it. */
  private accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt > Date.now()) return Promise.resolve(this.token.value);
    this.fetching ??= this.fetchToken().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    this.tokenFetches++;
    const basic = Buffer.from(`${this.opts.consumerKey}:${this.opts.consumerSecret}`).toString('base64');
    const { status, json } = await this.http('GET', '/oauth/v1/generate?grant_type=client_credentials', {
      authorization: `Basic ${basic}`,
    });
    if (status !== 200 || typeof json?.['access_token'] !== 'string') throw errorOf(status, json);
    const ttlS = Number(json['expires_in'] ?? 3599);
    this.token = {
      value: json['access_token'] as string,
      expiresAt: Date.now() + Math.max(1_000, (Number.isFinite(ttlS) ? ttlS : 3599) * 1000 - TOKEN_MARGIN_MS),
    };
    return this.token.value;
  }

  /** A call with the token; fetched again and the call repeated once when Daraja refuses the token. */
  private async authorized(path: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> | null }> {
    for (let tries = 0; ; tries++) {
      const token = await this.accessToken();
      const answer = await this.http('POST', path, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
      const refused = answer.status === 401 || (answer.status === 404 && answer.json?.['errorCode'] === INVALID_TOKEN);
      if (!refused || tries > 0) return answer;
      if (this.token?.value === token) this.token = null;
    }
  }

  private async http(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, unknown> | null }> {
    const res = await fetch(`${this.opts.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  }

  private credentials(): { BusinessShortCode: string; Password: string; Timestamp: string } {
    const timestamp = nairobiTimestamp(this.now());
    return {
      BusinessShortCode: this.opts.shortcode,
      Password: stkPassword(this.opts.shortcode, this.opts.passkey, timestamp),
      Timestamp: timestamp,
    };
  }

  /** M-Pesa Express: asks the customer's phone to approve a payment. */
  async stkPush(req: StkPushRequest): Promise<{ merchantRequestId: string; checkoutRequestId: string; customerMessage: string }> {
    if (!Number.isInteger(req.amount) || req.amount < 1) throw new RangeError('Daraja takes whole shillings, at least 1');
    const { status, json } = await this.authorized('/mpesa/stkpush/v1/processrequest', {
      ...this.credentials(),
      TransactionType: 'CustomerPayBillOnline',
      Amount: req.amount,
      PartyA: req.phone,
      PartyB: this.opts.shortcode,
      PhoneNumber: req.phone,
      CallBackURL: req.callbackUrl,
      AccountReference: req.accountReference.slice(0, 12),
      TransactionDesc: req.description.slice(0, 13),
    });
    if (status !== 200 || json?.['ResponseCode'] !== '0' || typeof json['CheckoutRequestID'] !== 'string') throw errorOf(status, json);
    return {
      merchantRequestId: String(json['MerchantRequestID']),
      checkoutRequestId: json['CheckoutRequestID'],
      customerMessage: String(json['CustomerMessage'] ?? ''),
    };
  }

  /** The state of an STK push: still waiting for the customer, or its final result. */
  async stkQuery(checkoutRequestId: string): Promise<StkQueryAnswer> {
    const { status, json } = await this.authorized('/mpesa/stkpushquery/v1/query', {
      ...this.credentials(),
      CheckoutRequestID: checkoutRequestId,
    });
    if (json?.['errorCode'] === STILL_PROCESSING) return { state: 'pending' };
    if (status !== 200 || json?.['ResultCode'] === undefined) throw errorOf(status, json);
    const code = Number(json['ResultCode']);
    if (!Number.isInteger(code)) throw new DarajaError(status, 'malformed', `ResultCode ${String(json['ResultCode'])}`);
    return { state: 'final', resultCode: code, resultDesc: String(json['ResultDesc'] ?? '') };
  }

  /**
   * Reverses a payment (`CommandID` TransactionReversal): Daraja acknowledges at once and posts the result
   * to `resultUrl` later (or to `queueTimeOutUrl` when the request timed out in its queue).
   */
  async reversal(req: ReversalRequest): Promise<{ conversationId: string; originatorConversationId: string }> {
    const { status, json } = await this.authorized('/mpesa/reversal/v1/request', {
      Initiator: req.initiator,
      SecurityCredential: req.securityCredential,
      CommandID: 'TransactionReversal',
      TransactionID: req.transactionId,
      Amount: req.amount,
      ReceiverParty: this.opts.shortcode,
      // Daraja's own spelling of the field.
      RecieverIdentifierType: '11',
      ResultURL: req.resultUrl,
      QueueTimeOutURL: req.queueTimeOutUrl,
      Remarks: req.remarks.slice(0, 100),
      Occasion: req.occasion.slice(0, 100),
    });
    if (status !== 200 || json?.['ResponseCode'] !== '0' || typeof json['ConversationID'] !== 'string') throw errorOf(status, json);
    return { conversationId: json['ConversationID'], originatorConversationId: String(json['OriginatorConversationID'] ?? '') };
  }
}

export interface ReversalRequest {
  initiator: string;
  securityCredential: string;
  /** The M-Pesa receipt of the payment reversed. */
  transactionId: string;
  /** Whole shillings: the amount of that payment. */
  amount: number;
  resultUrl: string;
  queueTimeOutUrl: string;
  remarks: string;
  occasion: string;
}

/** A reversal's result, as Daraja posts it to ResultURL (or QueueTimeOutURL). */
export interface ReversalResult {
  /** 0 (or "0") succeeded; anything else failed. */
  succeeded: boolean;
  resultCode: string;
  resultDesc: string;
  conversationId: string;
  /** The reversal's own M-Pesa transaction id, on success. */
  transactionId: string | null;
}

/** Parses `{Result: {ResultCode, ResultDesc, ConversationID, TransactionID, ...}}` strictly; throws with the reason on anything else. */
export function parseReversalResult(body: unknown): ReversalResult {
  const result =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)['Result'] : undefined;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) throw new Error('the body must be {"Result": {...}}');
  const r = result as Record<string, unknown>;
  const code = r['ResultCode'];
  if ((typeof code !== 'number' || !Number.isInteger(code)) && (typeof code !== 'string' || !/^[A-Za-z0-9.]{1,20}$/.test(code)))
    throw new Error('Result.ResultCode must be a code');
  const conversationId = r['ConversationID'];
  if (typeof conversationId !== 'string' || conversationId.length === 0 || conversationId.length > 100)
    throw new Error('Result.ConversationID must be a string');
  const tx = r['TransactionID'];
  const succeeded = String(code) === '0';
  if (succeeded && (typeof tx !== 'string' || !/^[A-Z0-9]{8,12}$/.test(tx))) throw new Error('a successful result needs a TransactionID');
  return {
    succeeded,
    resultCode: String(code),
    resultDesc: typeof r['ResultDesc'] === 'string' ? r['ResultDesc'].slice(0, 300) : '',
    conversationId,
    transactionId: succeeded ? (tx as string) : null,
  };
}

function errorOf(status: number, json: Record<string, unknown> | null): DarajaError {
  if (json && typeof json['errorCode'] === 'string') {
    return new DarajaError(status, json['errorCode'], String(json['errorMessage'] ?? ''));
  }
  if (json && json['ResponseCode'] !== undefined) {
    return new DarajaError(status, String(json['ResponseCode']), String(json['ResponseDescription'] ?? json['CustomerMessage'] ?? ''));
  }
  return new DarajaError(status, 'unexpected', `an answer Daraja does not give (HTTP ${status})`);
}

/** An STK callback, as Daraja posts it to CallBackURL. */
export interface StkCallback {
  merchantRequestId: string;
  checkoutRequestId: string;
  resultCode: number;
  resultDesc: string;
  /** On success: the shillings paid, the M-Pesa receipt number, the payer's phone and Daraja's date. */
  amount?: number;
  receipt?: string;
  phone?: string;
  transactionDate?: string;
}

/** Parses `{Body: {stkCallback: {...}}}` strictly; throws with the reason on anything else. */
export function parseStkCallback(body: unknown): StkCallback {
  const obj = (v: unknown, what: string): Record<string, unknown> => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} must be an object`);
    return v as Record<string, unknown>;
  };
  const cb = obj(obj(obj(body, 'the body')['Body'], 'Body')['stkCallback'], 'Body.stkCallback');
  const str = (k: string) => {
    const v = cb[k];
    if (typeof v !== 'string' || v.length === 0 || v.length > 100) throw new Error(`stkCallback.${k} must be a string`);
    return v;
  };
  const code = cb['ResultCode'];
  if (typeof code !== 'number' || !Number.isInteger(code)) throw new Error('stkCallback.ResultCode must be an integer');
  const out: StkCallback = {
    merchantRequestId: str('MerchantRequestID'),
    checkoutRequestId: str('CheckoutRequestID'),
    resultCode: code,
    resultDesc: typeof cb['ResultDesc'] === 'string' ? cb['ResultDesc'] : '',
  };
  if (code !== 0) return out;
  const items = obj(cb['CallbackMetadata'], 'stkCallback.CallbackMetadata')['Item'];
  if (!Array.isArray(items)) throw new Error('stkCallback.CallbackMetadata.Item must be an array');
  const values = new Map<string, unknown>();
  for (const item of items) {
    const i = obj(item, 'an Item');
    if (typeof i['Name'] !== 'string') throw new Error('an Item needs a Name');
    values.set(i['Name'], i['Value']);
  }
  const amount = values.get('Amount');
  if (typeof amount !== 'number' || !(amount > 0)) throw new Error('a successful callback needs a positive Amount');
  const receipt = values.get('MpesaReceiptNumber');
  if (typeof receipt !== 'string' || !/^[A-Z0-9]{8,12}$/.test(receipt))
    throw new Error('a successful callback needs an MpesaReceiptNumber');
  out.amount = amount;
  out.receipt = receipt;
  const phone = values.get('PhoneNumber');
  if (phone !== undefined) out.phone = String(phone);
  const date = values.get('TransactionDate');
  if (date !== undefined) out.transactionDate = String(date);
  return out;
}

/** Daraja's result codes as Cowrie maps them (docs/api-reference.md, "Live M-Pesa"); the sandbox test numbers share the table. */
export function outcomeOfResultCode(
  code: number,
  desc: string,
): { outcome: 'success' } | { outcome: 'attempt_failed'; failureCode: FailureCode; providerText?: string } {
  switch (code) {
    case 0:
      return { outcome: 'success' };
    case 1032:
      return { outcome: 'attempt_failed', failureCode: 'customer_cancelled' };
    case 1:
      return { outcome: 'attempt_failed', failureCode: 'insufficient_funds' };
    case 1037:
    case 1019:
      return { outcome: 'attempt_failed', failureCode: 'timeout' };
    case 2001:
      return { outcome: 'attempt_failed', failureCode: 'invalid_pin' };
    default:
      return { outcome: 'attempt_failed', failureCode: 'provider_error', providerText: desc || `result code ${code}` };
  }
}
