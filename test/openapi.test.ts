// The served documentation: /v1/openapi.json is a valid OpenAPI 3.1 document that tells the truth about
// the routes (paths, methods, scopes, error responses, metadata headers, Idempotency-Key), /docs/errors
// lists every error code with an anchor each docs_url lands on, and /docs answers HTML.
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/modules/keys/scopes.js';
import { ERROR_CODES } from '../src/shared/errors.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

type Json = Record<string, any>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Operation {
  path: string;
  method: string;
  op: Json;
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc['paths'] ?? {})) {
    for (const method of HTTP_METHODS) {
      if (item[method]) out.push({ path, method, op: item[method] });
    }
  }
  return out;
}

/** Resolves a local `$ref` (`#/components/...`). */
function deref(doc: Json, node: Json): Json {
  let cur = node;
  for (let i = 0; i < 10 && typeof cur?.['$ref'] === 'string'; i++) {
    const ref = cur['$ref'] as string;
    expect(ref.startsWith('#/')).toBe(true);
    cur = ref
      .slice(2)
      .split('/')
      .reduce<Json>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    expect(cur, `unresolvable ${ref}`).toBeDefined();
  }
  return cur;
}

function jsonSchemaOf(doc: Json, response: Json): Json | undefined {
  const r = deref(doc, response);
  const schema = r['content']?.['application/json']?.['schema'];
  return schema ? deref(doc, schema) : undefined;
}

const ENVELOPE_FIELDS = ['type', 'code', 'message', 'param', 'request_id', 'docs_url'];

function expectEnvelopeSchema(doc: Json, response: Json | undefined, label: string): void {
  expect(response, `${label}: response missing`).toBeDefined();
  const schema = jsonSchemaOf(doc, response!);
  expect(schema, `${label}: no application/json schema`).toBeDefined();
  expect(schema!['type']).toBe('object');
  expect(schema!['required']).toEqual(expect.arrayContaining(['error', 'request_id', 'environment', 'livemode']));
  const error = deref(doc, schema!['properties']['error']);
  expect(error['type']).toBe('object');
  expect(Object.keys(error['properties']).sort(), label).toEqual([...ENVELOPE_FIELDS].sort());
  expect(error['required']).toEqual(expect.arrayContaining(ENVELOPE_FIELDS));
  expect(deref(doc, schema!['properties']['environment'])['enum']).toEqual(expect.arrayContaining(['test', 'live']));
}

/** The route path Fastify registered for an OpenAPI path (`/customers/{id}` -> `/v1/customers/:id`). */
function routeUrl(path: string): string {
  return `/v1${path.replace(/\{([^}]+)\}/g, ':$1')}`;
}
/** A concrete URL for an OpenAPI path, with a dummy id in each parameter. */
function concreteUrl(path: string): string {
  return `/v1${path.replace(/\{([^}]+)\}/g, 'x_doesnotexist')}`;
}

