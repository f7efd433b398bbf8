// One request, made safely retryable. A POST gets one Idempotency-Key for its whole life, reused by every
// retry, so that a create the server ran but whose answer was lost is replayed, not repeated. Retried:
// 429 (after its Retry-After), 409 `idempotency_in_progress` (the first try is still running), 5xx and
// network errors, with exponential backoff and jitter.
import { randomUUID } from 'node:crypto';
import { ConnectionError, CowrieError, errorFromResponse } from './errors.js';

export interface RequestOptions {
  /** Replaces the generated Idempotency-Key of a POST (use one per logical operation, e.g. your order id). */
  idempotencyKey?: string;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Overrides the client's `timeoutMs` (per attempt) for this call. */
  timeoutMs?: number;
  /** Cancels the call, its retries and their waits. */
  signal?: AbortSignal;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  maxRetries: number;
  timeoutMs: number;
  /** Longest Retry-After honoured; a longer one ends the retries. */
  maxRetryAfterMs: number;
  fetch: typeof fetch;
  userAgent: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text of a non-JSON answer (a CSV report). */
  body: unknown;
}

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s, … at most 8 s, each between half and all of it. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry);
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

/** `Retry-After` as milliseconds: delta seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function retryable(status: number, code: string): boolean {
  return status === 429 || status >= 500 || (status === 409 && code === 'idempotency_in_progress');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export class Transport {
  constructor(readonly options: TransportOptions) {}

  url(path: string, query?: Query): string {
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request(method: string, path: string, init: { query?: Query; body?: unknown } = {}, options: RequestOptions = {}): Promise<Answer> {
    const maxRetries = options.maxRetries ?? this.options.maxRetries;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.apiKey}`,
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    // One key for the logical request: generated once, sent again on every retry.
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    let payload: string | undefined;
    if (init.body !== undefined) {
      payload = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.url(path, init.query);

    for (let retry = 0; ; retry++) {
      const attemptSignal = AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, attemptSignal]) : attemptSignal;
      let response: Response;
      try {
        response = await this.options.fetch(url, { method, headers, body: payload, signal, redirect: 'manual' });
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (retry < maxRetries) {
          await sleep(backoffMs(retry), options.signal);
          continue;
        }
        const timedOut = attemptSignal.aborted;
        throw new ConnectionError(
          timedOut
            ? `No answer from ${url} within ${options.timeoutMs ?? this.options.timeoutMs} ms`
            : `Could not reach ${url}: ${describe(cause)}`,
          { type: 'connection_error', code: timedOut ? 'timeout' : 'connection_failed', cause },
        );
      }

      let body: unknown;
      try {
        const text = await response.text();
        body = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
      } catch (cause) {
        // The connection broke while the body was read: as good as no answer.
        if (retry < maxRetries) {
          await sleep(backoffMs(retry), options.signal);
          continue;
        }
        throw new ConnectionError(`The answer from ${url} was cut off: ${describe(cause)}`, {
          type: 'connection_error',
          code: 'connection_failed',
          statusCode: response.status,
          cause,
        });
      }
      if (response.status >= 200 && response.status < 300) return { status: response.status, headers: response.headers, body };

      const wait = retryAfterMs(response.headers.get('retry-after'));
      const error = errorFromResponse(
        response.status,
        body,
        response.headers.get('service-request-id'),
        wait === null ? null : Math.ceil(wait / 1000),
      );
      if (retry < maxRetries && retryable(response.status, error.code) && (wait ?? 0) <= this.options.maxRetryAfterMs) {
        // Never sooner than the server asked; a little jitter so that many clients do not return together.
        await sleep(wait === null ? backoffMs(retry) : wait + Math.round(Math.random() * 100), options.signal);
        continue;
      }
      throw error;
    }
  }
}

function describe(cause: unknown): string {
  if (cause instanceof CowrieError) return cause.message;
  const e = cause as { message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(cause);
}
