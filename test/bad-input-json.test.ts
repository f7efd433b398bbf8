// Bodies a fuzzer sends: a key twice in one object and nesting past 64 levels answer 400 parameter_invalid
// naming where, before anything runs and writing nothing; amounts of more than 15 digits before the point
// answer 400 on every endpoint that reads one. Bodies are sent as raw text by a real HTTP client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOf, sendLinkForm, visitLink } from './helpers/checkout.js';
import { expectError } from './helpers/expect.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { paidSandboxIntent } from './helpers/ledger-invariant.js';

describe(`duplicate keys, deep nesting and long amounts (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const count = async (table: 'payment_intents' | 'customers' | 'payment_links' | 'quotes' | 'refunds' | 'idempotency_keys') =>
    Number(
      (
        await s.running.database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  const postRaw = (path: string, raw: string, headers: Record<string, string> = {}) =>
    s.sandbox('POST', path, { raw, headers: { 'content-type': 'application/json', ...headers } });

  describe('a key twice in one object: 400 parameter_invalid naming it, nothing written', () => {
    it('the amount of an intent sent twice is refused, not read as its last value', async () => {
      const before = await count('payment_intents');
      const r = await postRaw('/payment-intents', '{"amount":"100.00","amount":"5.00","currency":"KES"}');
      expectError(r, 400, 'parameter_invalid', 'amount', { environment: 'test' });
      expect(r.json.error.message).toContain('twice');
      expect(await count('payment_intents')).toBe(before);
    });

    it.each([
      ['an escaped spelling of the same key', '{"currency":"KES","amount":"1.00","\\u0061mount":"2.00"}', 'amount'],
      ['inside metadata', '{"amount":"1.00","currency":"KES","metadata":{"a":{"b":1,"b":2}}}', 'metadata.a.b'],
      ['inside an array', '{"amount":"1.00","currency":"KES","metadata":{"l":[{"k":1},{"k":1,"k":2}]}}', 'metadata.l[1].k'],
      ['an unknown field twice', '{"amount":"1.00","currency":"KES","x":1,"x":2}', 'x'],
    ])('%s', async (_label, raw, param) => {
      const before = await count('payment_intents');
      expectError(await postRaw('/payment-intents', raw), 400, 'parameter_invalid', param);
      expect(await count('payment_intents')).toBe(before);
    });

    it('on other endpoints too (customers, links)', async () => {
      const customers = await count('customers');
      expectError(await postRaw('/customers', '{"name":"a","name":"b"}'), 400, 'parameter_invalid', 'name');
      expect(await count('customers')).toBe(customers);
      const links = await count('payment_links');
      const raw = '{"title":"T","currency":"KES","amount":"9.00","amount":"1.00"}';
      expectError(await postRaw('/payment-links', raw), 400, 'parameter_invalid', 'amount');
      expect(await count('payment_links')).toBe(links);
    });

    it('with an Idempotency-Key: nothing is remembered, so the corrected body creates the intent', async () => {
      const key = `dup-${Date.now()}`;
      const bad = await postRaw('/payment-intents', '{"amount":"100.00","amount":"5.00","currency":"KES"}', { 'idempotency-key': key });
      expectError(bad, 400, 'parameter_invalid', 'amount');
      const good = await postRaw('/payment-intents', '{"amount":"100.00","currency":"KES"}', { 'idempotency-key': key });
      expect(good.status, good.text).toBe(201);
      expect(good.json.amount).toBe('100.00');
    });

    it('the same key in different objects is fine', async () => {
      const r = await postRaw('/payment-intents', '{"amount":"7.00","currency":"KES","metadata":{"a":{"k":1},"b":{"k":1}}}');
      expect(r.status, r.text).toBe(201);
    });
  });

  describe('nesting past 64 levels: 400 parameter_invalid, never a 5xx', () => {
    const nested = (levels: number, open = '{"a":', leaf = '1', close = '}') => open.repeat(levels) + leaf + close.repeat(levels);

    it.each([
      ['objects 65 deep', nested(65), 64],
      ['objects 10,000 deep', nested(10_000), 64],
      ['arrays 10,000 deep under a field', `{"metadata":${nested(10_000, '[', '1', ']')}}`, 1],
      ['arrays 200,000 deep under a field', `{"name":${nested(200_000, '[', '', ']')}}`, 1],
    ])('%s', async (_label, raw, keys) => {
      const before = await count('customers');
      const r = await postRaw('/customers', raw);
      expect(r.status, r.text.slice(0, 300)).toBe(400);
      expect(r.json.error.code).toBe('parameter_invalid');
      expect(r.json.error.message).toContain('64 levels');
      // The path names the first container too deep: 64 keys `a`, or one key then array indexes.
      if (keys === 64) expect(r.json.error.param).toBe(Array(64).fill('a').join('.'));
      else expect(r.json.error.param).toMatch(/^(metadata|name)(\[0\])+$/);
      expect(await count('customers')).toBe(before);
    });

    it('64 levels are read: the body goes on to validation (here an unknown field)', async () => {
      const r = await postRaw('/customers', nested(64));
      expectError(r, 400, 'parameter_unknown', 'a');
    });

    it('the server still answers normally afterwards', async () => {
      const r = await postRaw('/customers', '{"name":"after"}');
      expect(r.status, r.text).toBe(201);
    });
  });

  describe('amounts with more than 15 digits before the point: 400 parameter_invalid', () => {
    const long = '1'.repeat(16) + '.00';
    const sixtyTwo = '9'.repeat(62);

    it('intents: 15 digits pass, 16 and 62 do not', async () => {
      const before = await count('payment_intents');
      for (const amount of [long, sixtyTwo, '0'.repeat(16)]) {
        const r = await s.sandbox('POST', '/payment-intents', { body: { amount, currency: 'KES' } });
        expectError(r, 400, 'parameter_invalid', 'amount', { label: amount });
        expect(r.json.error.message).toContain('15 digits');
      }
      expect(await count('payment_intents')).toBe(before);
      const ok = await s.sandbox('POST', '/payment-intents', { body: { amount: '1'.repeat(15), currency: 'UGX' } });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.json.amount).toBe('1'.repeat(15));
    });

    it('links (create, update and the page form) and quotes', async () => {
      const links = await count('payment_links');
      expectError(
        await s.sandbox('POST', '/payment-links', { body: { title: 'T', currency: 'KES', amount: sixtyTwo } }),
        400,
        'parameter_invalid',
        'amount',
      );
      expect(await count('payment_links')).toBe(links);
      const link = await s.sandbox('POST', '/payment-links', { body: { title: 'Open amount', currency: 'KES' } });
      expect(link.status, link.text).toBe(201);
      expectError(
        await s.sandbox('POST', `/payment-links/${link.json.id}`, { body: { amount: long } }),
        400,
        'parameter_invalid',
        'amount',
      );
      const intents = await count('payment_intents');
      const page = await sendLinkForm(s, await visitLink(s, link.json.url), { amount: long });
      expect(page.status).toBe(400);
      expect(page.text).toContain('at most 15 digits');
      expect(await count('payment_intents')).toBe(intents);
      expect(pathOf(link.json.url)).toMatch(/^\/pay\/pl_/);

      const quotes = await count('quotes');
      for (const body of [
        { source_currency: 'KES', target_asset: 'USDT', amount: long },
        { source_currency: 'KES', target_asset: 'USDT', side: 'merchant_receives', amount: sixtyTwo },
      ]) {
        expectError(await s.sandbox('POST', '/quotes', { body }), 400, 'parameter_invalid', 'amount');
      }
      expect(await count('quotes')).toBe(quotes);
    });

    it('refunds and the sandbox simulate', async () => {
      const paid = await paidSandboxIntent(s, 'mpesa');
      expectError(
        await s.sandbox('POST', '/refunds', { body: { payment_intent: paid.id, amount: long } }),
        400,
        'parameter_invalid',
        'amount',
      );
      expect(await count('refunds')).toBe(0);
      const open = await s.sandbox('POST', '/payment-intents', { body: { amount: '10.00', currency: 'KES' } });
      const r = await s.sandbox('POST', `/sandbox/payment-intents/${open.json.id}/simulate`, {
        body: { outcome: 'success', payment_method: 'card', amount: sixtyTwo },
      });
      expectError(r, 400, 'parameter_invalid', 'amount');
      expect((await s.sandbox('GET', `/payment-intents/${open.json.id}`)).json.status).not.toBe('paid');
    });
  });
});
