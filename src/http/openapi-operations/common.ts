// What every row of the operation table (openapi-operations.ts) is, and the shapes its response examples share.

export interface OperationDoc {
  /** camelCase, unique across the document. */
  operationId: string;
  /** Used when the route's schema has no description of its own. */
  description: string;
  /** Example of the JSON request body; only for operations that take one. */
  requestExample?: Record<string, unknown>;
  /** Example of the JSON body of the success (2xx) response. */
  responseExample: Record<string, unknown>;
}

export const META = { environment: 'test', livemode: false } as const;
/** A single-object response: the resource plus the response metadata. */
export function single(resource: Record<string, unknown>, requestId: string): Record<string, unknown> {
  return { ...resource, request_id: requestId, ...META };
}
/** A list response. */
export function list(
  data: Array<Record<string, unknown>>,
  requestId: string,
  hasMore: boolean | undefined = false,
): Record<string, unknown> {
  return { object: 'list', data, ...(hasMore === undefined ? {} : { has_more: hasMore }), request_id: requestId, ...META };
}
