// The error envelope and the metadata of every response: 500s hide their detail and are logged with the
// request id, unknown routes are 404 route_not_found, Service-Version is checked, every answer carries
// Service-Request-Id and Service-Version, and docs_url points at the served /docs/errors entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ERROR_CODES } from '../src/shared/errors.js';
import { expectError, type ErrorExpectations } from './helpers/expect.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';

const LIVE_ORIGIN = 'https://api.cowrie.test';
const SANDBOX_ORIGIN = 'https://sandbox.cowrie.test';
const SECRET_DETAIL = 'db password hunter2 at /srv/cowrie/internal.ts';

type Env = 'test' | 'live';

/** What an error answer of `env` must say beside its code: the environment, and docs_url on that environment's origin. */
const on = (env: Env): ErrorExpectations => ({ environment: env, docsOrigin: env === 'live' ? LIVE_ORIGIN : SANDBOX_ORIGIN });

function expectMetaHeaders(r: ApiResponse): void {
  expect(r.headers.get('service-request-id'), `${r.status} ${r.text.slice(0, 200)}`).toMatch(/^req_[A-Za-z0-9]+$/);
  expect(r.headers.get('service-version')).toBe('2026-06-01');
}

describe(`errors and response metadata (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({
      env: { COWRIE_LIVE_URL: `${LIVE_ORIGIN}/v1`, COWRIE_SANDBOX_URL: `${SANDBOX_ORIGIN}/v1` },
      configureApp: (app) => {
        app.post('/v1/test/boom', { config: { scopes: ['customers:write'] } }, async () => {
          throw new Error(`boom: ${SECRET_DETAIL}`);
        });
        app.get('/v1/test/boom', { config: { scopes: ['customers:read'] } }, async () => {
          // A fault that is not an Error at all, from deep inside.
          await Promise.resolve();
          throw Object.assign(new TypeError(`cannot read ${SECRET_DETAIL}`), { statusCode: 503 });
        });
      },
    });
  });
  afterAll(async () => s?.stop());

  describe('500', () => {
    it('a plain Error thrown in a route is 500 internal_error, api_error, with no detail shown', async () => {
      const r = await s.sandbox('POST', '/v1/test/boom', { body: {} });
      expectError(r, 500, 'internal_error', null, on('test'));
      expect(r.json.error.type).toBe('api_error');
      expect(r.json.error.param).toBeNull();
      expect(r.text).not.toContain('boom');
      expect(r.text).not.toContain('hunter2');
      expect(r.text).not.toContain('internal.ts');
      expect(r.text).not.toMatch(/\bat \S+ \(|stack/i);
      expect(r.headers.get('service-version')).toBe('2026-06-01');
    });

    it('is logged at level 50 with the same reqId and the error stack', async () => {
      const r = await s.sandbox('POST', '/v1/test/boom', { body: {} });
      expect(r.status).toBe(500);
      const reqId = r.headers.get('service-request-id')!;
      const entries = s.logs.filter((l) => l['reqId'] === reqId && l['level'] === 50);
      expect(entries.length).toBeGreaterThanOrEqual(1);
      const err = entries[0]!['err'] as { stack?: string; message?: string } | undefined;
      expect(err?.stack).toContain(`boom: ${SECRET_DETAIL}`);
      expect(err?.stack).toMatch(/\n\s+at /);
    });

    it('an error carrying its own 5xx statusCode is still a bare 500 internal_error, on the live address too', async () => {
      const r = await s.call('live', 'GET', '/v1/test/boom', { key: s.merchant.keys.live_secret! });
      expectError(r, 500, 'internal_error', null, on('live'));
      expect(r.text).not.toContain('hunter2');
      expect(r.text).not.toContain('TypeError');
      const reqId = r.headers.get('service-request-id')!;
      const logged = s.logs.find((l) => l['reqId'] === reqId && l['level'] === 50);
      expect((logged?.['err'] as { stack?: string } | undefined)?.stack).toContain('TypeError: cannot read');
    });
  });

  describe('404 route_not_found', () => {
    it('an unknown path with a valid key', async () => {
      const r = await s.sandbox('GET', '/v1/no-such-thing');
      expectError(r, 404, 'route_not_found', null, on('test'));
      expect(r.json.error.param).toBeNull();
      expect(r.json.error.type).toBe('invalid_request_error');
    });

    it('an unknown path without a key, or with a bad one, is 404 (not 401)', async () => {
      expectError(await s.call('test', 'GET', '/v1/no-such-thing'), 404, 'route_not_found', null, on('test'));
      expectError(await s.call('live', 'GET', '/v1/no-such-thing'), 404, 'route_not_found', null, on('live'));
      expectError(await s.call('test', 'GET', '/v1/no-such-thing', { key: 'cwk_test_sk_nope' }), 404, 'route_not_found', null, on('test'));
      expectError(await s.call('test', 'POST', '/v1/no-such-thing', { body: { a: 1 } }), 404, 'route_not_found', null, on('test'));
    });

    it('an unknown method on a known path', async () => {
      const key = s.merchant.keys.test_secret;
      expectError(await s.call('test', 'DELETE', '/v1/customers', { key }), 404, 'route_not_found', null, on('test'));
      expectError(await s.call('test', 'PUT', '/v1/customers', { key, body: {} }), 404, 'route_not_found', null, on('test'));
      expectError(await s.call('test', 'PATCH', '/v1/auth/verify', { key, body: {} }), 404, 'route_not_found', null, on('test'));
      expectError(await s.call('test', 'DELETE', '/v1/customers/cus_123'), 404, 'route_not_found', null, on('test'));
    });

    it('GET / and GET /v1 are 404 envelopes on both addresses', async () => {
      for (const env of ['test', 'live'] as const) {
        for (const path of ['/', '/v1', '/v1/']) {
          const r = await s.call(env, 'GET', path);
          expectError(r, 404, 'route_not_found', null, on(env));
        }
      }
    });

    it('an unknown id is resource_missing, not route_not_found', async () => {
      const r = await s.sandbox('GET', '/v1/customers/cus_doesnotexist');
      expectError(r, 404, 'resource_missing', 'id', on('test'));
      expect(r.json.error.param).toBe('id');
    });
  });

  describe('Service-Version', () => {
    it('2026-06-01 is accepted', async () => {
      const r = await s.sandbox('GET', '/v1/auth/verify', { headers: { 'service-version': '2026-06-01' } });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('service-version')).toBe('2026-06-01');
      const created = await s.sandbox('POST', '/v1/customers', {
        body: { name: 'Versioned' },
        headers: { 'Service-Version': '2026-06-01' },
      });
      expect(created.status, created.text).toBe(201);
    });

    it('any other value is 400 api_version_invalid, and nothing runs', async () => {
      for (const version of ['2025-01-01', '2026-06-02', 'latest', '2026-6-1', '']) {
        const r = await s.sandbox('GET', '/v1/auth/verify', { headers: { 'service-version': version } });
        expectError(r, 400, 'api_version_invalid', 'Service-Version', on('test'));
        expect(r.headers.get('service-version')).toBe('2026-06-01');
      }
      const reference = `ref-version-${Date.now()}`;
      const r = await s.sandbox('POST', '/v1/customers', { body: { reference }, headers: { 'service-version': '2020-01-01' } });
      expectError(r, 400, 'api_version_invalid', 'Service-Version', on('test'));
      const list = await s.sandbox('GET', '/v1/customers?limit=100');
      expect(list.json.data.map((c: { reference: string | null }) => c.reference)).not.toContain(reference);
      const live = await s.call('live', 'GET', '/v1/auth/verify', {
        key: s.merchant.keys.live_secret!,
        headers: { 'service-version': '1' },
      });
      expectError(live, 400, 'api_version_invalid', 'Service-Version', on('live'));
    });
  });

  describe('every response carries Service-Request-Id and Service-Version', () => {
    it('successes, every kind of error, docs pages and the OpenAPI document', async () => {
      const restricted = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['customers:read'],
      });
      const testKey = s.merchant.keys.test_secret;
      const cases: Array<{
        label: string;
        env: Env;
        res: Promise<ApiResponse>;
        status: number;
        code?: keyof typeof ERROR_CODES;
        param?: string;
      }> = [
        { label: 'verify', env: 'test', res: s.sandbox('GET', '/v1/auth/verify'), status: 200 },
        { label: 'create', env: 'test', res: s.sandbox('POST', '/v1/customers', { body: { name: 'Meta' } }), status: 201 },
        {
          label: 'list live',
          env: 'live',
          res: s.call('live', 'GET', '/v1/customers', { key: s.merchant.keys.live_secret! }),
          status: 200,
        },
        { label: 'HEAD', env: 'test', res: s.sandbox('HEAD', '/v1/customers'), status: 200 },
        {
          label: 'invalid',
          env: 'test',
          res: s.sandbox('POST', '/v1/customers', { body: { email: 'nope' } }),
          status: 400,
          code: 'parameter_invalid',
          param: 'email',
        },
        {
          label: 'invalid json',
          env: 'test',
          res: s.sandbox('POST', '/v1/customers', { raw: '{', headers: { 'content-type': 'application/json' } }),
          status: 400,
          code: 'invalid_json',
        },
        {
          label: 'mismatch',
          env: 'live',
          res: s.call('live', 'GET', '/v1/auth/verify', { key: testKey }),
          status: 400,
          code: 'environment_mismatch',
        },
        { label: 'no key', env: 'test', res: s.call('test', 'GET', '/v1/customers'), status: 401, code: 'invalid_api_key' },
        { label: 'no key live', env: 'live', res: s.call('live', 'GET', '/v1/customers'), status: 401, code: 'invalid_api_key' },
        {
          label: 'bad key',
          env: 'test',
          res: s.call('test', 'GET', '/v1/customers', { key: `cwk_test_sk_${'x'.repeat(40)}` }),
          status: 401,
          code: 'invalid_api_key',
        },
        {
          label: 'scope',
          env: 'test',
          res: s.call('test', 'POST', '/v1/customers', { key: restricted.key, body: {} }),
          status: 403,
          code: 'insufficient_scope',
        },
        { label: 'unknown path', env: 'test', res: s.call('test', 'GET', '/v1/nothing'), status: 404, code: 'route_not_found' },
        {
          label: 'unknown id',
          env: 'test',
          res: s.sandbox('GET', '/v1/customers/cus_x'),
          status: 404,
          code: 'resource_missing',
          param: 'id',
        },
        {
          label: 'too large',
          env: 'test',
          res: s.sandbox('POST', '/v1/customers', {
            raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
            headers: { 'content-type': 'application/json' },
          }),
          status: 413,
          code: 'request_too_large',
        },
        {
          label: 'media type',
          env: 'test',
          res: s.sandbox('POST', '/v1/customers', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
          status: 415,
          code: 'unsupported_media_type',
        },
        { label: '500', env: 'test', res: s.sandbox('POST', '/v1/test/boom', { body: {} }), status: 500, code: 'internal_error' },
        { label: 'docs', env: 'test', res: s.call('test', 'GET', '/docs'), status: 200 },
        { label: 'docs errors', env: 'live', res: s.call('live', 'GET', '/docs/errors'), status: 200 },
        { label: 'openapi', env: 'test', res: s.call('test', 'GET', '/v1/openapi.json'), status: 200 },
      ];
      const ids = new Set<string>();
      for (const c of cases) {
        const r = await c.res;
        expect(r.status, `${c.label}: ${r.text.slice(0, 300)}`).toBe(c.status);
        expectMetaHeaders(r);
        ids.add(r.headers.get('service-request-id')!);
        if (c.code) {
          expectError(r, c.status, c.code, c.param ?? null, on(c.env));
        } else if (r.json !== undefined && c.label !== 'openapi') {
          // Successful JSON answers carry the same id in the body.
          expect(r.json.request_id, c.label).toBe(r.headers.get('service-request-id'));
          expect(r.json.environment, c.label).toBe(c.env);
          expect(r.json.livemode, c.label).toBe(c.env === 'live');
          expect(r.headers.get('service-environment'), c.label).toBe(c.env);
        }
      }
      expect(ids.size).toBe(cases.length);
    });

    it('authenticated answers, errors included, also carry Service-Environment and the rate-limit headers', async () => {
      const answers = [
        await s.sandbox('GET', '/v1/auth/verify'),
        await s.sandbox('GET', '/v1/customers/cus_x'),
        await s.call('live', 'GET', '/v1/customers', { key: s.merchant.keys.live_secret! }),
      ];
      for (const r of answers) {
        expect(r.headers.get('service-environment')).toBe(r.json.environment);
        expect(r.headers.get('service-ratelimit-limit')).toMatch(/^\d+$/);
        expect(r.headers.get('service-ratelimit-remaining')).toMatch(/^\d+$/);
        expect(r.headers.get('service-ratelimit-reset')).toMatch(/^\d+$/);
      }
    });
  });

  describe('docs_url', () => {
    it('is <origin of the environment>/docs/errors#<code>, and that page has the anchor', async () => {
      const seen: Array<{ env: Env; url: string; code: string }> = [];
      const collect = (env: Env, r: ApiResponse) => seen.push({ env, url: r.json.error.docs_url, code: r.json.error.code });
      collect('test', await s.call('test', 'GET', '/v1/customers'));
      collect('live', await s.call('live', 'GET', '/v1/customers'));
      collect('test', await s.sandbox('GET', '/v1/customers/cus_x'));
      collect('test', await s.sandbox('POST', '/v1/test/boom', { body: {} }));
      collect('live', await s.call('live', 'GET', '/v1/nope'));
      for (const { env, url, code } of seen) {
        expect(url).toBe(`${env === 'live' ? LIVE_ORIGIN : SANDBOX_ORIGIN}/docs/errors#${code}`);
        // The page behind that URL is served by this server at the same path on that address.
        const u = new URL(url);
        const page = await s.call(env, 'GET', u.pathname);
        expect(page.status).toBe(200);
        expect(page.text).toContain(`id="${u.hash.slice(1)}"`);
      }
    });
  });
});
