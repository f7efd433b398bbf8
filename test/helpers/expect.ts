// Assertions every API test shares: the error envelope and the top-level metadata of every response.
import { expect } from 'vitest';

/** A response as the tests see it: status, headers (fetch's or a plain record), raw text and parsed JSON. */
export interface SeenResponse {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

function header(r: SeenResponse, name: string): string | null {
  if (r.headers instanceof Headers) return r.headers.get(name);
  const v = r.headers[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** The `error.type` each status implies (the idempotency 409s have their own); /docs/errors lists each code's type. */
export function errorTypeOf(status: number, code: string): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  if (code.startsWith('idempotency_')) return 'idempotency_error';
  return 'invalid_request_error';
}

/** The top-level metadata of every JSON response: request id (header and body), environment, livemode. */
export function expectMeta(r: SeenResponse, environment?: 'test' | 'live', where = r.text.slice(0, 300)): void {
  const id = header(r, 'service-request-id');
  expect(id, where).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(r.json.request_id, where).toBe(id);
  expect(['test', 'live'], where).toContain(r.json.environment);
  if (environment !== undefined) expect(r.json.environment, where).toBe(environment);
  expect(r.json.livemode, where).toBe(r.json.environment === 'live');
}

/** The one API version, written out independently of the server's. */
export const SERVICE_VERSION = '2026-06-01';

/** Every error code an expectError of this test file saw (each must have its entry on /docs/errors). */
export const seenErrorCodes = new Set<string>();

export interface ErrorExpectations {
  /** Overrides the type the status implies. */
  type?: string;
  /** The environment the body must name (else any, consistent with `livemode`). */
  environment?: 'test' | 'live';
  /** Says which case failed, in assertion messages. */
  label?: string;
  /** The Service-Version header the answer must carry (else not checked). */
  version?: string;
  /** The origin docs_url must be on (else any http(s) origin). */
  docsOrigin?: string;
}

/**
 * The error envelope, exactly: status, JSON content type, `{error: {type, code, message, param, request_id,
 * docs_url}, request_id, environment, livemode}` and nothing else, the request id the same in the header,
 * the body and the error, a message for people, and a docs_url that lands on the code's entry.
 */
export function expectError(
  r: SeenResponse,
  status: number,
  code: string,
  param: string | null = null,
  opts: ErrorExpectations = {},
): void {
  const where = `${opts.label ? `${opts.label}: ` : ''}${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBe(status);
  expect(header(r, 'content-type'), where).toMatch(/^application\/json/);
  expect(Object.keys(r.json ?? {}).sort(), where).toEqual(['environment', 'error', 'livemode', 'request_id']);
  expect(Object.keys(r.json.error).sort(), where).toEqual(['code', 'docs_url', 'message', 'param', 'request_id', 'type']);
  expect(r.json.error.code, where).toBe(code);
  expect(r.json.error.param, where).toBe(param);
  expect(r.json.error.type, where).toBe(opts.type ?? errorTypeOf(status, code));
  expect(typeof r.json.error.message, where).toBe('string');
  expect(r.json.error.message.length, where).toBeGreaterThan(0);
  expectMeta(r, opts.environment, where);
  expect(r.json.error.request_id, where).toBe(r.json.request_id);
  const docs = new URL(r.json.error.docs_url);
  expect(`${docs.pathname}${docs.hash}`, where).toBe(`/docs/errors#${code}`);
  expect(r.json.error.docs_url, where).toMatch(new RegExp(`^https?://[^/]+/docs/errors#${code}$`));
  if (opts.docsOrigin !== undefined) expect(r.json.error.docs_url, where).toBe(`${opts.docsOrigin}/docs/errors#${code}`);
  if (opts.version !== undefined) expect(header(r, 'service-version'), where).toBe(opts.version);
  seenErrorCodes.add(code);
}
