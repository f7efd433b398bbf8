// @cowrie/sdk: a typed client for the Cowrie payment-acceptance API.
export { Cowrie, DEFAULT_BASE_URLS, type CowrieOptions, type Environment } from './client.js';
export type { RequestOptions, Answer } from './http.js';
export { PagedList, type ListPage } from './pagination.js';
export {
  CowrieError,
  InvalidRequestError,
  AuthenticationError,
  PermissionError,
  IdempotencyError,
  RateLimitError,
  ApiError,
  ConnectionError,
  SignatureVerificationError,
  type ErrorEnvelope,
} from './errors.js';
export {
  webhooks,
  constructEvent,
  generateHeaders,
  DEFAULT_TOLERANCE_SECONDS,
  type HeadersLike,
  type ConstructEventOptions,
} from './webhooks.js';
export type * from './types.js';
