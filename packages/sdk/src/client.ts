// The client: `new Cowrie(apiKey, { baseUrl })`. The key's prefix says its environment (`cwk_test_` the
// sandbox, `cwk_live_` live); each resource's methods are typed from the server's OpenAPI document.
import { Transport, type Answer, type Query, type RequestOptions } from './http.js';
import { PagedList, type ListPage } from './pagination.js';
import type { BodyOf, OperationId, QueryOf, ResponseOf } from './types.js';
import { webhooks } from './webhooks.js';

export type Environment = 'test' | 'live';

export interface CowrieOptions {
  /** The API's base URL, `/v1` included. Default: the server's default for the key's environment. */
  baseUrl?: string;
  /** Retries of 429, 409 `idempotency_in_progress`, 5xx and network errors (default 2). */
  maxRetries?: number;
  /** Time allowed for each attempt, in milliseconds (default 30000). */
  timeoutMs?: number;
  /** A `Retry-After` longer than this (default 60000 ms) is not waited for: the error is thrown. */
  maxRetryAfterMs?: number;
  /** A fetch implementation (default the global `fetch`). */
  fetch?: typeof fetch;
}

/** Where the server listens by default (`COWRIE_LIVE_PORT` 4000, `COWRIE_SANDBOX_PORT` 4001). */
export const DEFAULT_BASE_URLS: Record<Environment, string> = {
  test: 'http://localhost:4001/v1',
  live: 'http://localhost:4000/v1',
};

const KEY_PATTERN = /^cwk_(test|live)_(sk|rk|pk)_[0-9A-Za-z]+$/;

/** Query parameters as a caller passes them (those with a default are optional in the document). */
type Params<O extends OperationId> = QueryOf<O>;
type ListOf<O extends OperationId> = ResponseOf<O> extends ListPage<unknown> ? ResponseOf<O> : never;

const id = (value: string) => encodeURIComponent(value);

export class Cowrie {
  readonly environment: Environment;
  readonly livemode: boolean;
  readonly baseUrl: string;
  /** Verify deliveries: `cowrie.webhooks.constructEvent(rawBody, headers, secret)`. */
  readonly webhooks = webhooks;
  private readonly transport: Transport;

