// The shared authentication suite: every authenticated route of the generated OpenAPI document is put through
// the same checks (missing, malformed, unknown, revoked and expired keys; the environment of the address;
// scopes; publishable keys; IP allowlists; suspended merchants), plus the metadata every error and every
// authenticated response carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { revokeKey, rotateKey, SCOPES, type IssuedKey, type Scope } from '../src/modules/keys/index.js';
import { setMerchantStatus, type CreatedMerchant } from '../src/modules/merchants/index.js';
import { randomBase62 } from '../src/shared/ids.js';
import {
  type Env,
  type Route,
  VERIFY,
  DUMMY_ID,
  ENVS,
  SPEC_SCOPES,
  expectAuthenticatedHeaders,
  expectPassedAuth,
  unknownKey,
} from './helpers/auth.js';
import { expectError, seenErrorCodes, SERVICE_VERSION } from './helpers/expect.js';

describe(`authentication on every authenticated route (${ENGINE})`, () => {
  let s: TestServer;
  const routes: Route[] = [];
  let m: CreatedMerchant;
  const limits = { test: 100000, live: 100000 };
  const restrictedCache = new Map<string, IssuedKey>();

  const hit = (env: Env, route: Route, key: string | null, headers: Record<string, string> = {}) =>
    s.call(env, route.method, route.path.replace(/\{[^}]+\}/g, DUMMY_ID), {
      key,
      headers,
      body: route.method === 'POST' ? {} : undefined,
    });

  const restricted = async (env: Env, scopes: string[]): Promise<IssuedKey> => {
    const cacheKey = `${env}:${scopes.join(',')}`;
    let k = restrictedCache.get(cacheKey);
    if (!k) {
      k = await s.newKey({ merchantId: m.merchant.id, environment: env, type: 'restricted', scopes });
      restrictedCache.set(cacheKey, k);
    }
    return k;
  };

  beforeAll(async () => {
    s = await startTestServer({
      // A test-only route accepting two scopes, hidden from the OpenAPI document, for the any-of rule.
      configureApp: (app) => {
        app.get(
          '/v1/test-only/any-of',
          { config: { scopes: ['payment_links:read', 'payments:read'] satisfies Scope[] }, schema: { hide: true } },
          async () => ({ ok: true }),
        );
      },
    });
    m = s.merchant;
    const doc = await s.call('test', 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    for (const [path, item] of Object.entries<Record<string, any>>(doc.json.paths ?? {})) {
      for (const [method, op] of Object.entries<Record<string, any>>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const security = op['security'] as Array<Record<string, string[]>> | undefined;
        if (!security || security.length === 0) continue;
        const scopes = (op['x-scopes'] as string[] | undefined) ?? security[0]?.['bearerAuth'] ?? [];
        routes.push({ method: method.toUpperCase(), path, scopes: [...scopes], label: `${method.toUpperCase()} ${path}` });
      }
    }
  });
  afterAll(async () => s?.stop());

  it('finds the authenticated routes in the OpenAPI document, with their documented scopes', () => {
    const labels = routes.map((r) => r.label);
    expect(labels).toContain(VERIFY);
    expect(labels).toContain('GET /customers');
    expect(labels).toContain('POST /customers');
    expect(labels).toContain('GET /customers/{id}');
    expect(labels).not.toContain('GET /openapi.json');
    expect(labels.some((l) => l.includes('test-only'))).toBe(false);
    for (const r of routes) {
      // Only /auth/verify takes any key; every other authenticated route names its scopes.
      if (r.label === VERIFY) expect(r.scopes, r.label).toEqual([]);
      else expect(r.scopes.length, `${r.label} declares no scope`).toBeGreaterThan(0);
      for (const scope of r.scopes) expect(SCOPES as readonly string[], `${r.label}: ${scope}`).toContain(scope);
      const specKey = `${r.method} ${r.path.replace(/\{[^}]+\}/g, '{id}')}`;
      const expected = SPEC_SCOPES[specKey];
      if (expected) expect([...r.scopes].sort(), specKey).toEqual([...expected].sort());
    }
  });

  it('no Authorization header: 401 invalid_api_key on both addresses', async () => {
    for (const route of routes) {
      for (const env of ENVS) {
        expectError(await hit(env, route, null), 401, 'invalid_api_key', null, {
          environment: env,
          label: `${route.label} ${env}`,
          version: SERVICE_VERSION,
        });
      }
      if (route.method === 'GET') {
        const head = await s.call('test', 'HEAD', route.path.replace(/\{[^}]+\}/g, DUMMY_ID));
        expect(head.status, `HEAD ${route.path}`).toBe(401);
        expect(head.headers.get('service-request-id'), `HEAD ${route.path}`).toMatch(/^req_/);
      }
    }
  });

  it('malformed Authorization header: 401 invalid_api_key', async () => {
    const valid = m.keys.test_secret;
    const malformed = [
      'Basic x',
      `Basic ${Buffer.from(`${valid}:`).toString('base64')}`,
      'Bearer',
      `Bearer ${valid} extra`,
      `Token ${valid}`,
      valid,
      'Bearer not-a-key',
      `Bearer ${valid.slice(0, 20)}`,
      `Bearer ${valid}!`,
      `Bearer cwk_test_xk_${randomBase62(40)}`,
      `Bearer sk_test_${randomBase62(40)}`,
    ];
    for (const route of routes) {
      for (const header of malformed) {
        const r = await hit('test', route, null, { authorization: header });
        expectError(r, 401, 'invalid_api_key', null, {
          environment: 'test',
          label: `${route.label} [${header}]`,
          version: SERVICE_VERSION,
        });
      }
    }
    // The scheme is case-insensitive (RFC 9110 section 11.1).
    const lower = await s.call('test', 'GET', '/auth/verify', { headers: { authorization: `bearer ${valid}` } });
    expect(lower.status).toBe(200);
  });

  it('unknown well-formed key: 401 invalid_api_key', async () => {
    for (const route of routes) {
      for (const tag of ['sk', 'rk', 'pk'] as const) {
        expectError(await hit('test', route, unknownKey('test', tag)), 401, 'invalid_api_key', null, {
          environment: 'test',
          label: `${route.label} test ${tag}`,
          version: SERVICE_VERSION,
        });
      }
      expectError(await hit('live', route, unknownKey('live')), 401, 'invalid_api_key', null, {
        environment: 'live',
        label: `${route.label} live`,
        version: SERVICE_VERSION,
      });
    }
  });

  it('revoked key: 401 invalid_api_key, in both environments', async () => {
    const keys: Record<Env, IssuedKey> = {
      test: await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'secret' }),
      live: await s.newKey({ merchantId: m.merchant.id, environment: 'live', type: 'secret' }),
    };
    for (const env of ENVS) {
      // Working before the revocation, so the 401 below is the revocation's doing.
      expect((await s.call(env, 'GET', '/auth/verify', { key: keys[env].key })).status).toBe(200);
      await revokeKey(s.running.database.db, s.running.clock, keys[env].id);
    }
    for (const route of routes) {
      for (const env of ENVS) {
        expectError(await hit(env, route, keys[env].key), 401, 'invalid_api_key', null, {
          environment: env,
          label: `${route.label} ${env}`,
          version: SERVICE_VERSION,
        });
      }
    }
    const restrictedKey = await s.newKey({
      merchantId: m.merchant.id,
      environment: 'test',
      type: 'restricted',
      scopes: ['customers:read'],
    });
    await revokeKey(s.running.database.db, s.running.clock, restrictedKey.id);
    expectError(await s.call('test', 'GET', '/customers', { key: restrictedKey.key }), 401, 'invalid_api_key', null, {
      environment: 'test',
      label: 'revoked restricted key',
      version: SERVICE_VERSION,
    });
  });

  it('expired key (rotated with 0 hours): the old key gets 401 everywhere, the new key works', async () => {
    const db = s.running.database.db;
    const clock = s.running.clock;
    const rotated: Record<Env, { old: string; fresh: string }> = { test: { old: '', fresh: '' }, live: { old: '', fresh: '' } };
    for (const env of ENVS) {
      const key = await s.newKey({ merchantId: m.merchant.id, environment: env, type: 'secret' });
      const outcome = await rotateKey(db, clock, key.id, 0);
      rotated[env] = { old: key.key, fresh: outcome.new_key.key };
      expect(outcome.new_key.key).not.toBe(key.key);
    }
    for (const route of routes) {
      for (const env of ENVS) {
        expectError(await hit(env, route, rotated[env].old), 401, 'invalid_api_key', null, {
          environment: env,
          label: `${route.label} ${env} old`,
          version: SERVICE_VERSION,
        });
        const fresh = await hit(env, route, rotated[env].fresh);
        expectPassedAuth(fresh, `${route.label} ${env} new`);
        expectAuthenticatedHeaders(fresh, env, limits[env], `${route.label} ${env} new`);
      }
    }
  });

  it('a key sent to the other environment: 400 environment_mismatch', async () => {
    const liveKeys = [m.keys.live_secret!, unknownKey('live'), unknownKey('live', 'pk')];
    const testKeys = [m.keys.test_secret, m.keys.test_publishable, unknownKey('test', 'rk')];
    for (const route of routes) {
      for (const key of testKeys) {
        expectError(await hit('live', route, key), 400, 'environment_mismatch', null, {
          environment: 'live',
          label: `${route.label} test key on live`,
          version: SERVICE_VERSION,
        });
      }
      for (const key of liveKeys) {
        expectError(await hit('test', route, key), 400, 'environment_mismatch', null, {
          environment: 'test',
          label: `${route.label} live key on sandbox`,
          version: SERVICE_VERSION,
        });
      }
    }
  });

  it('restricted key without an accepted scope: 403 insufficient_scope naming the accepted scopes', async () => {
    for (const route of routes) {
      if (route.scopes.length === 0) continue;
      const unrelated = SCOPES.filter((x) => !route.scopes.includes(x));
      // Two unrelated scopes: holding several of the wrong scopes is no better than one.
      for (const env of ENVS) {
        const key = await restricted(env, unrelated.slice(0, 2));
        const r = await hit(env, route, key.key);
        expectError(r, 403, 'insufficient_scope', null, { environment: env, label: `${route.label} ${env}`, version: SERVICE_VERSION });
        for (const scope of route.scopes) expect(r.json.error.message, route.label).toContain(scope);
        expectAuthenticatedHeaders(r, env, limits[env], route.label);
      }
    }
    // /auth/verify takes any valid key whatever its scopes.
    const key = await restricted('test', ['balances:read']);
    expect((await s.call('test', 'GET', '/auth/verify', { key: key.key })).status).toBe(200);
  });

  it('any one of the accepted scopes suffices, on every route', async () => {
    for (const route of routes) {
      for (const scope of route.scopes) {
        const key = await restricted('test', [scope]);
        const r = await hit('test', route, key.key);
        expectPassedAuth(r, `${route.label} with only ${scope}`);
        expectAuthenticatedHeaders(r, 'test', limits.test, route.label);
      }
      // A secret key holds every scope.
      expectPassedAuth(await hit('test', route, m.keys.test_secret), `${route.label} secret`);
      expectPassedAuth(await hit('live', route, m.keys.live_secret!), `${route.label} live secret`);
    }
  });

  it('any-of rule and the payment:links aliases on a route that accepts two scopes', async () => {
    const path = '/v1/test-only/any-of';
    for (const scopes of [['payments:read'], ['payment_links:read'], ['payment:links:read'], ['customers:read', 'payments:read']]) {
      const key = await restricted('test', scopes);
      const r = await s.call('test', 'GET', path, { key: key.key });
      expect(r.status, scopes.join(',')).toBe(200);
    }
    for (const scopes of [['payment_links:write'], ['payment:links:write', 'customers:read'], ['payments:write']]) {
      const key = await restricted('test', scopes);
      const r = await s.call('test', 'GET', path, { key: key.key });
      expectError(r, 403, 'insufficient_scope', null, { environment: 'test', label: scopes.join(','), version: SERVICE_VERSION });
      expect(r.json.error.message).toContain('payment_links:read');
      expect(r.json.error.message).toContain('payments:read');
    }
  });

  it('read scopes do not grant writes: customers:read can list and retrieve but not create', async () => {
    const key = await restricted('test', ['customers:read']);
    const list = await s.call('test', 'GET', '/customers', { key: key.key });
    expect(list.status).toBe(200);
    expect(list.json.object).toBe('list');
    expectAuthenticatedHeaders(list, 'test', limits.test, 'GET /customers');
    const one = await s.call('test', 'GET', `/customers/cus_${randomBase62(24)}`, { key: key.key });
    expectError(one, 404, 'resource_missing', 'id', { environment: 'test', label: 'GET /customers/{id}', version: SERVICE_VERSION });
    const create = await s.call('test', 'POST', '/customers', { key: key.key, body: { name: 'Nope' } });
    expectError(create, 403, 'insufficient_scope', null, { environment: 'test', label: 'POST /customers', version: SERVICE_VERSION });
    expect(create.json.error.message).toContain('customers:write');
    // Nothing was created by the refused request.
    const after = await s.call('test', 'GET', '/customers', { key: key.key });
    expect(after.json.data.filter((c: { name: string | null }) => c.name === 'Nope')).toEqual([]);

    const writer = await restricted('test', ['customers:write']);
    const created = await s.call('test', 'POST', '/customers', { key: writer.key, body: { name: 'Yes' } });
    expect(created.status).toBe(201);
    expectError(await s.call('test', 'GET', '/customers', { key: writer.key }), 403, 'insufficient_scope', null, {
      environment: 'test',
      label: 'writer lists',
      version: SERVICE_VERSION,
    });
  });

  it('publishable keys: 403 publishable_key_not_allowed on every route but GET /auth/verify', async () => {
    const livePk = await s.newKey({ merchantId: m.merchant.id, environment: 'live', type: 'publishable' });
    const pks: Record<Env, string> = { test: m.keys.test_publishable, live: livePk.key };
    for (const route of routes) {
      for (const env of ENVS) {
        const r = await hit(env, route, pks[env]);
        if (route.label === VERIFY) {
          expect(r.status, `${route.label} ${env}`).toBe(200);
          expect(r.json.key_type).toBe('publishable');
          expect(r.json.scopes).toEqual([]);
        } else {
          expectError(r, 403, 'publishable_key_not_allowed', null, {
            environment: env,
            label: `${route.label} ${env}`,
            version: SERVICE_VERSION,
          });
        }
        expectAuthenticatedHeaders(r, env, limits[env], `${route.label} ${env}`);
      }
    }
  });

  it('live key with an IP allowlist used from elsewhere: 403 ip_not_allowed; /auth/verify answers ip_allowed false', async () => {
    const outside = await s.newKey({ merchantId: m.merchant.id, environment: 'live', type: 'secret', allowedIps: ['10.0.0.0/8'] });
    const outsideRestricted = await s.newKey({
      merchantId: m.merchant.id,
      environment: 'live',
      type: 'restricted',
      scopes: ['customers:read'],
      allowedIps: ['192.168.1.7', '2001:db8::/32'],
    });
    for (const route of routes) {
      for (const key of [outside, outsideRestricted]) {
        const r = await hit('live', route, key.key);
        if (route.label === VERIFY) {
          expect(r.status, route.label).toBe(200);
          expect(r.json.ip_allowed).toBe(false);
          expect(r.json.key_id).toBe(key.id);
        } else {
          // The allowlist is checked before the scope: the address is refused whatever the key holds.
          expectError(r, 403, 'ip_not_allowed', null, {
            environment: 'live',
            label: `${route.label} ${key.allowed_ips.join(',')}`,
            version: SERVICE_VERSION,
          });
        }
        expectAuthenticatedHeaders(r, 'live', limits.live, route.label);
      }
    }
  });

  it('live key with an allowlist that covers the caller (127.0.0.0/8, 127.0.0.1, ::ffff:127.0.0.1) is allowed', async () => {
    for (const allowedIps of [
      ['127.0.0.0/8'],
      ['127.0.0.1'],
      ['::ffff:127.0.0.1'],
      ['10.0.0.0/8', '127.0.0.1/32'],
      ['::ffff:127.0.0.0/104'],
    ]) {
      const key = await s.newKey({ merchantId: m.merchant.id, environment: 'live', type: 'secret', allowedIps });
      const verify = await s.call('live', 'GET', '/auth/verify', { key: key.key });
      expect(verify.status, allowedIps.join(',')).toBe(200);
      expect(verify.json.ip_allowed, allowedIps.join(',')).toBe(true);
      const list = await s.call('live', 'GET', '/customers', { key: key.key });
      expect(list.status, allowedIps.join(',')).toBe(200);
      for (const route of routes) expectPassedAuth(await hit('live', route, key.key), `${route.label} ${allowedIps.join(',')}`);
    }
    // ::1 is not the caller's address: an IPv6 loopback entry does not cover 127.0.0.1.
    const v6 = await s.newKey({ merchantId: m.merchant.id, environment: 'live', type: 'secret', allowedIps: ['::1'] });
    expectError(await s.call('live', 'GET', '/customers', { key: v6.key }), 403, 'ip_not_allowed', null, {
      environment: 'live',
      label: '::1',
      version: SERVICE_VERSION,
    });
  });

  it('live keys of a suspended merchant: 403 account_inactive; its sandbox keys keep working', async () => {
    const other = await s.newMerchant({ verified: true, name: 'Suspended merchant' });
    const liveKey = other.keys.live_secret!;
    const liveRestricted = await s.newKey({
      merchantId: other.merchant.id,
      environment: 'live',
      type: 'restricted',
      scopes: ['customers:read'],
    });
    expect((await s.call('live', 'GET', '/customers', { key: liveKey })).status).toBe(200);
    await setMerchantStatus(s.running.database.db, other.merchant.id, 'suspended');
    for (const route of routes) {
      for (const key of [liveKey, liveRestricted.key]) {
        const r = await hit('live', route, key);
        if (route.label === VERIFY) {
          expect(r.status).toBe(200);
          expect(r.json.status).toBe('inactive');
        } else {
          expectError(r, 403, 'account_inactive', null, { environment: 'live', label: route.label, version: SERVICE_VERSION });
        }
        expectAuthenticatedHeaders(r, 'live', limits.live, route.label);
      }
    }
    const sandbox = await s.call('test', 'GET', '/customers', { key: other.keys.test_secret });
    expect(sandbox.status).toBe(200);
    // Other merchants' live keys are unaffected.
    expect((await s.call('live', 'GET', '/customers', { key: m.keys.live_secret! })).status).toBe(200);
    await setMerchantStatus(s.running.database.db, other.merchant.id, 'active');
    expect((await s.call('live', 'GET', '/customers', { key: liveKey })).status).toBe(200);
  });

  it('authenticated successes carry Service-Environment, the rate-limit headers and the request id', async () => {
    for (const env of ENVS) {
      const key = env === 'test' ? m.keys.test_secret : m.keys.live_secret!;
      for (const path of ['/auth/verify', '/customers']) {
        const r = await s.call(env, 'GET', path, { key });
        expect(r.status).toBe(200);
        expectAuthenticatedHeaders(r, env, limits[env], `${env} ${path}`);
        expect(r.json.request_id).toBe(r.headers.get('service-request-id'));
        expect(r.json.environment).toBe(env);
        expect(r.json.livemode).toBe(env === 'live');
      }
    }
    // Two requests never share an id.
    const a = await s.sandbox('GET', '/auth/verify');
    const b = await s.sandbox('GET', '/auth/verify');
    expect(a.headers.get('service-request-id')).not.toBe(b.headers.get('service-request-id'));
  });

  it('every error code answered above has its entry on /docs/errors', async () => {
    expect(seenErrorCodes.size).toBeGreaterThanOrEqual(6);
    for (const env of ENVS) {
      const page = await s.call(env, 'GET', '/docs/errors');
      expect(page.status).toBe(200);
      for (const code of seenErrorCodes) expect(page.text, code).toContain(`id="${code}"`);
    }
  });
});
