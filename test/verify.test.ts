// GET /auth/verify: every field for secret, restricted, publishable and live keys, the status of rotated keys
// and of a suspended merchant's live keys, and that it writes nothing.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import type { DB } from '../src/db/schema.js';
import { rotateKey, SCOPES } from '../src/modules/keys/index.js';
import { hashKey } from '../src/modules/keys/key-format.js';
import { setMerchantStatus } from '../src/modules/merchants/index.js';

type Env = 'test' | 'live';

const FIELDS = [
  'app_id',
  'environment',
  'expires_at',
  'ip_allowed',
  'key_id',
  'key_type',
  'livemode',
  'merchant_id',
  'object',
  'request_id',
  'scopes',
  'status',
];

interface Expected {
  env: Env;
  merchantId: string;
  appId: string;
  keyId: string;
  keyType: 'secret' | 'restricted' | 'publishable';
  scopes: readonly string[];
  ipAllowed: boolean;
  status: 'active' | 'expiring' | 'inactive';
  expiresAt: string | null;
}

function expectVerification(r: ApiResponse, e: Expected): void {
  const where = `${r.status} ${r.text.slice(0, 400)}`;
  expect(r.status, where).toBe(200);
  expect(r.headers.get('content-type'), where).toMatch(/^application\/json/);
  const requestId = r.headers.get('service-request-id');
  expect(requestId, where).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(Object.keys(r.json).sort(), where).toEqual(FIELDS);
  expect(r.json, where).toEqual({
    object: 'auth_verification',
    livemode: e.env === 'live',
    environment: e.env,
    merchant_id: e.merchantId,
    app_id: e.appId,
    key_id: e.keyId,
    key_type: e.keyType,
    scopes: expect.any(Array),
    ip_allowed: e.ipAllowed,
    status: e.status,
    expires_at: e.expiresAt,
    request_id: requestId,
  });
  expect([...r.json.scopes].sort(), where).toEqual([...e.scopes].sort());
  expect(new Set(r.json.scopes).size, where).toBe(r.json.scopes.length);
  expect(r.headers.get('service-environment'), where).toBe(e.env);
  expect(r.headers.get('service-version'), where).toBe('2026-06-01');
  expect(r.headers.get('service-ratelimit-limit'), where).toMatch(/^\d+$/);
  expect(r.headers.get('service-ratelimit-remaining'), where).toMatch(/^\d+$/);
  expect(r.headers.get('service-ratelimit-reset'), where).toMatch(/^\d+$/);
}

/**
 * Every row of every table, but the rate limiter's bucket store, the migration bookkeeping and the leases
 * (the server's background jobs renew theirs every few seconds, whatever the requests do).
 */
