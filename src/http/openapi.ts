// The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger. Each operation also
// names its scopes (`x-scopes` and the bearer security requirement), its error codes and the response
// metadata headers.
import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { ERROR_CODES } from '../shared/errors.js';
import { ErrorEnvelope } from './schemas.js';
import { API_VERSION } from './context.js';
import { OPERATIONS, operationKey } from './openapi-operations.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized: missing, malformed, unknown, revoked or expired key',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/**
 * Error responses for a route's schema: the envelope, with the codes of each status listed, each a link to
 * its row of /docs/errors (relative, so it lands on the server that served the document). 400 and 500 are
 * always included: any request can carry a wrong `Service-Version` or a key of the other environment.
 */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, typeof ErrorEnvelope> = {};
  for (const status of new Set([400, ...statuses, 500])) {
    const codes = Object.entries(ERROR_CODES)
      .filter(([, info]) => info.status === status)
      .map(([code]) => `[\`${code}\`](/docs/errors#${code})`);
    out[status] = {
      ...ErrorEnvelope,
      $id: undefined,
      description: `${STATUS_TEXT[status] ?? 'Error'}. Codes: ${codes.join(', ')}.`,
    } as never;
  }
  return out;
}

const META_HEADERS = {
  'Service-Request-Id': { description: 'Request identifier, to be quoted to support', schema: { type: 'string' } },
  'Service-Version': { description: `API version (${API_VERSION})`, schema: { type: 'string' } },
  'Service-Environment': { description: 'Environment that handled the request (`test` or `live`)', schema: { type: 'string' } },
  'Service-RateLimit-Limit': { description: 'Requests a second this key may make', schema: { type: 'integer' } },
  'Service-RateLimit-Remaining': { description: 'Requests left in the current second', schema: { type: 'integer' } },
  'Service-RateLimit-Reset': { description: 'Whole seconds until the budget refills', schema: { type: 'integer' } },
};

/** The parts of the generated document this file edits. */
interface OpenApiMediaType {
  schema?: unknown;
  example?: unknown;
}
interface OpenApiOperation {
  operationId?: string;
  description?: string;
  security?: unknown[];
  parameters?: Array<{ in?: string; required?: boolean; schema?: { default?: unknown } }>;
  requestBody?: { content?: Record<string, OpenApiMediaType> };
  responses?: Record<
    string,
    { description?: string; 'x-summary'?: string; headers?: Record<string, unknown>; content?: Record<string, OpenApiMediaType> }
  >;
}
interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation>>;
}

/** The document's spelling of a route URL: no /v1 prefix, `{param}` for `:param`. */
function documentPath(url: string): string {
  return (url.replace(/^\/v1(?=\/|$)/, '') || '/').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Adds the operation table's operationId and examples (openapi-operations.ts) to an operation. */
function applyOperationDoc(method: string, path: string, op: OpenApiOperation): void {
  const entry = OPERATIONS[operationKey(method, path)];
  if (!entry) return;
  op.operationId = entry.operationId;
  const body = op.requestBody?.content?.['application/json'];
  if (body && entry.requestExample) body.example = entry.requestExample;
  const success = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
  const json = success?.content?.['application/json'];
  if (json) json.example = entry.responseExample;
}

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cowrie payment-acceptance API',
        version: API_VERSION,
        description:
          'Every request sends `Authorization: Bearer <key>`. Sandbox keys (`cwk_test_`) go to the sandbox server, live keys (`cwk_live_`) to the live one. Errors use one envelope; every code is listed at [/docs/errors](/docs/errors), and the guide is at [/docs](/docs).',
      },
      servers: [
        { url: config.liveUrl, description: 'Live' },
        { url: config.sandboxUrl, description: 'Sandbox' },
      ],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: cwk_<test|live>_<sk|rk|pk>_…' } },
        headers: META_HEADERS as never,
      },
    },
    transform: documentRoute,
    transformObject: finishDocument,
  });
}

/**
 * One route's part of the document: the table's description when the schema has none, the scopes and
 * security requirement of a route that takes a key (and the Idempotency-Key header of its POST), its URL
 * without the /v1 prefix.
 */
const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  const config = (route.config ?? {}) as { scopes?: string[]; access?: string };
  const s = { ...(schema ?? {}) } as Record<string, unknown>;
  const methods = ([] as string[]).concat(route.method as string | string[]);
  // The operation table's description, for a route that has none of its own.
  s['description'] ??= OPERATIONS[operationKey(methods[0] ?? '', documentPath(url))]?.description;
  if (config.access !== 'public') {
    const scopes = config.scopes ?? [];
    s['security'] = [{ bearerAuth: scopes }];
    s['x-scopes'] = scopes;
    s['description'] = [
      s['description'],
      scopes.length ? `Scope: any one of ${scopes.map((x) => `\`${x}\``).join(', ')}.` : 'Any valid key, publishable keys included.',
    ]
      .filter(Boolean)
      .join(' ');
    if (methods.includes('POST')) {
      s['headers'] = {
        type: 'object',
        properties: {
          'Idempotency-Key': {
            type: 'string',
            maxLength: 255,
            description: 'Makes the POST safe to retry: the first response is replayed for 24 hours.',
          },
        },
      };
    }
  } else {
    s['security'] = [];
  }
  // Strip the /v1 prefix: the servers' URLs carry it.
  return { schema: s as never, url: url.replace(/^\/v1(?=\/|$)/, '') || '/' };
};

/** The whole document, once generated: every API operation gets its table row and its response headers. */
const finishDocument: SwaggerTransformObject = (documentObject) => {
  const doc = (documentObject as { openapiObject: OpenApiDocument }).openapiObject;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (!path.startsWith('/') || path.startsWith('/docs')) continue;
    for (const [method, op] of Object.entries(item)) {
      applyOperationDoc(method, path, op);
      // A query parameter with a default may be left out: it is not required of the client, whatever
      // the route's validation schema lists (the default fills it in before validation).
      for (const param of op.parameters ?? []) if (param.in === 'query' && param.schema?.default !== undefined) param.required = false;
      addResponseHeaders(op);
    }
  }
  return doc as never;
};

/** Each response's summary (for a description listing codes) and the metadata headers it carries. */
function addResponseHeaders(op: OpenApiOperation): void {
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    // A short summary for renderers that show it on the response's expandable header (Redoc's
    // `x-summary`), so that the code links of the description sit in its body, not in a button.
    const codes = response.description?.indexOf('. Codes: ') ?? -1;
    if (codes > 0) response['x-summary'] = response.description!.slice(0, codes);
    const headers: Record<string, unknown> = { 'Service-Request-Id': { $ref: '#/components/headers/Service-Request-Id' } };
    headers['Service-Version'] = { $ref: '#/components/headers/Service-Version' };
    if (op.security?.length) {
      for (const h of ['Service-Environment', 'Service-RateLimit-Limit', 'Service-RateLimit-Remaining', 'Service-RateLimit-Reset']) {
        headers[h] = { $ref: `#/components/headers/${h}` };
      }
    }
    if (status === '429') headers['Retry-After'] = { description: 'Seconds to wait', schema: { type: 'integer' } };
    response.headers = { ...(response.headers ?? {}), ...headers };
  }
}
