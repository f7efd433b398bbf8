// One row per operation of the OpenAPI document, keyed by "METHOD /path" as the document spells it (no /v1
// prefix, `{param}` style): its operationId, a description for routes whose schema has none (the scope
// sentence is appended after it by openapi.ts) and the examples of the request body and of the success
// response. openapi.ts applies the table; test/docs.test.ts checks that every documented operation has a
// row and that every example is valid against its operation's schemas. A row whose route does not exist
// (yet) is simply not applied.
// The rows live in openapi-operations/, one file per area of the API; this table keeps the document's order.
import type { OperationDoc } from './openapi-operations/common.js';
import { LINK_OPERATIONS } from './openapi-operations/links.js';
import { MONEY_OPERATIONS } from './openapi-operations/money.js';
import { PAYMENT_OPERATIONS } from './openapi-operations/payments.js';
import { PAYOUT_OPERATIONS } from './openapi-operations/payouts.js';
import { WEBHOOK_OPERATIONS } from './openapi-operations/webhooks.js';

export type { OperationDoc } from './openapi-operations/common.js';

export const OPERATIONS: Record<string, OperationDoc> = {
  ...PAYMENT_OPERATIONS,
  ...LINK_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...MONEY_OPERATIONS,
  ...PAYOUT_OPERATIONS,
};

/** The table's key for an operation: `METHOD /path` (path as the document spells it). */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}
