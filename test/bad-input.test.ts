// Bad input against POST /customers and GET /customers: each refusal is a 4xx in the error envelope and
// writes nothing; hostile-looking but valid text is stored and returned exactly.
import { Readable } from 'node:stream';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './helpers/expect.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

const MIB = 1024 * 1024;

describe(`bad input (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  async function customerCount(): Promise<number> {
    const row = await s.running.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Sends raw text to POST /customers; asserts the error and that no customer was written. */
  async function postRaw(raw: string | Buffer, status: number, code: string, param: string | null, contentType = 'application/json') {
    const before = await customerCount();
    const r = await s.sandbox('POST', '/customers', { raw, headers: { 'content-type': contentType } });
    expectError(r, status, code, param, { environment: 'test' });
    expect(await customerCount()).toBe(before);
    return r;
  }

  async function postBody(body: unknown, status: number, code: string, param: string | null) {
    return postRaw(JSON.stringify(body), status, code, param);
  }

  describe('bodies that are not a JSON object: 400 invalid_json', () => {
    it.each([
      ['malformed JSON', '{bad'],
      ['truncated JSON', '{"name": "x"'],
      ['trailing garbage', '{"name": "x"} x'],
      ['single quotes', "{'name': 'x'}"],
      ['a JSON array', '[{"name": "x"}]'],
      ['an empty JSON array', '[]'],
      ['JSON null', 'null'],
      ['a JSON string', '"name"'],
      ['a JSON number', '42'],
      ['JSON true', 'true'],
    ])('%s', async (_label, raw) => {
      await postRaw(raw, 400, 'invalid_json', null);
    });

    it('text that is not UTF-8', async () => {
      const raw = Buffer.concat([Buffer.from('{"name": "a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
      await postRaw(raw, 400, 'invalid_json', null);
    });
  });

  describe('wrong types: 400 parameter_invalid naming the field', () => {
    it.each([
      ['email: 5', { email: 5 }, 'email'],
      ['email: true', { email: true }, 'email'],
      ['name: true', { name: true }, 'name'],
      ['name: a number where a string belongs', { name: 12.5 }, 'name'],
      ['phone: a JSON number where a string belongs', { phone: 254712345678 }, 'phone'],
      ['reference: a number', { reference: 1 }, 'reference'],
      ['reference: an object', { reference: { id: 'x' } }, 'reference'],
      ['name: an array', { name: ['x'] }, 'name'],
      ["metadata: 'x'", { metadata: 'x' }, 'metadata'],
      ['metadata: []', { metadata: [] }, 'metadata'],
      ['metadata: 1', { metadata: 1 }, 'metadata'],
      ['metadata nested six levels deep', { metadata: { a: { b: { c: { d: { e: { f: 'g' } } } } } } }, 'metadata.a.b.c.d.e'],
      ['metadata key over 40 characters', { metadata: { ['k'.repeat(41)]: 1 } }, `metadata.${'k'.repeat(41)}`],
    ])('%s', async (_label, body, param) => {
      await postBody(body, 400, 'parameter_invalid', param);
    });

    it('names the first wrong field when several are wrong', async () => {
      const r = await postBody({ email: 5, name: true }, 400, 'parameter_invalid', 'email');
      expect(r.json.error.message).toContain('email');
    });
  });

  describe('unknown fields: 400 parameter_unknown naming the field', () => {
    it.each([
      [{ nickname: 'x' }, 'nickname'],
      [{ name: 'ok', extra: 1 }, 'extra'],
      [{ Name: 'x' }, 'Name'],
      [{ __proto__x: 'x' }, '__proto__x'],
      [{ constructor: 'x' }, 'constructor'],
    ])('%j', async (body, param) => {
      const r = await postBody(body, 400, 'parameter_unknown', param);
      expect(r.json.error.message).toContain(param);
    });

    it('a "__proto__" key is an unknown field, not a prototype', async () => {
      await postRaw('{"__proto__": {"name": "x"}}', 400, 'parameter_unknown', '__proto__');
    });
  });

  describe('size', () => {
    it('a 2 MB body: 413 request_too_large', async () => {
      const raw = JSON.stringify({ name: 'x', metadata: { a: 'b'.repeat(2 * MIB) } });
      await postRaw(raw, 413, 'request_too_large', null);
    });

    it('a body of 1 MiB + 1 byte: 413; of exactly 1 MiB: read and judged (400 parameter_unknown)', async () => {
      const make = (size: number) => {
        const head = '{"junk":"';
        const tail = '"}';
        const raw = head + 'j'.repeat(size - head.length - tail.length) + tail;
        expect(Buffer.byteLength(raw)).toBe(size);
        return raw;
      };
      await postRaw(make(MIB + 1), 413, 'request_too_large', null);
      await postRaw(make(MIB), 400, 'parameter_unknown', 'junk');
    });

    it('a body just under 1 MiB of valid JSON with an unknown field: 400 parameter_unknown', async () => {
      const raw = JSON.stringify({ name: 'Big', padding: 'p'.repeat(MIB - 100) });
      expect(Buffer.byteLength(raw)).toBeLessThan(MIB);
      await postRaw(raw, 400, 'parameter_unknown', 'padding');
    });

    it('a 2 MB body sent chunked, without Content-Length: 413', async () => {
      const before = await customerCount();
      const chunk = Buffer.from('x'.repeat(64 * 1024));
      async function* body() {
        yield Buffer.from('{"name":"');
        for (let i = 0; i < 32; i++) yield chunk;
        yield Buffer.from('"}');
      }
      const res = await undiciRequest(s.url('test', '/v1/customers'), {
        method: 'POST',
        headers: { authorization: `Bearer ${s.merchant.keys.test_secret}`, 'content-type': 'application/json' },
        body: Readable.from(body()),
      });
      const text = await res.body.text();
      expect(res.statusCode, text).toBe(413);
      expect(JSON.parse(text).error.code).toBe('request_too_large');
      expect(await customerCount()).toBe(before);
    });

    it('very long strings: 400 parameter_invalid', async () => {
      await postBody({ name: 'n'.repeat(10_000) }, 400, 'parameter_invalid', 'name');
      await postBody({ reference: 'r'.repeat(10_000) }, 400, 'parameter_invalid', 'reference');
      await postBody({ email: `${'e'.repeat(10_000)}@example.com` }, 400, 'parameter_invalid', 'email');
      await postBody({ phone: '1'.repeat(10_000) }, 400, 'parameter_invalid', 'phone');
      await postBody({ metadata: { k: 'v'.repeat(20_000) } }, 400, 'parameter_invalid', 'metadata');
    });
  });

  describe('media types: 415 unsupported_media_type', () => {
    it.each([
      ['application/x-www-form-urlencoded', 'name=Jane&email=jane%40example.com'],
      ['text/plain', '{"name": "Jane"}'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nJane\r\n--xyz--\r\n'],
      ['application/xml', '<customer><name>Jane</name></customer>'],
      ['application/jsonx', '{"name": "Jane"}'],
    ])('%s', async (contentType, raw) => {
      await postRaw(raw, 415, 'unsupported_media_type', null, contentType);
    });
  });

  describe('text no database keeps faithfully: 400 parameter_invalid naming the field', () => {
    it.each([
      ['NUL in name', { name: 'a\u0000b' }, 'name'],
      ['NUL in email', { email: 'a\u0000b@example.com' }, 'email'],
      ['lone high surrogate in name', { name: '\ud800' }, 'name'],
      ['lone low surrogate in reference', { reference: 'x\udc00y' }, 'reference'],
      ['NUL in a metadata value', { metadata: { k: 'a\u0000' } }, 'metadata.k'],
      ['lone surrogate in a metadata value', { metadata: { k: 'a\ud83d' } }, 'metadata.k'],
    ])('%s', async (_label, body, param) => {
      await postBody(body, 400, 'parameter_invalid', param);
    });

    it('a NUL or lone surrogate in a metadata key', async () => {
      const a = await postRaw('{"metadata": {"a\\u0000b": "v"}}', 400, 'parameter_invalid', 'metadata.a\u0000b');
      expect(a.json.error.param).toContain('metadata.');
      await postRaw('{"metadata": {"\\ud800": "v"}}', 400, 'parameter_invalid', 'metadata.\ud800');
    });

    it('the escaped forms in raw JSON text are refused too', async () => {
      await postRaw('{"name": "a\\u0000b"}', 400, 'parameter_invalid', 'name');
      await postRaw('{"name": "\\ud800"}', 400, 'parameter_invalid', 'name');
    });
  });

  describe('valid text is stored and returned exactly', () => {
    const samples: Array<[string, string]> = [
      ['emoji', 'Ada 😀👍🏽👩‍👩‍👧‍👦'],
      ['Arabic', 'محمد بن عبد الله'],
      ['Chinese', '张伟'],
      ['Japanese and Korean', '山田太郎 김민준'],
      ['combining marks (not normalised)', 'Zoe\u0308 e\u0301'],
      ['SQL injection', "'; DROP TABLE customers; --"],
      ['Bobby Tables', "Robert'); DROP TABLE students;--"],
      ['quotes and backslashes', 'O\'Brien "the \\ one" `x`'],
      ['LIKE wildcards', '100% _match_ %'],
      ['HTML', '<script>alert(1)</script>'],
      ['whitespace', '  leading and trailing\t\r\n  '],
      ['JSON-looking', '{"$gt": ""}'],
      ['astral plane', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𓀀'],
      ['BOM and zero-width characters', '\ufeffa\u200bb\u200dc'],
    ];

    it.each(samples)('%s', async (_label, text) => {
      const before = await customerCount();
      const key = Array.from(text).slice(0, 12).join('').trim() || 'k';
      const body = { name: text, reference: text, metadata: { [key]: text } };
      const r = await s.sandbox('POST', '/customers', { body });
      expect(r.status, r.text).toBe(201);
      expect(r.json.name).toBe(text);
      expect(r.json.reference).toBe(text);
      expect(r.json.metadata).toEqual(body.metadata);
      expect(await customerCount()).toBe(before + 1);

      const row = await s.running.database.db.selectFrom('customers').selectAll().where('id', '=', r.json.id).executeTakeFirstOrThrow();
      expect(Buffer.from(row.name!, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
      expect(row.reference).toBe(text);
      expect(JSON.parse(row.metadata)).toEqual(body.metadata);

      const got = await s.sandbox('GET', `/customers/${r.json.id}`);
      expect(got.status).toBe(200);
      expect(got.json.name).toBe(text);
      expect(got.json.reference).toBe(text);
      expect(got.json.metadata).toEqual(body.metadata);
      // Byte-identical on the wire too: the response text decodes to the same code units.
      expect(JSON.parse(got.text).name).toBe(text);
    });

    it('the customers table still works after the SQL-looking input', async () => {
      const count = await customerCount();
      expect(count).toBeGreaterThanOrEqual(samples.length);
      const created = await s.sandbox('POST', '/customers', { body: { name: 'After', email: 'after@example.com' } });
      expect(created.status).toBe(201);
      expect(await customerCount()).toBe(count + 1);
      const list = await s.sandbox('GET', '/customers?limit=100');
      expect(list.status).toBe(200);
      expect(list.json.data).toHaveLength(count + 1);
      expect(list.json.data[0].id).toBe(created.json.id);
      const names = list.json.data.map((c: { name: string }) => c.name);
      expect(names).toContain("'; DROP TABLE customers; --");
      expect(names).toContain("Robert'); DROP TABLE students;--");
    });

    it('an email with plus addressing and an international phone are kept as sent', async () => {
      const r = await s.sandbox('POST', '/customers', { body: { email: 'jane+shop@sub.example.co.ke', phone: '+254 712 345 678' } });
      expect(r.status, r.text).toBe(201);
      expect(r.json.email).toBe('jane+shop@sub.example.co.ke');
      expect(r.json.phone).toBe('+254 712 345 678');
    });
  });

  describe('query strings on GET /customers: 400 naming the parameter', () => {
    it.each([
      ['limit=abc', 'parameter_invalid', 'limit'],
      ['limit=0', 'parameter_invalid', 'limit'],
      ['limit=-1', 'parameter_invalid', 'limit'],
      ['limit=101', 'parameter_invalid', 'limit'],
      ['limit=1000000', 'parameter_invalid', 'limit'],
      ['limit=1.5', 'parameter_invalid', 'limit'],
      ['limit=', 'parameter_invalid', 'limit'],
      ['limit=10&limit=20', 'parameter_invalid', 'limit'],
      ['limit=%00', 'parameter_invalid', 'limit'],
      ['foo=1', 'parameter_unknown', 'foo'],
      ['limit=10&offset=5', 'parameter_unknown', 'offset'],
      ['page=2', 'parameter_unknown', 'page'],
      ['starting_after=', 'parameter_invalid', 'starting_after'],
      ['starting_after=cus_doesnotexist', 'parameter_invalid', 'starting_after'],
      ['starting_after=%00', 'parameter_invalid', 'starting_after'],
      [`starting_after=${'a'.repeat(256)}`, 'parameter_invalid', 'starting_after'],
      [`starting_after=${encodeURIComponent("' OR 1=1 --")}`, 'parameter_invalid', 'starting_after'],
    ])('?%s', async (query, code, param) => {
      const r = await s.sandbox('GET', `/customers?${query}`);
      expectError(r, 400, code, param, { environment: 'test' });
    });

    it('limit at the bounds is accepted', async () => {
      for (const limit of [1, 100]) {
        const r = await s.sandbox('GET', `/customers?limit=${limit}`);
        expect(r.status, r.text).toBe(200);
        expect(r.json.object).toBe('list');
        expect(r.json.data.length).toBeLessThanOrEqual(limit);
      }
    });
  });

  it('a Service-Version header other than 2026-06-01: 400 api_version_invalid, nothing written', async () => {
    const before = await customerCount();
    const r = await s.sandbox('POST', '/customers', { body: { name: 'v' }, headers: { 'service-version': '2020-01-01' } });
    expectError(r, 400, 'api_version_invalid', 'Service-Version', { environment: 'test' });
    expect(await customerCount()).toBe(before);
  });
});