  constructor(apiKey: string, options: CowrieOptions = {}) {
    const match = KEY_PATTERN.exec(typeof apiKey === 'string' ? apiKey : '');
    if (!match) {
      throw new TypeError('Cowrie: an API key starts with cwk_test_ (sandbox) or cwk_live_ (live), then sk_, rk_ or pk_');
    }
    this.environment = match[1] as Environment;
    this.livemode = this.environment === 'live';
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URLS[this.environment]).replace(/\/+$/, '');
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      userAgent: 'cowrie-sdk-node/0.1.0',
    });
  }

  /** Any operation by method and path (no /v1), for what the typed methods do not cover. */
  async request<T = unknown>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    init: { query?: Query; body?: unknown } = {},
    options?: RequestOptions,
  ): Promise<T> {
    return (await this.transport.request(method, path, init, options)).body as T;
  }

  /** The whole answer (status, headers such as `Idempotent-Replayed`, body) of any operation. */
  raw(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    init: { query?: Query; body?: unknown } = {},
    options?: RequestOptions,
  ): Promise<Answer> {
    return this.transport.request(method, path, init, options);
  }

  private get<O extends OperationId>(path: string, query?: Params<O>, options?: RequestOptions): Promise<ResponseOf<O>> {
    return this.request<ResponseOf<O>>('GET', path, { query: query as Query }, options);
  }

  private post<O extends OperationId>(path: string, body: BodyOf<O> | undefined, options?: RequestOptions): Promise<ResponseOf<O>> {
    return this.request<ResponseOf<O>>('POST', path, { body: body ?? {} }, options);
  }

  private list<O extends OperationId>(path: string, query: Params<O> | undefined, options?: RequestOptions): PagedList<ListOf<O>> {
    return new PagedList((cursor) =>
      this.request<ListOf<O>>('GET', path, { query: { ...(query as Query), ...(cursor ? { starting_after: cursor } : {}) } }, options),
    );
  }

  readonly auth = {
    /** `GET /auth/verify`: the key's identity, scopes and status. */
    verify: (options?: RequestOptions) => this.get<'verifyApiKey'>('/auth/verify', undefined, options),
  };

  readonly paymentIntents = {
    create: (body: BodyOf<'createPaymentIntent'>, options?: RequestOptions) =>
      this.post<'createPaymentIntent'>('/payment-intents', body, options),
    retrieve: (intentId: string, options?: RequestOptions) =>
      this.get<'retrievePaymentIntent'>(`/payment-intents/${id(intentId)}`, undefined, options),
    list: (params?: Params<'listPaymentIntents'>, options?: RequestOptions) =>
      this.list<'listPaymentIntents'>('/payment-intents', params, options),
    cancel: (intentId: string, options?: RequestOptions) =>
      this.post<'cancelPaymentIntent'>(`/payment-intents/${id(intentId)}/cancel`, undefined, options),
    /** `POST /payment-intents/{id}/refund-request`: a refund request in the intent's own words. */
    requestRefund: (intentId: string, body: BodyOf<'requestPaymentIntentRefund'>, options?: RequestOptions) =>
      this.post<'requestPaymentIntentRefund'>(`/payment-intents/${id(intentId)}/refund-request`, body, options),
  };

  readonly customers = {
    create: (body: BodyOf<'createCustomer'> = {} as BodyOf<'createCustomer'>, options?: RequestOptions) =>
      this.post<'createCustomer'>('/customers', body, options),
    retrieve: (customerId: string, options?: RequestOptions) =>
      this.get<'retrieveCustomer'>(`/customers/${id(customerId)}`, undefined, options),
    update: (customerId: string, body: BodyOf<'updateCustomer'>, options?: RequestOptions) =>
      this.post<'updateCustomer'>(`/customers/${id(customerId)}`, body, options),
    list: (params?: Params<'listCustomers'>, options?: RequestOptions) => this.list<'listCustomers'>('/customers', params, options),
  };

  readonly paymentLinks = {
    create: (body: BodyOf<'createPaymentLink'>, options?: RequestOptions) =>
      this.post<'createPaymentLink'>('/payment-links', body, options),
    retrieve: (linkId: string, options?: RequestOptions) =>
      this.get<'retrievePaymentLink'>(`/payment-links/${id(linkId)}`, undefined, options),
    update: (linkId: string, body: BodyOf<'updatePaymentLink'>, options?: RequestOptions) =>
      this.post<'updatePaymentLink'>(`/payment-links/${id(linkId)}`, body, options),
    list: (params?: Params<'listPaymentLinks'>, options?: RequestOptions) =>
      this.list<'listPaymentLinks'>('/payment-links', params, options),
  };

  readonly rates = {
    list: (params?: Params<'listRates'>, options?: RequestOptions) => this.get<'listRates'>('/rates', params, options),
  };

  readonly quotes = {
    create: (body: BodyOf<'createQuote'>, options?: RequestOptions) => this.post<'createQuote'>('/quotes', body, options),
  };

  readonly refunds = {
    create: (body: BodyOf<'createRefund'>, options?: RequestOptions) => this.post<'createRefund'>('/refunds', body, options),
    retrieve: (refundId: string, options?: RequestOptions) => this.get<'retrieveRefund'>(`/refunds/${id(refundId)}`, undefined, options),
    list: (params?: Params<'listRefunds'>, options?: RequestOptions) => this.list<'listRefunds'>('/refunds', params, options),
  };

  readonly payouts = {
    create: (body: BodyOf<'createPayout'>, options?: RequestOptions) => this.post<'createPayout'>('/payouts', body, options),
    retrieve: (payoutId: string, options?: RequestOptions) => this.get<'retrievePayout'>(`/payouts/${id(payoutId)}`, undefined, options),
    list: (params?: Params<'listPayouts'>, options?: RequestOptions) => this.list<'listPayouts'>('/payouts', params, options),
  };

  readonly settlements = {
    list: (params?: Params<'listSettlements'>, options?: RequestOptions) => this.list<'listSettlements'>('/settlements', params, options),
  };

  readonly balances = {
    /** Every asset's balance: one page, awaited or iterated. */
    list: (options?: RequestOptions) => this.list<'listBalances'>('/balances', undefined, options),
  };

  readonly walletDeposits = {
    list: (params?: Params<'listWalletDeposits'>, options?: RequestOptions) =>
      this.list<'listWalletDeposits'>('/wallet-deposits', params, options),
  };

  readonly reports = {
    /** Paid payments in a window, as JSON rows; iterate for every row of every page. */
    payments: (params: Omit<Params<'reportPayments'>, 'format'>, options?: RequestOptions) =>
      this.list<'reportPayments'>('/reports/payments', { ...params, format: 'json' } as Params<'reportPayments'>, options),
    /** The same window as one CSV text (header row first). */
    paymentsCsv: (params: Omit<Params<'reportPayments'>, 'format' | 'limit' | 'starting_after'>, options?: RequestOptions) =>
      this.request<string>('GET', '/reports/payments', { query: { ...(params as Query), format: 'csv' } }, options),
    settlements: (params: Omit<Params<'reportSettlements'>, 'format'>, options?: RequestOptions) =>
      this.list<'reportSettlements'>('/reports/settlements', { ...params, format: 'json' } as Params<'reportSettlements'>, options),
    settlementsCsv: (params: Omit<Params<'reportSettlements'>, 'format' | 'limit' | 'starting_after'>, options?: RequestOptions) =>
      this.request<string>('GET', '/reports/settlements', { query: { ...(params as Query), format: 'csv' } }, options),
  };

  readonly webhookEndpoints = {
    create: (body: BodyOf<'createWebhookEndpoint'>, options?: RequestOptions) =>
      this.post<'createWebhookEndpoint'>('/webhook_endpoints', body, options),
    retrieve: (endpointId: string, options?: RequestOptions) =>
      this.get<'retrieveWebhookEndpoint'>(`/webhook_endpoints/${id(endpointId)}`, undefined, options),
    update: (endpointId: string, body: BodyOf<'updateWebhookEndpoint'>, options?: RequestOptions) =>
      this.post<'updateWebhookEndpoint'>(`/webhook_endpoints/${id(endpointId)}`, body, options),
    list: (options?: RequestOptions) => this.list<'listWebhookEndpoints'>('/webhook_endpoints', undefined, options),
    del: (endpointId: string, options?: RequestOptions) =>
      this.request<ResponseOf<'deleteWebhookEndpoint'>>('DELETE', `/webhook_endpoints/${id(endpointId)}`, {}, options),
  };

  readonly webhookEvents = {
    retrieve: (eventId: string, options?: RequestOptions) =>
      this.get<'retrieveWebhookEvent'>(`/webhook_events/${id(eventId)}`, undefined, options),
    list: (params?: Params<'listWebhookEvents'>, options?: RequestOptions) =>
      this.list<'listWebhookEvents'>('/webhook_events', params, options),
    resend: (eventId: string, options?: RequestOptions) =>
      this.post<'resendWebhookEvent'>(`/webhook_events/${id(eventId)}/resend`, undefined, options),
  };

  readonly events = {
    /**
     * The event feed. Without `after`: the newest events, newest first (one page). With `after`: the
     * events after that one, oldest first in commit order; iterating follows `has_more` to the present.
     */
    list: (params?: Params<'listEvents'>, options?: RequestOptions) =>
      new PagedList<ListOf<'listEvents'>>(
        (cursor) => this.get<'listEvents'>('/events', { ...params, ...(cursor ? { after: cursor } : {}) } as Params<'listEvents'>, options),
        (page) => (params?.after && page.has_more && page.data.length > 0 ? page.data[page.data.length - 1]!.id : null),
      ),
  };

  readonly sandbox = {
    /** Drive a sandbox intent to an outcome, as a customer paying would. */
    simulate: (intentId: string, body: BodyOf<'simulatePaymentIntent'>, options?: RequestOptions) =>
      this.post<'simulatePaymentIntent'>(`/sandbox/payment-intents/${id(intentId)}/simulate`, body, options),
    /** Record a sample event and deliver it to your sandbox endpoints. */
    trigger: (type?: BodyOf<'triggerSandboxEvent'>['type'], options?: RequestOptions) =>
      this.post<'triggerSandboxEvent'>('/sandbox/webhooks/trigger', type === undefined ? {} : { type }, options),
    /** Fail a sandbox payout that is not paid yet (its hold is released). */
    failPayout: (payoutId: string, options?: RequestOptions) =>
      this.post<'failSandboxPayout'>(`/sandbox/payouts/${id(payoutId)}/fail`, undefined, options),
    clock: {
      retrieve: (options?: RequestOptions) => this.get<'retrieveSandboxClock'>('/sandbox/clock', undefined, options),
      advance: (body: BodyOf<'advanceSandboxClock'>, options?: RequestOptions) =>
        this.post<'advanceSandboxClock'>('/sandbox/clock/advance', body, options),
    },
  };
}