async function snapshot(db: Kysely<DB>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await db.introspection.getTables()) {
    if (table.name.startsWith('kysely_') || table.name === 'rate_limit_buckets' || table.name === 'leases') continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    out[table.name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}

describe(`GET /auth/verify (${ENGINE})`, () => {
  let s: TestServer;
  let db: Kysely<DB>;
  let merchantId: string;
  let appId: string;

  async function keyIdOf(plaintext: string): Promise<string> {
    const row = await db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(plaintext)).executeTakeFirstOrThrow();
    return row.id;
  }

  beforeAll(async () => {
    s = await startTestServer();
    db = s.running.database.db;
    merchantId = s.merchant.merchant.id;
    appId = s.merchant.app_id;
  });
  afterAll(async () => s?.stop());

  it('secret sandbox key: every field, all scopes', async () => {
    const r = await s.call('test', 'GET', '/auth/verify', { key: s.merchant.keys.test_secret });
    expectVerification(r, {
      env: 'test',
      merchantId,
      appId,
      keyId: await keyIdOf(s.merchant.keys.test_secret),
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
    expect(r.json.key_id).toMatch(/^key_[0-9A-Za-z]+$/);
    expect(r.json.merchant_id).toMatch(/^mer_[0-9A-Za-z]+$/);
    expect(r.json.app_id).toMatch(/^app_[0-9A-Za-z]+$/);
    expect(r.json.scopes).toContain('customers:write');
    expect(r.json.scopes).toContain('payments:write');
  });

  it('secret live key on the live address: livemode true, environment live', async () => {
    const r = await s.call('live', 'GET', '/auth/verify', { key: s.merchant.keys.live_secret! });
    expectVerification(r, {
      env: 'live',
      merchantId,
      appId,
      keyId: await keyIdOf(s.merchant.keys.live_secret!),
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
  });

  it('restricted key: only its scopes, the link aliases in canonical form', async () => {
    const key = await s.newKey({
      merchantId,
      environment: 'test',
      type: 'restricted',
      scopes: ['customers:read', 'payment:links:read', 'payments:write'],
    });
    expectVerification(await s.call('test', 'GET', '/auth/verify', { key: key.key }), {
      env: 'test',
      merchantId,
      appId,
      keyId: key.id,
      keyType: 'restricted',
      scopes: ['customers:read', 'payment_links:read', 'payments:write'],
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
  });

  it('publishable keys (sandbox and live): no scopes', async () => {
    expectVerification(await s.call('test', 'GET', '/auth/verify', { key: s.merchant.keys.test_publishable }), {
      env: 'test',
      merchantId,
      appId,
      keyId: await keyIdOf(s.merchant.keys.test_publishable),
      keyType: 'publishable',
      scopes: [],
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
    const livePk = await s.newKey({ merchantId, environment: 'live', type: 'publishable' });
    expectVerification(await s.call('live', 'GET', '/auth/verify', { key: livePk.key }), {
      env: 'live',
      merchantId,
      appId,
      keyId: livePk.id,
      keyType: 'publishable',
      scopes: [],
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
  });

  it('live keys with an IP allowlist report whether the caller is allowed', async () => {
    const outside = await s.newKey({
      merchantId,
      environment: 'live',
      type: 'restricted',
      scopes: ['refunds:read'],
      allowedIps: ['10.0.0.0/8'],
    });
    expectVerification(await s.call('live', 'GET', '/auth/verify', { key: outside.key }), {
      env: 'live',
      merchantId,
      appId,
      keyId: outside.id,
      keyType: 'restricted',
      scopes: ['refunds:read'],
      ipAllowed: false,
      status: 'active',
      expiresAt: null,
    });
    const inside = await s.newKey({ merchantId, environment: 'live', type: 'secret', allowedIps: ['127.0.0.0/8'] });
    expectVerification(await s.call('live', 'GET', '/auth/verify', { key: inside.key }), {
      env: 'live',
      merchantId,
      appId,
      keyId: inside.id,
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
  });

  it('another merchant: its own merchant_id, app_id and key_id', async () => {
    const other = await s.newMerchant({ name: 'Second merchant' });
    const r = await s.call('test', 'GET', '/auth/verify', { key: other.keys.test_secret });
    expectVerification(r, {
      env: 'test',
      merchantId: other.merchant.id,
      appId: other.app_id,
      keyId: await keyIdOf(other.keys.test_secret),
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
    expect(r.json.merchant_id).not.toBe(merchantId);
  });

  it('a rotated key reports expiring with its expires_at; its replacement is active', async () => {
    for (const env of ['test', 'live'] as const) {
      const key = await s.newKey({ merchantId, environment: env, type: 'restricted', scopes: ['balances:read', 'reports:read'] });
      const before = Date.now();
      const outcome = await rotateKey(db, s.running.clock, key.id, 2);
      const after = Date.now();
      const expiresMs = Date.parse(outcome.old_key.expires_at);
      expect(expiresMs).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
      expect(expiresMs).toBeLessThanOrEqual(after + 2 * 3_600_000);

      const old = await s.call(env, 'GET', '/auth/verify', { key: key.key });
      expectVerification(old, {
        env,
        merchantId,
        appId,
        keyId: key.id,
        keyType: 'restricted',
        scopes: ['balances:read', 'reports:read'],
        ipAllowed: true,
        status: 'expiring',
        expiresAt: outcome.old_key.expires_at,
      });
      expect(old.json.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      expectVerification(await s.call(env, 'GET', '/auth/verify', { key: outcome.new_key.key }), {
        env,
        merchantId,
        appId,
        keyId: outcome.new_key.id,
        keyType: 'restricted',
        scopes: ['balances:read', 'reports:read'],
        ipAllowed: true,
        status: 'active',
        expiresAt: null,
      });
      expect(outcome.new_key.id).not.toBe(key.id);
    }
    // The default grace period is 24 hours.
    const key = await s.newKey({ merchantId, environment: 'test', type: 'secret' });
    const before = Date.now();
    const outcome = await rotateKey(db, s.running.clock, key.id);
    const r = await s.call('test', 'GET', '/auth/verify', { key: key.key });
    expect(r.json.status).toBe('expiring');
    expect(r.json.expires_at).toBe(outcome.old_key.expires_at);
    expect(Date.parse(r.json.expires_at) - before).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(Date.parse(r.json.expires_at) - before).toBeLessThan(24 * 3_600_000 + 60_000);
  });

  it("a suspended merchant's live keys report inactive; its sandbox keys stay active", async () => {
    const other = await s.newMerchant({ verified: true, name: 'To be suspended' });
    await setMerchantStatus(db, other.merchant.id, 'suspended');
    expectVerification(await s.call('live', 'GET', '/auth/verify', { key: other.keys.live_secret! }), {
      env: 'live',
      merchantId: other.merchant.id,
      appId: other.app_id,
      keyId: await keyIdOf(other.keys.live_secret!),
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'inactive',
      expiresAt: null,
    });
    expectVerification(await s.call('test', 'GET', '/auth/verify', { key: other.keys.test_secret }), {
      env: 'test',
      merchantId: other.merchant.id,
      appId: other.app_id,
      keyId: await keyIdOf(other.keys.test_secret),
      keyType: 'secret',
      scopes: SCOPES,
      ipAllowed: true,
      status: 'active',
      expiresAt: null,
    });
  });

  it('creates, changes and deletes nothing', async () => {
    const restricted = await s.newKey({ merchantId, environment: 'test', type: 'restricted', scopes: ['customers:read'] });
    const rotated = await s.newKey({ merchantId, environment: 'live', type: 'secret', allowedIps: ['10.0.0.0/8'] });
    await rotateKey(db, s.running.clock, rotated.id, 1);
    const calls: Array<[Env, string]> = [
      ['test', s.merchant.keys.test_secret],
      ['test', s.merchant.keys.test_publishable],
      ['test', restricted.key],
      ['live', s.merchant.keys.live_secret!],
      ['live', rotated.key],
    ];
    const before = await snapshot(db);
    expect(before['api_keys']!.length).toBeGreaterThan(0);
    expect(before['merchants']!.length).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) {
      for (const [env, key] of calls) {
        const r = await s.call(env, 'GET', '/auth/verify', { key });
        expect(r.status).toBe(200);
      }
    }
    expect(await snapshot(db)).toEqual(before);
  });
});
