// Environments: every record belongs to one merchant and one environment and is never visible from the other;
// the address a request arrives on chooses its environment, by listener or, when both share one port, by the
// Host header.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface HostResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** A request to 127.0.0.1:port carrying the given Host header (fetch forbids setting Host). */
async function viaHost(
  port: number,
  host: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HostResponse> {
  const headers: Record<string, string> = { host, ...opts.headers };
  if (opts.key) headers['authorization'] = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await undiciRequest(`http://127.0.0.1:${port}${path.startsWith('/docs') ? path : `/v1${path}`}`, { method, headers, body });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

describe(`environments (${ENGINE})`, () => {
  let s: TestServer;
  let other: CreatedMerchant;

  beforeAll(async () => {
    s = await startTestServer();
    other = await s.newMerchant({ name: 'Other merchant', verified: true });
  });
  afterAll(async () => s?.stop());

  async function countWhere(merchantId: string, environment?: 'test' | 'live'): Promise<number> {
    let q = s.running.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('merchant_id', '=', merchantId);
    if (environment) q = q.where('environment', '=', environment);
    const row = await q.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  const ids = (r: ApiResponse) => r.json.data.map((c: { id: string }) => c.id) as string[];

  describe('isolation (one listener per environment)', () => {
    let sandboxCus: string;
    let liveCus: string;

    beforeAll(async () => {
      const a = await s.sandbox('POST', '/customers', { body: { name: 'Sandbox only', email: 'sandbox@example.com' } });
      const b = await s.call('live', 'POST', '/customers', { key: s.merchant.keys.live_secret!, body: { name: 'Live only' } });
      expect(a.status, a.text).toBe(201);
      expect(b.status, b.text).toBe(201);
      sandboxCus = a.json.id;
      liveCus = b.json.id;
    });

    it('records land in the environment of the key and address', async () => {
      const rows = await s.running.database.db
        .selectFrom('customers')
        .select(['id', 'environment', 'merchant_id'])
        .where('id', 'in', [sandboxCus, liveCus])
        .execute();
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId[sandboxCus]).toEqual({ id: sandboxCus, environment: 'test', merchant_id: s.merchant.merchant.id });
      expect(byId[liveCus]).toEqual({ id: liveCus, environment: 'live', merchant_id: s.merchant.merchant.id });
    });

    it('a sandbox customer is invisible to the live key of the same merchant (list and retrieve)', async () => {
      const list = await s.call('live', 'GET', '/customers?limit=100', { key: s.merchant.keys.live_secret! });
      expect(list.status).toBe(200);
      expect(list.json.environment).toBe('live');
      expect(ids(list)).not.toContain(sandboxCus);
      expect(ids(list)).toContain(liveCus);
      expect(list.json.data).toHaveLength(await countWhere(s.merchant.merchant.id, 'live'));
      for (const c of list.json.data) expect(c.livemode).toBe(true);
      const r = await s.call('live', 'GET', `/customers/${sandboxCus}`, { key: s.merchant.keys.live_secret! });
      expectError(r, 404, 'resource_missing', 'id');
      expect(r.json.environment).toBe('live');
    });

    it('a live customer is invisible to the sandbox key of the same merchant (list and retrieve)', async () => {
      const list = await s.sandbox('GET', '/customers?limit=100');
      expect(list.status).toBe(200);
      expect(list.json.environment).toBe('test');
      expect(ids(list)).not.toContain(liveCus);
      expect(ids(list)).toContain(sandboxCus);
      expect(list.json.data).toHaveLength(await countWhere(s.merchant.merchant.id, 'test'));
      for (const c of list.json.data) expect(c.livemode).toBe(false);
      expectError(await s.sandbox('GET', `/customers/${liveCus}`), 404, 'resource_missing', 'id');
    });

    it('another merchant sees none of them, in either environment', async () => {
      expect(await countWhere(other.merchant.id)).toBe(0);
      for (const [env, key] of [
        ['test', other.keys.test_secret],
        ['live', other.keys.live_secret!],
      ] as const) {
        const list = await s.call(env, 'GET', '/customers?limit=100', { key });
        expect(list.status, list.text).toBe(200);
        expect(list.json.data).toEqual([]);
        expect(list.json.has_more).toBe(false);
        for (const id of [sandboxCus, liveCus]) {
          expectError(await s.call(env, 'GET', `/customers/${id}`, { key }), 404, 'resource_missing', 'id');
        }
      }
      // and the first merchant does not see the other's records either
      const theirs = await s.call('test', 'POST', '/customers', { key: other.keys.test_secret, body: { name: 'Theirs' } });
      expect(theirs.status).toBe(201);
      expect(ids(await s.sandbox('GET', '/customers?limit=100'))).not.toContain(theirs.json.id);
      expectError(await s.sandbox('GET', `/customers/${theirs.json.id}`), 404, 'resource_missing', 'id');
    });

    it("a key on the other environment's address: 400 environment_mismatch, nothing written", async () => {
      const before = await countWhere(s.merchant.merchant.id);
      const a = await s.call('live', 'POST', '/customers', { key: s.merchant.keys.test_secret, body: { name: 'wrong door' } });
      expectError(a, 400, 'environment_mismatch', null);
      expect(a.json.error.type).toBe('invalid_request_error');
      expect(a.json.environment).toBe('live');
      expect(a.json.livemode).toBe(true);
      const b = await s.call('test', 'POST', '/customers', { key: s.merchant.keys.live_secret!, body: { name: 'wrong door' } });
      expectError(b, 400, 'environment_mismatch', null);
      expect(b.json.environment).toBe('test');
      expect(b.json.livemode).toBe(false);
      expect(await countWhere(s.merchant.merchant.id)).toBe(before);
      // reads too
      expectError(
        await s.call('live', 'GET', `/customers/${sandboxCus}`, { key: s.merchant.keys.test_secret }),
        400,
        'environment_mismatch',
        null,
      );
      expectError(await s.call('test', 'GET', '/customers', { key: s.merchant.keys.live_secret! }), 400, 'environment_mismatch', null);
    });

    it('with one listener per environment, the Host header does not change the environment', async () => {
      const livePort = s.running.listeners.portOf('live');
      const testPort = s.running.listeners.portOf('test');
      const onLive = await viaHost(livePort, `localhost:${testPort}`, 'GET', '/auth/verify', { key: s.merchant.keys.live_secret! });
      expect(onLive.status, onLive.text).toBe(200);
      expect(onLive.json.environment).toBe('live');
      const onTest = await viaHost(testPort, `localhost:${livePort}`, 'GET', '/auth/verify', { key: s.merchant.keys.live_secret! });
      expectError(onTest, 400, 'environment_mismatch', null);
      expect(onTest.json.environment).toBe('test');
    });

    it('unauthenticated errors report the environment of the address', async () => {
      const live = await s.call('live', 'GET', '/customers');
      expectError(live, 401, 'invalid_api_key', null);
      expect(live.json.environment).toBe('live');
      expect(live.json.livemode).toBe(true);
      const sandbox = await s.call('test', 'GET', '/nowhere');
      expectError(sandbox, 404, 'route_not_found', null);
      expect(sandbox.json.environment).toBe('test');
      expect(sandbox.json.livemode).toBe(false);
    });
  });

  describe('shared address: the Host header chooses', () => {
    let shared: TestServer;
    let p: number;
    let liveHost: string;
    let sandboxHost: string;

    beforeAll(async () => {
      p = await freePort();
      liveHost = `live.test:${p}`;
      sandboxHost = `sandbox.test:${p}`;
      shared = await startTestServer({
        env: {
          COWRIE_LIVE_PORT: String(p),
          COWRIE_SANDBOX_PORT: String(p),
          COWRIE_LIVE_URL: `http://live.test:${p}/v1`,
          COWRIE_SANDBOX_URL: `http://sandbox.test:${p}/v1`,
        },
      });
    });
    afterAll(async () => shared?.stop());

    async function sharedCount(environment: 'test' | 'live'): Promise<number> {
      const row = await shared.running.database.db
        .selectFrom('customers')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('environment', '=', environment)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    it('listens on the one port for both environments', () => {
      expect(shared.running.listeners.portOf('live')).toBe(p);
      expect(shared.running.listeners.portOf('test')).toBe(p);
      expect(shared.running.listeners.listeners.every((l) => l.environment === 'shared' && l.port === p)).toBe(true);
    });

    it('a live key works on the live host: environment live', async () => {
      const v = await viaHost(p, liveHost, 'GET', '/auth/verify', { key: shared.merchant.keys.live_secret! });
      expect(v.status, v.text).toBe(200);
      expect(v.json.environment).toBe('live');
      expect(v.json.livemode).toBe(true);
      expect(v.headers['service-environment']).toBe('live');
      expect(v.json.request_id).toBe(v.headers['service-request-id']);

      const before = await sharedCount('live');
      const c = await viaHost(p, liveHost, 'POST', '/customers', {
        key: shared.merchant.keys.live_secret!,
        body: { name: 'Live via host' },
      });
      expect(c.status, c.text).toBe(201);
      expect(c.json.livemode).toBe(true);
      expect(c.json.environment).toBe('live');
      expect(c.headers['service-environment']).toBe('live');
      expect(await sharedCount('live')).toBe(before + 1);
    });

    it('a sandbox key works on the sandbox host: environment test', async () => {
      const before = await sharedCount('test');
      const c = await viaHost(p, sandboxHost, 'POST', '/customers', {
        key: shared.merchant.keys.test_secret,
        body: { name: 'Sandbox via host' },
      });
      expect(c.status, c.text).toBe(201);
      expect(c.json.livemode).toBe(false);
      expect(c.json.environment).toBe('test');
      expect(c.headers['service-environment']).toBe('test');
      expect(await sharedCount('test')).toBe(before + 1);
    });

    it('a sandbox key on the live host: 400 environment_mismatch, live metadata, docs_url on the live origin', async () => {
      const before = await sharedCount('test');
      const r = await viaHost(p, liveHost, 'POST', '/customers', { key: shared.merchant.keys.test_secret, body: { name: 'x' } });
      expectError(r, 400, 'environment_mismatch', null);
      expect(r.json.error.type).toBe('invalid_request_error');
      expect(r.json.environment).toBe('live');
      expect(r.json.livemode).toBe(true);
      expect(r.json.error.docs_url).toBe(`http://live.test:${p}/docs/errors#environment_mismatch`);
      expect(await sharedCount('test')).toBe(before);
    });

    it('a live key on the sandbox host: 400 environment_mismatch, sandbox metadata, docs_url on the sandbox origin', async () => {
      const before = await sharedCount('live');
      const r = await viaHost(p, sandboxHost, 'POST', '/customers', { key: shared.merchant.keys.live_secret!, body: { name: 'x' } });
      expectError(r, 400, 'environment_mismatch', null);
      expect(r.json.environment).toBe('test');
      expect(r.json.livemode).toBe(false);
      expect(r.json.error.docs_url).toBe(`http://sandbox.test:${p}/docs/errors#environment_mismatch`);
      expect(await sharedCount('live')).toBe(before);
    });

    it('docs_url of other errors uses the origin of the host too', async () => {
      const live = await viaHost(p, liveHost, 'GET', '/customers/cus_missing', { key: shared.merchant.keys.live_secret! });
      expectError(live, 404, 'resource_missing', 'id');
      expect(live.json.error.docs_url).toBe(`http://live.test:${p}/docs/errors#resource_missing`);
      const sandbox = await viaHost(p, sandboxHost, 'GET', '/customers?limit=0', { key: shared.merchant.keys.test_secret });
      expectError(sandbox, 400, 'parameter_invalid', 'limit');
      expect(sandbox.json.error.docs_url).toBe(`http://sandbox.test:${p}/docs/errors#parameter_invalid`);
      const noKey = await viaHost(p, liveHost, 'GET', '/customers');
      expectError(noKey, 401, 'invalid_api_key', null);
      expect(noKey.json.environment).toBe('live');
      expect(noKey.json.error.docs_url).toBe(`http://live.test:${p}/docs/errors#invalid_api_key`);
    });

    it('the docs_url target is served', async () => {
      const page = await viaHost(p, liveHost, 'GET', '/docs/errors');
      expect(page.status).toBe(200);
      expect(page.text).toContain('id="environment_mismatch"');
    });

    it('the Host match ignores case', async () => {
      const r = await viaHost(p, `LIVE.Test:${p}`, 'GET', '/auth/verify', { key: shared.merchant.keys.live_secret! });
      expect(r.status, r.text).toBe(200);
      expect(r.json.environment).toBe('live');
    });

    it('records stay in their environment across the shared address', async () => {
      const live = await viaHost(p, liveHost, 'POST', '/customers', { key: shared.merchant.keys.live_secret!, body: { name: 'L' } });
      const sandbox = await viaHost(p, sandboxHost, 'POST', '/customers', { key: shared.merchant.keys.test_secret, body: { name: 'S' } });
      expect(live.status).toBe(201);
      expect(sandbox.status).toBe(201);
      expectError(
        await viaHost(p, sandboxHost, 'GET', `/customers/${live.json.id}`, { key: shared.merchant.keys.test_secret }),
        404,
        'resource_missing',
        'id',
      );
      expectError(
        await viaHost(p, liveHost, 'GET', `/customers/${sandbox.json.id}`, { key: shared.merchant.keys.live_secret! }),
        404,
        'resource_missing',
        'id',
      );
      const liveList = await viaHost(p, liveHost, 'GET', '/customers?limit=100', { key: shared.merchant.keys.live_secret! });
      expect(liveList.status).toBe(200);
      expect(liveList.json.data).toHaveLength(await sharedCount('live'));
      expect(liveList.json.data.every((c: { livemode: boolean }) => c.livemode)).toBe(true);
      const sandboxList = await viaHost(p, sandboxHost, 'GET', '/customers?limit=100', { key: shared.merchant.keys.test_secret });
      expect(sandboxList.json.data).toHaveLength(await sharedCount('test'));
      expect(sandboxList.json.data.every((c: { livemode: boolean }) => !c.livemode)).toBe(true);
    });

    it('an unknown Host is never live: a live key is refused there', async () => {
      for (const host of [
        `127.0.0.1:${p}`,
        `evil.test:${p}`,
        'live.test',
        `live.test:${p + 1 > 65535 ? p - 1 : p + 1}`,
        `live.test.evil:${p}`,
      ]) {
        const before = await sharedCount('live');
        const r = await viaHost(p, host, 'POST', '/customers', { key: shared.merchant.keys.live_secret!, body: { name: 'x' } });
        expectError(r, 400, 'environment_mismatch', null);
        expect(r.json.environment).toBe('test');
        expect(r.json.livemode).toBe(false);
        expect(await sharedCount('live')).toBe(before);
      }
    });

    it('X-Forwarded-Host is not believed without trusted proxies', async () => {
      const r = await viaHost(p, sandboxHost, 'GET', '/auth/verify', {
        key: shared.merchant.keys.live_secret!,
        headers: { 'x-forwarded-host': liveHost },
      });
      expectError(r, 400, 'environment_mismatch', null);
      expect(r.json.environment).toBe('test');
    });

    it('refuses a configuration where one port serves both environments under the same host', () => {
      expect(() =>
        loadConfig({
          COWRIE_LIVE_PORT: '5000',
          COWRIE_SANDBOX_PORT: '5000',
          COWRIE_LIVE_URL: 'http://api.test:5000/v1',
          COWRIE_SANDBOX_URL: 'http://API.test:5000/v1',
        }),
      ).toThrow(ConfigError);
      expect(() => loadConfig({ COWRIE_LIVE_PORT: '5000', COWRIE_SANDBOX_PORT: '5000' })).toThrow(ConfigError);
    });
  });
});
