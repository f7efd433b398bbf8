// The operator's command line, run in-process through runCli against a fresh database of the engine under
// test. Every effect is checked in the database, and every printed key is checked to authenticate through the
// same code the API uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { authenticateKey, ipAllowed, SCOPES } from '../src/modules/keys/index.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { type CreatedJson, type MerchantJson, type KeyJson, type RotateJson, HOUR, sha256, at, cliRunner } from './helpers/cli.js';

describe(`cowrie command line (${ENGINE})`, () => {
  let database: TestDatabase;
  let check: Database;
  /** Every key the CLI printed, to prove none is stored in plaintext. */
  const printedKeys: string[] = [];

  const { cli, ok, fails } = cliRunner(() => database, printedKeys);

  const createMerchant = (name: string, verified = false) =>
    ok<CreatedJson>('merchants', 'create', '--name', name, ...(verified ? ['--verified'] : []), '--json');

  const keyRow = (id: string) => check.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const merchantRow = (id: string) => check.db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const keyCount = async (merchantId: string) =>
    (await check.db.selectFrom('api_keys').select('id').where('merchant_id', '=', merchantId).execute()).length;

  beforeAll(async () => {
    database = await createTestDatabase();
    const migrated = await cli('migrate', '--json');
    expect(migrated.code).toBe(0);
    check = openDatabase(database.url);
  });

  afterAll(async () => {
    await check?.close();
    await database?.drop();
  });

  describe('merchants create', () => {
    it('prints exactly the merchant and its sandbox keys, and stores only their hashes', async () => {
      const before = Date.now();
      const r = await cli('merchants', 'create', '--name', 'Acme', '--json');
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      const created = JSON.parse(r.out) as CreatedJson;
      expect(created).toStrictEqual({
        merchant: { id: expect.stringMatching(/^mer_[0-9A-Za-z]+$/), name: 'Acme', kyb_status: 'pending' },
        keys: {
          test_secret: expect.stringMatching(/^cwk_test_sk_[0-9A-Za-z]{32,}$/),
          test_publishable: expect.stringMatching(/^cwk_test_pk_[0-9A-Za-z]{32,}$/),
        },
      });
      expect('live_secret' in created.keys).toBe(false);

      const m = await merchantRow(created.merchant.id);
      expect(m).toMatchObject({ name: 'Acme', kyb_status: 'pending', status: 'active', limit_per_payment: null });
      expect(Number(m.created_at)).toBeGreaterThanOrEqual(before - 1000);
      const apps = await check.db.selectFrom('apps').selectAll().where('merchant_id', '=', created.merchant.id).execute();
      expect(apps).toHaveLength(1);
      expect(Number(apps[0]!.is_default)).toBe(1);

      const rows = await check.db.selectFrom('api_keys').selectAll().where('merchant_id', '=', created.merchant.id).execute();
      expect(rows.map((k) => [k.environment, k.type]).sort()).toEqual([
        ['test', 'publishable'],
        ['test', 'secret'],
      ]);
      expect(rows.map((k) => k.key_hash).sort()).toEqual([sha256(created.keys.test_secret), sha256(created.keys.test_publishable)].sort());
      for (const k of rows) expect(k.app_id).toBe(apps[0]!.id);

      const secret = await authenticateKey(check.db, systemClock, created.keys.test_secret);
      expect(secret).toMatchObject({ merchantId: created.merchant.id, environment: 'test', type: 'secret', expiresAt: null });
      expect([...secret!.scopes].sort()).toEqual([...SCOPES].sort());
      const publishable = await authenticateKey(check.db, systemClock, created.keys.test_publishable);
      expect(publishable).toMatchObject({ merchantId: created.merchant.id, environment: 'test', type: 'publishable', scopes: [] });
    });

    it('with --verified also prints a live secret key that authenticates in live', async () => {
      const created = await createMerchant('Verified Co', true);
      expect(created.merchant.kyb_status).toBe('verified');
      expect(Object.keys(created.keys).sort()).toEqual(['live_secret', 'test_publishable', 'test_secret']);
      expect(created.keys.live_secret).toMatch(/^cwk_live_sk_[0-9A-Za-z]{32,}$/);
      expect((await merchantRow(created.merchant.id)).kyb_status).toBe('verified');
      expect(await keyCount(created.merchant.id)).toBe(3);
      const live = await authenticateKey(check.db, systemClock, created.keys.live_secret!);
      expect(live).toMatchObject({ merchantId: created.merchant.id, environment: 'live', type: 'secret' });
    });

    it('each merchant gets its own id and keys', async () => {
      const a = await createMerchant('Twin');
      const b = await createMerchant('Twin');
      expect(a.merchant.id).not.toBe(b.merchant.id);
      expect(a.keys.test_secret).not.toBe(b.keys.test_secret);
    });

    it('prints readable text without --json', async () => {
      const r = await cli('merchants', 'create', '--name', 'Plain');
      expect(r.code).toBe(0);
      expect(() => JSON.parse(r.out)).toThrow();
      expect(r.out).toMatch(/mer_[0-9A-Za-z]+/);
      expect(r.out).toMatch(/cwk_test_sk_[0-9A-Za-z]{32,}/);
      expect(r.out).toMatch(/cwk_test_pk_[0-9A-Za-z]{32,}/);
      expect(r.out).not.toContain('cwk_live_');
    });

    it('refuses a blank name', async () => {
      const error = await fails('merchants', 'create', '--name', '   ', '--json');
      expect(error.code).toBe('parameter_invalid');
      const n = await check.db.selectFrom('merchants').select('id').where('name', '=', '   ').execute();
      expect(n).toHaveLength(0);
    });

    it('a missing --name is a usage error: exit code 2', async () => {
      const before = (await check.db.selectFrom('merchants').select('id').execute()).length;
      const r = await cli('merchants', 'create', '--json');
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain('--name');
      expect((await check.db.selectFrom('merchants').select('id').execute()).length).toBe(before);
    });

    it('an unknown command or a bad choice is a usage error too', async () => {
      expect((await cli('frobnicate', '--json')).code).toBe(2);
      const m = await createMerchant('Choices');
      const r = await cli('keys', 'create', '--merchant', m.merchant.id, '--env', 'staging', '--json');
      expect(r.code).toBe(2);
      expect(await keyCount(m.merchant.id)).toBe(2);
    });
  });

  describe('merchants verify', () => {
    it('marks the merchant verified, after which live keys can be created', async () => {
      const m = await createMerchant('To verify');
      expect((await fails('keys', 'create', '--merchant', m.merchant.id, '--env', 'live', '--json')).code).toBe('parameter_invalid');
      const out = await ok<MerchantJson>('merchants', 'verify', m.merchant.id, '--json');
      expect(out.merchant).toMatchObject({
        id: m.merchant.id,
        object: 'merchant',
        name: 'To verify',
        kyb_status: 'verified',
        status: 'active',
      });
      expect((await merchantRow(m.merchant.id)).kyb_status).toBe('verified');
      const key = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'live', '--json');
      expect(key.key).toMatch(/^cwk_live_sk_/);
      expect(await authenticateKey(check.db, systemClock, key.key)).toMatchObject({ environment: 'live', merchantId: m.merchant.id });
    });

    it('an unknown merchant: exit 1', async () => {
      expect((await fails('merchants', 'verify', 'mer_doesnotexist', '--json')).code).toBe('resource_missing');
    });
  });

  describe('merchants limits', () => {
    it('sets the three caps as decimal strings', async () => {
      const m = await createMerchant('Limited');
      const out = await ok<MerchantJson>(
        'merchants',
        'limits',
        m.merchant.id,
        '--per-payment',
        '100',
        '--daily',
        '1000',
        '--monthly',
        '10000',
        '--json',
      );
      expect(out.merchant.id).toBe(m.merchant.id);
      expect(out.merchant.limits).toStrictEqual({ per_payment: '100', daily: '1000', monthly: '10000' });
      expect(await merchantRow(m.merchant.id)).toMatchObject({ limit_per_payment: '100', limit_daily: '1000', limit_monthly: '10000' });

      // One cap at a time; 'none' removes one; the others stay.
      const partial = await ok<MerchantJson>('merchants', 'limits', m.merchant.id, '--daily', '2500.50', '--monthly', 'none', '--json');
      expect(partial.merchant.limits).toStrictEqual({ per_payment: '100', daily: '2500.5', monthly: null });
      expect(await merchantRow(m.merchant.id)).toMatchObject({ limit_per_payment: '100', limit_daily: '2500.5', limit_monthly: null });
    });

    it.each([
      ['--per-payment', '-5'],
      ['--per-payment', '0'],
      ['--daily', 'abc'],
      ['--monthly', '1.234'],
      ['--daily', '1e3'],
      ['--monthly', ''],
    ])('refuses %s %j with a JSON error and changes nothing', async (flag, value) => {
      const m = await createMerchant('Bad limits');
      await ok('merchants', 'limits', m.merchant.id, '--per-payment', '7', '--daily', '8', '--monthly', '9', '--json');
      const error = await fails('merchants', 'limits', m.merchant.id, flag, value, '--json');
      expect(error.code).toBe('parameter_invalid');
      expect(await merchantRow(m.merchant.id)).toMatchObject({ limit_per_payment: '7', limit_daily: '8', limit_monthly: '9' });
    });

    it('refuses a command without any cap, and an unknown merchant', async () => {
      const m = await createMerchant('No caps');
      await fails('merchants', 'limits', m.merchant.id, '--json');
      expect((await fails('merchants', 'limits', 'mer_doesnotexist', '--daily', '5', '--json')).code).toBe('resource_missing');
    });
  });

  describe('keys create', () => {
    it('creates a restricted sandbox key with the payment:links alias normalised', async () => {
      const m = await createMerchant('Restricted');
      const before = Date.now();
      const key = await ok<KeyJson>(
        'keys',
        'create',
        '--merchant',
        m.merchant.id,
        '--env',
        'test',
        '--type',
        'restricted',
        '--scopes',
        'customers:read,payment:links:read',
        '--json',
      );
      expect(key).toMatchObject({
        id: expect.stringMatching(/^key_[0-9A-Za-z]+$/),
        key: expect.stringMatching(/^cwk_test_rk_[0-9A-Za-z]{32,}$/),
        merchant_id: m.merchant.id,
        environment: 'test',
        type: 'restricted',
        allowed_ips: [],
        expires_at: null,
      });
      expect([...key.scopes].sort()).toEqual(['customers:read', 'payment_links:read']);
      expect(Date.parse(key.created_at)).toBeGreaterThanOrEqual(before - 1000);

      const row = await keyRow(key.id);
      expect(row).toMatchObject({ merchant_id: m.merchant.id, environment: 'test', type: 'restricted', key_hash: sha256(key.key) });
      expect((JSON.parse(row.scopes) as string[]).sort()).toEqual(['customers:read', 'payment_links:read']);

      const auth = await authenticateKey(check.db, systemClock, key.key);
      expect(auth).toMatchObject({ keyId: key.id, merchantId: m.merchant.id, environment: 'test', type: 'restricted' });
      expect([...auth!.scopes].sort()).toEqual(['customers:read', 'payment_links:read']);
    });

    it('creates secret and publishable sandbox keys', async () => {
      const m = await createMerchant('More keys');
      const secret = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'test', '--type', 'secret', '--json');
      expect(secret.key).toMatch(/^cwk_test_sk_[0-9A-Za-z]{32,}$/);
      expect((await authenticateKey(check.db, systemClock, secret.key))?.type).toBe('secret');
      const publishable = await ok<KeyJson>(
        'keys',
        'create',
        '--merchant',
        m.merchant.id,
        '--env',
        'test',
        '--type',
        'publishable',
        '--json',
      );
      expect(publishable.key).toMatch(/^cwk_test_pk_[0-9A-Za-z]{32,}$/);
      expect(publishable.scopes).toEqual([]);
      expect(await authenticateKey(check.db, systemClock, publishable.key)).toMatchObject({ type: 'publishable', scopes: [] });
      expect(await keyCount(m.merchant.id)).toBe(4);
    });

    it('creates a live key with an IP allowlist for a verified merchant', async () => {
      const m = await createMerchant('Allowlisted', true);
      const key = await ok<KeyJson>(
        'keys',
        'create',
        '--merchant',
        m.merchant.id,
        '--env',
        'live',
        '--allow-ip',
        '10.0.0.0/8,192.168.1.5',
        '--json',
      );
      expect(key.key).toMatch(/^cwk_live_sk_[0-9A-Za-z]{32,}$/);
      expect(key).toMatchObject({ environment: 'live', type: 'secret', allowed_ips: ['10.0.0.0/8', '192.168.1.5'] });
      expect(JSON.parse((await keyRow(key.id)).allowed_ips)).toEqual(['10.0.0.0/8', '192.168.1.5']);
      const auth = await authenticateKey(check.db, systemClock, key.key);
      expect(auth).toMatchObject({ environment: 'live', allowedIps: ['10.0.0.0/8', '192.168.1.5'] });
      expect(ipAllowed('10.20.30.40', auth!.allowedIps)).toBe(true);
      expect(ipAllowed('::ffff:10.1.2.3', auth!.allowedIps)).toBe(true);
      expect(ipAllowed('192.168.1.5', auth!.allowedIps)).toBe(true);
      expect(ipAllowed('192.168.1.6', auth!.allowedIps)).toBe(false);
      expect(ipAllowed('11.0.0.1', auth!.allowedIps)).toBe(false);
    });

    it.each<[string, string[], boolean]>([
      ['a restricted key without scopes', ['--env', 'test', '--type', 'restricted'], false],
      ['an unknown scope', ['--env', 'test', '--type', 'restricted', '--scopes', 'customers:read,payments:delete'], false],
      ['a live key for an unverified merchant', ['--env', 'live'], false],
      ['an allowlist on a test key', ['--env', 'test', '--allow-ip', '10.0.0.0/8'], true],
      ['a bad CIDR range', ['--env', 'live', '--allow-ip', '10.0.0.0/33'], true],
      ['an entry that is no address', ['--env', 'live', '--allow-ip', '10.0.0.1,not-an-ip'], true],
    ])('refuses %s with a JSON error and creates nothing', async (_what, args, verified) => {
      const m = await createMerchant('Refused', verified);
      const count = await keyCount(m.merchant.id);
      const error = await fails('keys', 'create', '--merchant', m.merchant.id, ...args, '--json');
      expect(error.code).toBe('parameter_invalid');
      expect(await keyCount(m.merchant.id)).toBe(count);
    });

    it('an unknown merchant: exit 1', async () => {
      expect((await fails('keys', 'create', '--merchant', 'mer_doesnotexist', '--env', 'test', '--json')).code).toBe('resource_missing');
    });
  });

  describe('keys revoke', () => {
    it('revokes at once: the key stops authenticating', async () => {
      const m = await createMerchant('Revoking');
      const key = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'test', '--json');
      expect(await authenticateKey(check.db, systemClock, key.key)).not.toBeNull();
      const before = Date.now();
      const out = await ok<{ id: string; object: string; revoked: boolean; revoked_at: string }>('keys', 'revoke', key.id, '--json');
      expect(out).toStrictEqual({ id: key.id, object: 'api_key', revoked: true, revoked_at: expect.any(String) });
      expect(Date.parse(out.revoked_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(out.revoked_at)).toBeLessThanOrEqual(Date.now() + 1000);
      expect(Number((await keyRow(key.id)).revoked_at)).toBe(Date.parse(out.revoked_at));
      expect(await authenticateKey(check.db, systemClock, key.key)).toBeNull();
      // The merchant's other keys are untouched.
      expect(await authenticateKey(check.db, systemClock, m.keys.test_secret)).not.toBeNull();
    });

    it('an unknown key: exit 1', async () => {
      expect((await fails('keys', 'revoke', 'key_doesnotexist', '--json')).code).toBe('resource_missing');
    });
  });

  describe('keys rotate', () => {
    it('issues a replacement with the same powers; the old key works for the grace period only', async () => {
      const m = await createMerchant('Rotating');
      const old = await ok<KeyJson>(
        'keys',
        'create',
        '--merchant',
        m.merchant.id,
        '--env',
        'test',
        '--type',
        'restricted',
        '--scopes',
        'payment:links:write,customers:read',
        '--json',
      );
      const before = Date.now();
      const r = await ok<RotateJson>('keys', 'rotate', old.id, '--expires-in-hours', '2', '--json');
      const after = Date.now();

      expect(r.old_key.id).toBe(old.id);
      expect(r.new_key.id).toMatch(/^key_[0-9A-Za-z]+$/);
      expect(r.new_key.id).not.toBe(old.id);
      expect(r.new_key.key).toMatch(/^cwk_test_rk_[0-9A-Za-z]{32,}$/);
      expect(r.new_key.key).not.toBe(old.key);
      expect(r.new_key).toMatchObject({ merchant_id: m.merchant.id, app_id: old.app_id, environment: 'test', type: 'restricted' });
      expect([...r.new_key.scopes].sort()).toEqual(['customers:read', 'payment_links:write']);

      const expiresAt = Date.parse(r.old_key.expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 2 * HOUR - 1000);
      expect(expiresAt).toBeLessThanOrEqual(after + 2 * HOUR + 1000);
      const oldRow = await keyRow(old.id);
      expect(Number(oldRow.expires_at)).toBe(expiresAt);
      expect(oldRow.replaced_by).toBe(r.new_key.id);
      expect(oldRow.revoked_at).toBeNull();
      expect((await keyRow(r.new_key.id)).key_hash).toBe(sha256(r.new_key.key));

      // Both work now; after the grace period only the new one does.
      expect(await authenticateKey(check.db, systemClock, old.key)).toMatchObject({ keyId: old.id, expiresAt });
      expect(await authenticateKey(check.db, at(expiresAt - 1000), old.key)).not.toBeNull();
      expect(await authenticateKey(check.db, at(expiresAt + 1000), old.key)).toBeNull();
      const fresh = await authenticateKey(check.db, at(expiresAt + 1000), r.new_key.key);
      expect(fresh).toMatchObject({ keyId: r.new_key.id, type: 'restricted', expiresAt: null });
      expect([...fresh!.scopes].sort()).toEqual(['customers:read', 'payment_links:write']);
    });

    it('keeps a live key’s allowlist, defaults to 24 hours, and 0 ends the old key at once', async () => {
      const m = await createMerchant('Rotating live', true);
      const old = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'live', '--allow-ip', '10.0.0.0/8', '--json');
      const before = Date.now();
      const r = await ok<RotateJson>('keys', 'rotate', old.id, '--json');
      expect(r.new_key.key).toMatch(/^cwk_live_sk_/);
      expect(r.new_key.allowed_ips).toEqual(['10.0.0.0/8']);
      expect(Date.parse(r.old_key.expires_at)).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000);
      expect(Date.parse(r.old_key.expires_at)).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000);

      const again = await ok<RotateJson>('keys', 'rotate', r.new_key.id, '--expires-in-hours', '0', '--json');
      expect(await authenticateKey(check.db, systemClock, r.new_key.key)).toBeNull();
      expect(await authenticateKey(check.db, systemClock, again.new_key.key)).toMatchObject({
        environment: 'live',
        allowedIps: ['10.0.0.0/8'],
      });
    });

    it('rotating a key again never extends its grace period, and prints the expiry it really has', async () => {
      const m = await createMerchant('Rotating twice');
      const old = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'test', '--json');
      const first = await ok<RotateJson>('keys', 'rotate', old.id, '--expires-in-hours', '2', '--json');
      const second = await ok<RotateJson>('keys', 'rotate', old.id, '--expires-in-hours', '24', '--json');
      const stored = Number((await keyRow(old.id)).expires_at);
      expect(stored).toBe(Date.parse(first.old_key.expires_at));
      expect(Date.parse(second.old_key.expires_at)).toBe(stored);
      expect(await authenticateKey(check.db, at(stored + 1000), old.key)).toBeNull();
    });

    it('refuses an unknown key, a revoked key and a bad grace period', async () => {
      expect((await fails('keys', 'rotate', 'key_doesnotexist', '--expires-in-hours', '2', '--json')).code).toBe('resource_missing');
      const m = await createMerchant('Rotate refusals');
      const key = await ok<KeyJson>('keys', 'create', '--merchant', m.merchant.id, '--env', 'test', '--json');
      for (const hours of ['abc', '-1', '100000']) {
        expect((await fails('keys', 'rotate', key.id, '--expires-in-hours', hours, '--json')).code).toBe('parameter_invalid');
      }
      expect((await keyRow(key.id)).expires_at).toBeNull();
      await ok('keys', 'revoke', key.id, '--json');
      const count = await keyCount(m.merchant.id);
      expect((await fails('keys', 'rotate', key.id, '--json')).code).toBe('parameter_invalid');
      expect(await keyCount(m.merchant.id)).toBe(count);
    });
  });

  it('never stores a printed key in plaintext, only its SHA-256 hash', async () => {
    expect(printedKeys.length).toBeGreaterThan(20);
    const rows = await check.db.selectFrom('api_keys').selectAll().execute();
    const hashes = new Set(rows.map((r) => r.key_hash));
    const missing = [...new Set(printedKeys)].filter((key) => !hashes.has(sha256(key)));
    expect(missing, 'printed keys without a stored hash').toEqual([]);
    const leaks: string[] = [];
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = String(value);
        for (const key of printedKeys) {
          // Neither the key nor any long part of it (the hint keeps only a short prefix and the last four).
          if (text.includes(key) || text.includes(key.slice(12, 40))) leaks.push(`api_keys.${column} of ${row.id}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});
