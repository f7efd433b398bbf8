// One error class, one closed list of codes, one code -> status/type table. Services throw AppError; the HTTP
// layer turns it into the API's error envelope. /docs/errors is rendered from this table, so
// every code the server can answer with is documented there.

export type ErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'idempotency_error' | 'rate_limit_error' | 'api_error';

interface CodeInfo {
  status: number;
  type: ErrorType;
  /** What the code means, for the docs page. */
  meaning: string;
}

export const ERROR_CODES = {
  // 400
  invalid_json: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'The request body is not valid JSON, or is JSON but not an object.',
  },
  parameter_invalid: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'A parameter has the wrong type, format or value; `param` names it. Amounts must be decimal strings, never JSON numbers.',
  },
  parameter_missing: { status: 400, type: 'invalid_request_error', meaning: 'A required parameter is missing; `param` names it.' },
  parameter_unknown: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'The body carries a parameter this endpoint does not accept; `param` names it.',
  },
  environment_mismatch: {
    status: 400,
    type: 'invalid_request_error',
    meaning:
      "A key of one environment was sent to the other environment's address: `cwk_test_` keys go to the sandbox base URL, `cwk_live_` keys to the live one.",
  },
  payment_method_unavailable: {
    status: 400,
    type: 'invalid_request_error',
    meaning:
      'A payment method is not valid for the currency or settlement asset (mpesa: KES only; card: KES and USD; paypal: every currency but KES; external_wallet: settling in USDT or USDC), or is not allowed on this intent.',
  },
  sandbox_only: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'This endpoint exists only in the sandbox; call it with a `cwk_test_` key on the sandbox base URL.',
  },
  refund_amount_invalid: {
    status: 400,
    type: 'invalid_request_error',
    meaning: "Only full refunds exist: `amount`, when sent, must equal the payment intent's full `amount`; omit it to refund in full.",
  },
  use_dashboard_refund: {
    status: 400,
    type: 'invalid_request_error',
    meaning:
      'A payment made from the service balance cannot be refunded through the API; the owner refunds it in the dashboard with a transaction PIN.',
  },
  refund_window_expired: {
    status: 400,
    type: 'invalid_request_error',
    meaning:
      'The refund window has passed (180 days after payment for balance payments, 90 days for provider and external-wallet payments); contact support.',
  },
  return_address_required: {
    status: 400,
    type: 'invalid_request_error',
    meaning: "An external-wallet refund is a new on-chain send: give the payer's `return_address`.",
  },
  report_too_large: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'The CSV report window holds more rows than the export ceiling; narrow `from` and `to` and download it in parts.',
  },
  too_many_webhook_endpoints: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'An environment holds at most 16 webhook endpoints; delete one before creating another.',
  },
  api_version_invalid: {
    status: 400,
    type: 'invalid_request_error',
    meaning: 'The `Service-Version` request header names a version that does not exist. The only version is `2026-06-01`.',
  },
  // 401
  invalid_api_key: {
    status: 401,
    type: 'authentication_error',
    meaning: 'The `Authorization: Bearer` key is missing, malformed, unknown, revoked or expired.',
  },
  // 403
  insufficient_scope: {
    status: 403,
    type: 'permission_error',
    meaning: 'The key is valid but holds none of the scopes this endpoint accepts; the message names them.',
  },
  publishable_key_not_allowed: {
    status: 403,
    type: 'permission_error',
    meaning: 'Publishable keys may only call `GET /v1/auth/verify`; use a secret or restricted key on the server.',
  },
  ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    meaning: 'The live key has an IP allowlist and the request came from an address outside it.',
  },
  checkout_token_invalid: {
    status: 403,
    type: 'permission_error',
    meaning:
      "A hosted checkout action (pay, approve, simulated deposit) came without the checkout page's token, or with one for another payment. Reload the checkout page and try again.",
  },
  payer_suspended: {
    status: 403,
    type: 'permission_error',
    meaning: 'The payer account is suspended by the operator: it cannot pay from its balance or withdraw until it is unsuspended.',
  },
  payer_pin_locked: {
    status: 403,
    type: 'permission_error',
    meaning: 'Five wrong transaction PINs in a row lock paying and withdrawing from a payer account for 15 minutes.',
  },
  payer_sign_in_required: {
    status: 401,
    type: 'authentication_error',
    meaning: 'Paying from the account balance needs the payer to be signed in to their wallet (`/wallet/login`) on this origin.',
  },
  account_inactive: {
    status: 403,
    type: 'permission_error',
    meaning: 'The merchant account is suspended; its live keys are refused until it is reactivated.',
  },
  // 404
  route_not_found: {
    status: 404,
    type: 'invalid_request_error',
    meaning: 'No endpoint exists at this method and path. All endpoints are under `/v1`.',
  },
  resource_missing: {
    status: 404,
    type: 'invalid_request_error',
    meaning: 'No record with this id exists for this merchant in this environment; `param` is `id`.',
  },
  // 402
  MERCHANT_LIMIT_EXCEEDED: {
    status: 402,
    type: 'invalid_request_error',
    meaning:
      'The payment would take the merchant over a receiving cap (per payment, rolling 24 hours or rolling 30 days). The attempt is declined and the intent stays `awaiting_payment` until it expires.',
  },
  // 409
  intent_not_cancelable: {
    status: 409,
    type: 'invalid_request_error',
    meaning: 'Only an intent in `awaiting_payment` can be cancelled; this one has moved on (the message names its status).',
  },
  intent_not_payable: {
    status: 409,
    type: 'invalid_request_error',
    meaning:
      'The payment outcome cannot apply to the intent in its current status (for example a payment of a cancelled or expired intent, or a dispute of an unpaid one).',
  },
  intent_not_refundable: {
    status: 409,
    type: 'invalid_request_error',
    meaning:
      'Only a paid payment intent can be refunded (not one still awaiting payment, failed, expired, cancelled or disputed); the message names its status.',
  },
  refund_exists: {
    status: 409,
    type: 'invalid_request_error',
    meaning: 'This payment already has a refund that is requested or succeeded; a payment has at most one refund.',
  },
  refund_rail_unavailable: {
    status: 409,
    type: 'invalid_request_error',
    meaning:
      "The payment's rail is not configured to send refunds (the operator's approval): the refund stays `requested`; the message says why.",
  },
  insufficient_balance: {
    status: 400,
    type: 'invalid_request_error',
    meaning: "A payout's `amount` is more than the merchant's `available` balance of the asset in this environment; nothing was held.",
  },
  payout_network_unavailable: {
    status: 400,
    type: 'invalid_request_error',
    meaning:
      'The network has no payout sender here (its RPC URLs, address or payout key are not configured), so nothing can be sent on it.',
  },
  payment_link_completed: {
    status: 409,
    type: 'invalid_request_error',
    meaning:
      'The payment intent was minted by a payment link that already has `max_payments` paid payments; the payment is declined and the intent stays unpaid.',
  },
  idempotency_conflict: {
    status: 409,
    type: 'idempotency_error',
    meaning: 'The `Idempotency-Key` was used before with another method, path or body, or in the other environment.',
  },
  idempotency_in_progress: {
    status: 409,
    type: 'idempotency_error',
    meaning: 'A request with this `Idempotency-Key` is still being processed; retry after it finishes to receive its result.',
  },
  // 413, 415
  request_too_large: { status: 413, type: 'invalid_request_error', meaning: 'The request body is larger than 1 MiB.' },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    meaning: 'Request bodies must be sent as `Content-Type: application/json`.',
  },
  // 429
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    meaning: 'The key sent more requests than its per-second limit; wait for the number of seconds in `Retry-After`.',
  },
  // 500
  internal_error: {
    status: 500,
    type: 'api_error',
    meaning:
      'Something went wrong on our side. Nothing internal is shown; quote the `request_id` to support. Safe to retry with the same `Idempotency-Key`.',
  },
  // 503
  rates_unavailable: {
    status: 503,
    type: 'api_error',
    meaning:
      'The reference price this request needs is stale: no price source has answered for longer than the server allows (`COWRIE_RATES_MAX_AGE_S`), or none has answered yet. Nothing was created; retry later with the same `Idempotency-Key`. `GET /rates` shows each price with its `updated_at`.',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly status: number;
  readonly type: ErrorType;
  /** Extra response headers (Retry-After, ...). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, opts: { param?: string | null; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    const info: CodeInfo = ERROR_CODES[code];
    this.status = info.status;
    this.type = info.type;
    this.param = opts.param ?? null;
    this.headers = opts.headers ?? {};
  }
}

export function notFound(what: string, id: string): AppError {
  return new AppError('resource_missing', `No such ${what}: '${truncate(id, 80)}'`, { param: 'id' });
}

export function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/**
 * A refusal of an operator's command (the CLI), with a code of its own that is not one of the API's:
 * `deposit_not_confirmed`, `deposit_removed`, `deposit_already_credited`, ...
 */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}