describe(`OpenAPI document and docs pages (${ENGINE})`, () => {
  let s: TestServer;
  let doc: Json;
  beforeAll(async () => {
    s = await startTestServer();
    const r = await s.call('test', 'GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    doc = r.json;
  });
  afterAll(async () => s?.stop());

  describe('/v1/openapi.json', () => {
    it('is served without a key, as JSON, identical on both addresses', async () => {
      const sandbox = await s.call('test', 'GET', '/v1/openapi.json');
      const live = await s.call('live', 'GET', '/v1/openapi.json');
      for (const r of [sandbox, live]) {
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.headers.get('service-request-id')).toMatch(/^req_/);
      }
      expect(live.json).toEqual(sandbox.json);
      // A key is not needed, and a bad one does not get in the way either.
      const withBadKey = await s.call('test', 'GET', '/v1/openapi.json', { key: 'cwk_test_sk_nope' });
      expect(withBadKey.status).toBe(200);
    });

    it('is a valid OpenAPI 3.1 document carrying version 2026-06-01', async () => {
      expect(doc['openapi']).toMatch(/^3\.1\.\d+$/);
      expect(doc['info']['version']).toBe('2026-06-01');
      const result = await validate(structuredClone(doc) as never);
      expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
      expect(result.specification).toBe('OpenAPI');
      expect(result.warnings).toEqual([]);
    });

    it('names both servers, each base URL ending in /v1, and paths without the /v1 prefix', () => {
      const urls = (doc['servers'] as Json[]).map((x) => x['url']);
      expect(urls).toEqual(expect.arrayContaining([s.config.liveUrl, s.config.sandboxUrl]));
      for (const url of urls) expect(url).toMatch(/\/v1$/);
      for (const path of Object.keys(doc['paths'])) {
        expect(path.startsWith('/')).toBe(true);
        expect(path.startsWith('/v1/')).toBe(false);
        expect(path.startsWith('/docs')).toBe(false);
        expect(path).not.toBe('/openapi.json');
      }
      expect(doc['components']['securitySchemes']['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('has /auth/verify, /customers and /customers/{id} with the right methods', () => {
      const paths = doc['paths'] as Json;
      expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/auth/verify', '/customers', '/customers/{id}']));
      expect(Object.keys(paths['/auth/verify']).filter((k) => (HTTP_METHODS as readonly string[]).includes(k))).toEqual(['get']);
      expect(
        Object.keys(paths['/customers'])
          .filter((k) => (HTTP_METHODS as readonly string[]).includes(k))
          .sort(),
      ).toEqual(['get', 'post']);
      expect(Object.keys(paths['/customers/{id}']).filter((k) => (HTTP_METHODS as readonly string[]).includes(k))).toEqual(['get', 'post']);
      // The path parameter is declared.
      const params = (paths['/customers/{id}']['get']['parameters'] as Json[]).map((p) => deref(doc, p));
      expect(params).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
    });

    it('documents only operations the server really has', () => {
      const ops = operations(doc);
      expect(ops.length).toBeGreaterThanOrEqual(4);
      for (const { path, method } of ops) {
        expect(s.running.app.hasRoute({ method: method.toUpperCase() as 'GET', url: routeUrl(path) }), `${method} ${path}`).toBe(true);
      }
    });

    it('every authenticated operation names its scopes in x-scopes and the bearerAuth requirement', () => {
      const expected: Record<string, string[]> = {
        'get /auth/verify': [],
        'get /customers': ['customers:read'],
        'post /customers': ['customers:write'],
        'get /customers/{id}': ['customers:read'],
      };
      for (const { path, method, op } of operations(doc)) {
        const label = `${method} ${path}`;
        expect(op['security'], label).toBeDefined();
        expect(op['security']).toHaveLength(1);
        const scopes = op['security'][0]['bearerAuth'];
        expect(Array.isArray(scopes), label).toBe(true);
        expect(op['x-scopes'], label).toEqual(scopes);
        for (const sc of scopes) expect(SCOPES as readonly string[], label).toContain(sc);
        if (expected[label]) expect(scopes, label).toEqual(expected[label]);
      }
      for (const label of Object.keys(expected)) {
        expect(operations(doc).map((o) => `${o.method} ${o.path}`)).toContain(label);
      }
    });

    it('the documented scopes are the ones the server enforces', async () => {
      const merchantId = s.merchant.merchant.id;
      for (const { path, method, op } of operations(doc)) {
        const scopes = op['x-scopes'] as string[];
        if (scopes.length === 0) continue;
        const label = `${method} ${path}`;
        const other = SCOPES.filter((x) => !scopes.includes(x));
        const wrong = await s.newKey({ merchantId, environment: 'test', type: 'restricted', scopes: other });
        const denied = await s.call('test', method.toUpperCase(), concreteUrl(path), {
          key: wrong.key,
          body: method === 'post' ? {} : undefined,
        });
        expect(denied.status, `${label} with ${other.join(',')}`).toBe(403);
        expect(denied.json.error.code).toBe('insufficient_scope');
        for (const scope of scopes) {
          const right = await s.newKey({ merchantId, environment: 'test', type: 'restricted', scopes: [scope] });
          const allowed = await s.call('test', method.toUpperCase(), concreteUrl(path), {
            key: right.key,
            body: method === 'post' ? {} : undefined,
          });
          expect(allowed.json?.error?.code, `${label} with ${scope}: ${allowed.text.slice(0, 200)}`).not.toBe('insufficient_scope');
          expect(allowed.status, label).not.toBe(401);
        }
      }
    });

    it('every authenticated operation documents 400, 401, 429 and 500 with the error envelope (403 when scoped, 409 on POST)', () => {
      for (const { path, method, op } of operations(doc)) {
        const label = `${method} ${path}`;
        const responses = op['responses'] as Json;
        // Every authenticated request can be refused: wrong environment or Service-Version (400), key
        // (401), rate limit (429), and our own fault (500).
        for (const status of ['400', '401', '429', '500']) expectEnvelopeSchema(doc, responses[status], `${label} ${status}`);
        if ((op['x-scopes'] as string[]).length > 0) expectEnvelopeSchema(doc, responses['403'], `${label} 403`);
        if (method === 'post') expectEnvelopeSchema(doc, responses['409'], `${label} 409`);
        if (path.includes('{')) expectEnvelopeSchema(doc, responses['404'], `${label} 404`);
        // The error descriptions name the codes, each of them a real one.
        for (const [status, response] of Object.entries<Json>(responses)) {
          if (!status.startsWith('4') && !status.startsWith('5')) continue;
          const codes = [...String(deref(doc, response)['description']).matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]!);
          expect(codes.length, `${label} ${status}`).toBeGreaterThan(0);
          for (const code of codes) {
            expect(Object.keys(ERROR_CODES), `${label} ${status}`).toContain(code);
            expect(String(ERROR_CODES[code as keyof typeof ERROR_CODES].status)).toBe(status);
          }
        }
      }
    });

    it('every response of every operation documents Service-Request-Id and Service-Version; 429 also Retry-After', () => {
      for (const { path, method, op } of operations(doc)) {
        for (const [status, response] of Object.entries<Json>(op['responses'])) {
          const label = `${method} ${path} ${status}`;
          const headers = deref(doc, response)['headers'] as Json | undefined;
          expect(headers, label).toBeDefined();
          const rid = deref(doc, headers!['Service-Request-Id']);
          expect(rid['schema']?.['type'], label).toBe('string');
          expect(deref(doc, headers!['Service-Version'])['schema']?.['type'], label).toBe('string');
          if ((op['security'] as Json[]).length > 0) {
            for (const h of ['Service-Environment', 'Service-RateLimit-Limit', 'Service-RateLimit-Remaining', 'Service-RateLimit-Reset']) {
              expect(deref(doc, headers![h] ?? {})['schema'], `${label} ${h}`).toBeDefined();
            }
          }
          if (status === '429') expect(headers!['Retry-After'], label).toBeDefined();
        }
      }
    });

    it('every JSON success response carries request_id, environment and livemode', () => {
      for (const { path, method, op } of operations(doc)) {
        const successes = Object.entries<Json>(op['responses']).filter(([status]) => status.startsWith('2'));
        expect(successes.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const [status, response] of successes) {
          const schema = jsonSchemaOf(doc, response);
          if (!schema) continue;
          const label = `${method} ${path} ${status}`;
          expect(Object.keys(schema['properties'] ?? {}), label).toEqual(expect.arrayContaining(['request_id', 'environment', 'livemode']));
          expect(schema['required'], label).toEqual(expect.arrayContaining(['request_id', 'environment', 'livemode']));
        }
      }
    });

    it('every POST operation documents the optional Idempotency-Key header', () => {
      const posts = operations(doc).filter((o) => o.method === 'post');
      expect(posts.map((o) => o.path)).toContain('/customers');
      for (const { path, op } of posts) {
        const params = ((op['parameters'] ?? []) as Json[]).map((p) => deref(doc, p));
        const idem = params.find((p) => p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key');
        expect(idem, `post ${path}`).toBeDefined();
        expect(idem!['required'] ?? false).toBe(false);
        expect(idem!['schema']).toMatchObject({ type: 'string', maxLength: 255 });
      }
      // GETs do not.
      for (const { path, method, op } of operations(doc).filter((o) => o.method === 'get')) {
        const params = ((op['parameters'] ?? []) as Json[]).map((p) => deref(doc, p));
        expect(
          params.some((p) => String(p['name']).toLowerCase() === 'idempotency-key'),
          `${method} ${path}`,
        ).toBe(false);
      }
    });

    it('real answers match the documented schemas', async () => {
      const ajv = new Ajv({ strict: false, allErrors: true });
      (addFormats as unknown as (a: Ajv) => void)(ajv);
      const check = (path: string, method: string, status: number, body: unknown) => {
        const response = doc['paths'][path][method]['responses'][String(status)];
        expect(response, `${method} ${path} ${status} undocumented`).toBeDefined();
        const validateBody = ajv.compile(jsonSchemaOf(doc, response)!);
        expect(validateBody(body), `${method} ${path} ${status}: ${ajv.errorsText(validateBody.errors)}`).toBe(true);
      };
      const verify = await s.sandbox('GET', '/auth/verify');
      check('/auth/verify', 'get', verify.status, verify.json);
      const created = await s.sandbox('POST', '/customers', { body: { email: 'doc@example.com', metadata: { a: 1 } } });
      check('/customers', 'post', created.status, created.json);
      const list = await s.sandbox('GET', '/customers');
      check('/customers', 'get', list.status, list.json);
      const one = await s.sandbox('GET', `/customers/${created.json.id}`);
      check('/customers/{id}', 'get', one.status, one.json);
      const missing = await s.sandbox('GET', '/customers/cus_nope');
      check('/customers/{id}', 'get', 404, missing.json);
      const unauth = await s.call('test', 'GET', '/customers');
      check('/customers', 'get', 401, unauth.json);
      const invalid = await s.sandbox('POST', '/customers', { body: { email: 'nope' } });
      check('/customers', 'post', 400, invalid.json);
    });
  });

  describe('/docs/errors', () => {
    let html: string;
    beforeAll(async () => {
      const r = await s.call('test', 'GET', '/docs/errors');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      html = r.text;
    });

    it('is an HTML page served without a key on both addresses', async () => {
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toMatch(/<\/html>\s*$/);
      const live = await s.call('live', 'GET', '/docs/errors');
      expect(live.status).toBe(200);
      expect(live.text).toBe(html);
    });

    it('lists every error code with an element whose id is the code, with its status and type', () => {
      const codes = Object.keys(ERROR_CODES) as Array<keyof typeof ERROR_CODES>;
      expect(codes.length).toBeGreaterThan(10);
      for (const code of codes) {
        const marker = `id="${code}"`;
        const at = html.indexOf(marker);
        expect(at, `no element with id ${code}`).toBeGreaterThan(-1);
        expect(html.indexOf(marker, at + 1), `${code} twice`).toBe(-1);
        // The entry (up to the next id) names the code, its HTTP status and its type.
        const next = html.indexOf(' id="', at + marker.length);
        const entry = html.slice(at, next === -1 ? undefined : next);
        expect(entry).toContain(code);
        expect(entry).toContain(String(ERROR_CODES[code].status));
        expect(entry).toContain(ERROR_CODES[code].type);
      }
    });

    it('has no duplicate ids', () => {
      const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
      expect(ids.length).toBeGreaterThanOrEqual(Object.keys(ERROR_CODES).length);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('the docs_url of a real error lands on its entry', async () => {
      const r = await s.call('test', 'GET', '/customers');
      expect(r.status).toBe(401);
      const url = new URL(r.json.error.docs_url);
      expect(url.pathname).toBe('/docs/errors');
      expect(url.hash).toBe('#invalid_api_key');
      expect(html).toContain(`id="${url.hash.slice(1)}"`);
    });
  });

  describe('/docs', () => {
    it('answers HTML without a key on both addresses', async () => {
      for (const env of ['test', 'live'] as const) {
        const r = await s.call(env, 'GET', '/docs');
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/^text\/html/);
        expect(r.text).toMatch(/^<!doctype html>/i);
        expect(r.text).toMatch(/<h1[ >]/);
      }
    });
  });
});
