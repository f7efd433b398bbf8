// Every failure the client reports is a CowrieError. An answer from the server carries its error envelope
// (`type`, `code`, `param`, `request_id`, `docs_url`); each `type` has its own class so that callers can
// branch with `instanceof` or on `code`.

/** The `error` object of the server's envelope. */
export interface ErrorEnvelope {
  type: string;
  code: string;
  message: string;
  param: string | null;
  request_id: string;
  docs_url?: string;
}

export class CowrieError extends Error {
  override readonly name: string = 'CowrieError';
  /** HTTP status of the answer; undefined when no answer came (network, timeout). */
  readonly statusCode: number | undefined;
  /** The envelope's `type` (`invalid_request_error`, …) or `connection_error` when no answer came. */
  readonly type: string;
  /** The envelope's `code` (`parameter_invalid`, `resource_missing`, …): branch on this. */
  readonly code: string;
  /** The request field at fault, dotted for nested fields (`customer.email`), or null. */
  readonly param: string | null;
  /** The request id (`req_…`) to quote to support; null when no answer came. */
  readonly requestId: string | null;
  readonly docsUrl: string | null;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfter: number | null;
  /** The whole JSON body of the answer, when there was one. */
  readonly raw: unknown;

  constructor(
    message: string,
    init: {
      statusCode?: number;
      type: string;
      code: string;
      param?: string | null;
      requestId?: string | null;
      docsUrl?: string | null;
      retryAfter?: number | null;
      raw?: unknown;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.statusCode = init.statusCode;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param ?? null;
    this.requestId = init.requestId ?? null;
    this.docsUrl = init.docsUrl ?? null;
    this.retryAfter = init.retryAfter ?? null;
    this.raw = init.raw;
  }
}

/** 400: a field is missing, malformed or unknown, or a business rule refused the request. */
export class InvalidRequestError extends CowrieError {
  override readonly name: string = 'InvalidRequestError';
}
/** 401: missing, malformed, unknown, revoked or expired key. */
export class AuthenticationError extends CowrieError {
  override readonly name: string = 'AuthenticationError';
}
/** 403: the key may not do this (scope, IP allowlist, publishable key, inactive account). */
export class PermissionError extends CowrieError {
  override readonly name: string = 'PermissionError';
}
/** 409: the Idempotency-Key was used with another request, or its first request is still running. */
export class IdempotencyError extends CowrieError {
  override readonly name: string = 'IdempotencyError';
}
/** 429: over the key's request budget (retried automatically before it reaches you). */
export class RateLimitError extends CowrieError {
  override readonly name: string = 'RateLimitError';
}
/** 5xx: the server failed; retried automatically before it reaches you. */
export class ApiError extends CowrieError {
  override readonly name: string = 'ApiError';
}
/** No answer: the connection failed or timed out (retried automatically before it reaches you). */
export class ConnectionError extends CowrieError {
  override readonly name: string = 'ConnectionError';
}
/** A webhook's signature or timestamp did not verify (see `webhooks.constructEvent`). */
export class SignatureVerificationError extends CowrieError {
  override readonly name: string = 'SignatureVerificationError';
}

const BY_TYPE: Record<string, typeof CowrieError> = {
  invalid_request_error: InvalidRequestError,
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  idempotency_error: IdempotencyError,
  rate_limit_error: RateLimitError,
  api_error: ApiError,
};

/** The error for an answer that is not 2xx, from its envelope (or from its status when the body is not one). */
export function errorFromResponse(statusCode: number, body: unknown, requestId: string | null, retryAfter: number | null): CowrieError {
  const envelope = (body as { error?: Partial<ErrorEnvelope> } | null)?.error;
  if (envelope && typeof envelope.code === 'string' && typeof envelope.type === 'string') {
    const Class = BY_TYPE[envelope.type] ?? (statusCode >= 500 ? ApiError : CowrieError);
    return new Class(envelope.message ?? envelope.code, {
      statusCode,
      type: envelope.type,
      code: envelope.code,
      param: envelope.param ?? null,
      requestId: envelope.request_id ?? requestId,
      docsUrl: envelope.docs_url ?? null,
      retryAfter,
      raw: body,
    });
  }
  // Not our envelope (a proxy's page, say): classify by status.
  const Class = statusCode === 429 ? RateLimitError : statusCode >= 500 ? ApiError : statusCode === 401 ? AuthenticationError : CowrieError;
  return new Class(`HTTP ${statusCode} without an error envelope`, {
    statusCode,
    type: statusCode >= 500 ? 'api_error' : 'invalid_request_error',
    code: statusCode >= 500 ? 'internal_error' : `http_${statusCode}`,
    requestId,
    retryAfter,
    raw: body,
  });
}
