// Customers: create, retrieve, field validation, and that every refused request writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { expectError, expectMeta } from './helpers/expect.js';

const CUSTOMER_KEYS = ['id', 'object', 'email', 'phone', 'name', 'reference', 'metadata', 'created_at', 'livemode'];
const META_KEYS = ['request_id', 'environment', 'livemode'];
/** Keys of a single-customer response body: the record plus request_id and environment (livemode is in both). */
const RESPONSE_KEYS = [...new Set([...CUSTOMER_KEYS, ...META_KEYS])].sort();

describe(`customers (${ENGINE})`, () => {
  let s: TestServer;
  let other: CreatedMerchant;

  beforeAll(async () => {
    s = await startTestServer();
    other = await s.newMerchant({ name: 'Other merchant', verified: true });
  });
  afterAll(async () => s?.stop());

  async function customerCount(): Promise<number> {
    const row = await s.running.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function dbRow(id: string) {
    return s.running.database.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** POSTs a body that must be refused with 400 parameter_invalid naming `param`, writing nothing. */
  async function expectInvalid(body: unknown, param: string, code = 'parameter_invalid'): Promise<ApiResponse> {
    const before = await customerCount();
    const r = await s.sandbox('POST', '/customers', { body });
    expectError(r, 400, code, param);
    expect(r.json.environment).toBe('test');
    expect(await customerCount()).toBe(before);
    return r;
  }

  describe('POST /customers', () => {
    it('creates a customer with every field and answers 201 with the record', async () => {
      const before = await customerCount();
      const t0 = Date.now();
      const input = {
        email: 'jane.doe@example.com',
        phone: '+254712345678',
        name: 'Jane Doe',
        reference: 'crm-000123',
        metadata: { tier: 'gold', visits: 12, vip: true, note: null },
      };
      const r = await s.sandbox('POST', '/customers', { body: input });
      const t1 = Date.now();
      expect(r.status, r.text).toBe(201);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.headers.get('service-environment')).toBe('test');
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      expect(r.json.id).toMatch(/^cus_[0-9A-Za-z]{24}$/);
      expect(r.json.object).toBe('customer');
      expect(r.json.email).toBe(input.email);
      expect(r.json.phone).toBe(input.phone);
      expect(r.json.name).toBe(input.name);
      expect(r.json.reference).toBe(input.reference);
      expect(r.json.metadata).toEqual(input.metadata);
      expect(r.json.livemode).toBe(false);
      expect(r.json.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const created = Date.parse(r.json.created_at);
      expect(created).toBeGreaterThanOrEqual(t0 - 5);
      expect(created).toBeLessThanOrEqual(t1 + 5);
      expectMeta(r, 'test');

      expect(await customerCount()).toBe(before + 1);
      const row = await dbRow(r.json.id);
      expect(row).toBeDefined();
      expect(row!.merchant_id).toBe(s.merchant.merchant.id);
      expect(row!.environment).toBe('test');
      expect(row!.email).toBe(input.email);
      expect(row!.phone).toBe(input.phone);
      expect(row!.name).toBe(input.name);
      expect(row!.reference).toBe(input.reference);
      expect(JSON.parse(row!.metadata)).toEqual(input.metadata);
      expect(Number(row!.created_at)).toBe(created);
    });

    it('gives every customer its own id', async () => {
      const a = await s.sandbox('POST', '/customers', { body: { name: 'A' } });
      const b = await s.sandbox('POST', '/customers', { body: { name: 'A' } });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(a.json.id).not.toBe(b.json.id);
      expect(a.json.request_id).not.toBe(b.json.request_id);
    });

    it('creates a customer from an empty JSON object: nulls and {} metadata', async () => {
      const before = await customerCount();
      const r = await s.sandbox('POST', '/customers', { body: {} });
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({
        object: 'customer',
        email: null,
        phone: null,
        name: null,
        reference: null,
        metadata: {},
        livemode: false,
      });
      expect(r.json.id).toMatch(/^cus_/);
      expectMeta(r, 'test');
      expect(await customerCount()).toBe(before + 1);
      const row = await dbRow(r.json.id);
      expect(row).toMatchObject({ email: null, phone: null, name: null, reference: null, metadata: '{}', environment: 'test' });
    });

    it('creates a customer from a request with no body at all', async () => {
      const before = await customerCount();
      const r = await s.sandbox('POST', '/customers');
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({ object: 'customer', email: null, phone: null, name: null, reference: null, metadata: {} });
      expect(await customerCount()).toBe(before + 1);
    });

    it('creates a customer from an empty body sent as application/json', async () => {
      const before = await customerCount();
      const r = await s.sandbox('POST', '/customers', { raw: '', headers: { 'content-type': 'application/json' } });
      expect(r.status, r.text).toBe(201);
      expect(r.json).toMatchObject({ object: 'customer', email: null, metadata: {} });
      expect(await customerCount()).toBe(before + 1);
    });

    it('accepts application/json with a charset parameter', async () => {
      const r = await s.sandbox('POST', '/customers', {
        raw: JSON.stringify({ name: 'Charset' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json.name).toBe('Charset');
    });

    it('creates live customers with a live key: livemode true', async () => {
      const r = await s.call('live', 'POST', '/customers', { key: s.merchant.keys.live_secret!, body: { name: 'Live one' } });
      expect(r.status, r.text).toBe(201);
      expect(r.json.livemode).toBe(true);
      expectMeta(r, 'live');
      expect(r.headers.get('service-environment')).toBe('live');
      expect((await dbRow(r.json.id))?.environment).toBe('live');
    });

    it('accepts boundary lengths: name and reference of 256 characters, email of 254', async () => {
      const local = 'a'.repeat(64);
      const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      const email = `${local}@${domain}`;
      expect(email.length).toBe(254);
      const r = await s.sandbox('POST', '/customers', {
        body: { name: 'n'.repeat(256), reference: 'r'.repeat(256), email },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json.name).toBe('n'.repeat(256));
      expect(r.json.reference).toBe('r'.repeat(256));
      expect(r.json.email).toBe(email);
    });

    it('accepts metadata of exactly 50 keys of 40 characters and values of 250 characters (within 16 KiB)', async () => {
      const metadata: Record<string, string> = {};
      for (let i = 0; i < 50; i++) metadata[`${String(i).padStart(2, '0')}${'k'.repeat(38)}`] = 'v'.repeat(250);
      const r = await s.sandbox('POST', '/customers', { body: { metadata } });
      expect(r.status, r.text).toBe(201);
      expect(r.json.metadata).toEqual(metadata);
      const got = await s.sandbox('GET', `/customers/${r.json.id}`);
      expect(got.json.metadata).toEqual(metadata);
    });

    it.each(['+254712345678', '0712345678', '+1 (415) 555-0100', '020 7946 0958', '+44.20.7946.0958'])(
      'accepts the phone number %j',
      async (phone) => {
        const r = await s.sandbox('POST', '/customers', { body: { phone } });
        expect(r.status, r.text).toBe(201);
        expect(r.json.phone).toBe(phone);
      },
    );
  });

  describe('GET /customers/{id}', () => {
    it('retrieves the same record, with fresh response metadata', async () => {
      const input = { email: 'ret@example.com', phone: '+15550001111', name: 'Ret', reference: 'ref-1', metadata: { a: '1' } };
      const created = await s.sandbox('POST', '/customers', { body: input });
      expect(created.status).toBe(201);
      const r = await s.sandbox('GET', `/customers/${created.json.id}`);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('service-environment')).toBe('test');
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      const strip = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'request_id'));
      expect(strip(r.json)).toEqual(strip(created.json));
      expectMeta(r, 'test');
      expect(r.json.request_id).not.toBe(created.json.request_id);
    });

    it('answers 404 resource_missing with param id for an unknown id', async () => {
      for (const id of ['cus_000000000000000000000000', 'cus_nope', 'pi_123', 'x']) {
        const r = await s.sandbox('GET', `/customers/${id}`);
        expectError(r, 404, 'resource_missing', 'id');
        expect(r.json.environment).toBe('test');
        expect(r.json.livemode).toBe(false);
      }
    });

    it('answers 404 for a SQL-looking or percent-encoded id, and for an id of 255 characters', async () => {
      for (const id of ["cus_x' OR '1'='1", 'cus_%_', 'cus_*', `cus_${'a'.repeat(251)}`]) {
        const r = await s.sandbox('GET', `/customers/${encodeURIComponent(id)}`);
        expectError(r, 404, 'resource_missing', 'id');
      }
    });

    it('answers 400 parameter_invalid param id for an id over 255 characters or with a NUL', async () => {
      expectError(await s.sandbox('GET', `/customers/cus_${'a'.repeat(252)}`), 400, 'parameter_invalid', 'id');
      expectError(await s.sandbox('GET', '/customers/cus_%00'), 400, 'parameter_invalid', 'id');
    });

    it('answers a malformed path in the error envelope with the request id headers', async () => {
      for (const path of ['/customers/%zz', '/customers/cus_%ED%A0%80', '/customers/%', `/customers/cus_${'a'.repeat(1200)}`]) {
        const r = await s.sandbox('GET', path);
        expectError(r, 400, 'parameter_invalid', null);
        expect(r.headers.get('service-version')).toBe('2026-06-01');
        expect(r.json.environment).toBe('test');
      }
      const live = await s.call('live', 'GET', '/customers/%zz', { key: s.merchant.keys.live_secret! });
      expectError(live, 400, 'parameter_invalid', null);
      expect(live.json.environment).toBe('live');
      expect(live.json.livemode).toBe(true);
    });

    it("answers 404 for another merchant's customer, in both directions", async () => {
      const mine = await s.sandbox('POST', '/customers', { body: { name: 'Mine' } });
      const theirs = await s.call('test', 'POST', '/customers', { key: other.keys.test_secret, body: { name: 'Theirs' } });
      expect(mine.status).toBe(201);
      expect(theirs.status).toBe(201);
      expectError(
        await s.call('test', 'GET', `/customers/${mine.json.id}`, { key: other.keys.test_secret }),
        404,
        'resource_missing',
        'id',
      );
      expectError(await s.sandbox('GET', `/customers/${theirs.json.id}`), 404, 'resource_missing', 'id');
      // and live: another merchant's live customer is invisible to our live key
      const theirsLive = await s.call('live', 'POST', '/customers', { key: other.keys.live_secret!, body: { name: 'Theirs live' } });
      expect(theirsLive.status).toBe(201);
      expectError(
        await s.call('live', 'GET', `/customers/${theirsLive.json.id}`, { key: s.merchant.keys.live_secret! }),
        404,
        'resource_missing',
        'id',
      );
    });

    it("answers 404 for the same merchant's customer of the other environment", async () => {
      const sandboxOne = await s.sandbox('POST', '/customers', { body: { name: 'Sandbox' } });
      const liveOne = await s.call('live', 'POST', '/customers', { key: s.merchant.keys.live_secret!, body: { name: 'Live' } });
      expect(sandboxOne.status).toBe(201);
      expect(liveOne.status).toBe(201);
      const a = await s.call('live', 'GET', `/customers/${sandboxOne.json.id}`, { key: s.merchant.keys.live_secret! });
      expectError(a, 404, 'resource_missing', 'id');
      expect(a.json.environment).toBe('live');
      expect(a.json.livemode).toBe(true);
      const b = await s.sandbox('GET', `/customers/${liveOne.json.id}`);
      expectError(b, 404, 'resource_missing', 'id');
      expect(b.json.environment).toBe('test');
      // each is still found in its own environment
      expect((await s.sandbox('GET', `/customers/${sandboxOne.json.id}`)).status).toBe(200);
      expect((await s.call('live', 'GET', `/customers/${liveOne.json.id}`, { key: s.merchant.keys.live_secret! })).status).toBe(200);
    });
  });

  describe('access', () => {
    it('requires a key: 401 invalid_api_key, nothing written', async () => {
      const before = await customerCount();
      const r = await s.call('test', 'POST', '/customers', { body: { name: 'No key' } });
      expectError(r, 401, 'invalid_api_key', null);
      const bad = await s.call('test', 'POST', '/customers', { key: 'cwk_test_sk_' + '0'.repeat(40), body: { name: 'Bad key' } });
      expectError(bad, 401, 'invalid_api_key', null);
      expect(await customerCount()).toBe(before);
    });

    it('needs customers:write to create and customers:read to read: 403 insufficient_scope otherwise', async () => {
      const reader = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['customers:read'],
      });
      const writer = await s.newKey({
        merchantId: s.merchant.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['customers:write'],
      });
      const before = await customerCount();
      expectError(await s.call('test', 'POST', '/customers', { key: reader.key, body: { name: 'x' } }), 403, 'insufficient_scope', null);
      expect(await customerCount()).toBe(before);
      const created = await s.call('test', 'POST', '/customers', { key: writer.key, body: { name: 'by writer' } });
      expect(created.status, created.text).toBe(201);
      expect(await customerCount()).toBe(before + 1);
      expectError(await s.call('test', 'GET', `/customers/${created.json.id}`, { key: writer.key }), 403, 'insufficient_scope', null);
      expectError(await s.call('test', 'GET', '/customers', { key: writer.key }), 403, 'insufficient_scope', null);
      const read = await s.call('test', 'GET', `/customers/${created.json.id}`, { key: reader.key });
      expect(read.status, read.text).toBe(200);
      expect(read.json.name).toBe('by writer');
    });

    it('refuses publishable keys: 403 publishable_key_not_allowed, nothing written', async () => {
      const before = await customerCount();
      const r = await s.call('test', 'POST', '/customers', { key: s.merchant.keys.test_publishable, body: { name: 'pk' } });
      expectError(r, 403, 'publishable_key_not_allowed', null);
      expect(await customerCount()).toBe(before);
    });
  });

  describe('validation (400 parameter_invalid, nothing written)', () => {
    it.each([
      'not-an-email',
      'a@',
      '@example.com',
      'a b@example.com',
      'jane@exa mple.com',
      'jane@@example.com',
      '',
      ' ',
      'jane@example.com\n',
    ])('refuses the email %j', async (email) => {
      await expectInvalid({ email }, 'email');
    });

    it('refuses an email longer than 254 characters', async () => {
      await expectInvalid({ email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` }, 'email');
    });

    it.each([
      'abc',
      '12',
      '+',
      '',
      '+254-abc-123',
      '123456789012345678901234567890123456789012',
      '++254712345678',
      '0712345678\n',
      '07123 45678x',
    ])('refuses the phone %j', async (phone) => {
      await expectInvalid({ phone }, 'phone');
    });

    it('refuses name and reference longer than 256 characters', async () => {
      await expectInvalid({ name: 'n'.repeat(257) }, 'name');
      await expectInvalid({ reference: 'r'.repeat(257) }, 'reference');
    });

    it('refuses metadata with more than 50 keys', async () => {
      const metadata: Record<string, string> = {};
      for (let i = 0; i < 51; i++) metadata[`k${i}`] = 'v';
      const r = await expectInvalid({ metadata }, 'metadata');
      expect(r.json.error.message).toMatch(/50/);
    });

    it('refuses a metadata key longer than 40 characters, naming the key', async () => {
      const key = 'k'.repeat(41);
      const r = await expectInvalid({ metadata: { ok: 'fine', [key]: 'v' } }, `metadata.${key}`);
      expect(r.json.error.message).toMatch(/40/);
    });

    it('refuses an empty metadata key', async () => {
      await expectInvalid({ metadata: { '': 'v' } }, 'metadata');
    });

    it('refuses metadata nested too deep (naming the path) or over 16 KiB', async () => {
      await expectInvalid({ metadata: { nested: { a: { b: { c: { d: [] } } } } } }, 'metadata.nested.a.b.c.d');
      await expectInvalid({ metadata: { list: [[[[['a']]]]] } }, 'metadata.list[0][0][0][0]');
      await expectInvalid({ metadata: { ok: 'x', long: 'v'.repeat(16_384) } }, 'metadata');
    });

    it('refuses metadata that is not an object', async () => {
      await expectInvalid({ metadata: 'x' }, 'metadata');
      await expectInvalid({ metadata: [] }, 'metadata');
      await expectInvalid({ metadata: null }, 'metadata');
      await expectInvalid({ metadata: 5 }, 'metadata');
    });

    it('refuses null for string fields (omit them instead)', async () => {
      for (const field of ['email', 'phone', 'name', 'reference']) {
        await expectInvalid({ [field]: null }, field);
      }
    });

    it('refuses unknown fields with parameter_unknown, naming the field', async () => {
      await expectInvalid({ name: 'x', nickname: 'y' }, 'nickname', 'parameter_unknown');
      await expectInvalid({ id: 'cus_mine' }, 'id', 'parameter_unknown');
      await expectInvalid({ livemode: true }, 'livemode', 'parameter_unknown');
      await expectInvalid({ created_at: '2020-01-01T00:00:00.000Z' }, 'created_at', 'parameter_unknown');
    });
  });
});
