// Creating payment intents (api-reference "Payment intents"): the embedded quote, methods by currency,
// validation, idempotent create.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {} from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import {
  D,
  SANDBOX_ORIGIN,
  LIVE_ORIGIN,
  URL_ENV,
  RESPONSE_KEYS,
  FIAT_DECIMALS,
  ASSET_DECIMALS,
  ISO_RE,
  expectedMethods,
  up,
  record,
  helpers,
} from './helpers/payment-intents.js';

describe(`payment intents (${ENGINE})`, () => {
  let s: TestServer;
  const h = helpers(() => s);
  const { create, createOk } = h;

  beforeAll(async () => {
    s = await startTestServer({ env: URL_ENV });
  });
  afterAll(async () => s?.stop());

  describe('POST /payment-intents', () => {
    it('creates a KES intent: 201 in awaiting_payment with every field, the embedded quote and its created event', async () => {
      const rates = await s.sandbox('GET', '/rates');
      const price = rates.json.data.find((d: { asset: string }) => d.asset === 'USDT').prices.KES as string;
      const before = { intents: await h.count('payment_intents'), events: await h.count('events') };
      const input = {
        amount: '1500',
        currency: 'KES',
        description: 'Order #1001',
        merchant_reference: 'order_1001',
        customer: { email: 'jane@example.com', phone: '+254712345678' },
        metadata: { cart: 'c-77', items: 3, gift: false, note: null },
        return_url: 'https://shop.example/thanks?order=1001',
      };
      const t0 = Date.now();
      const r = await create(input);
      const t1 = Date.now();
      expect(r.status, r.text).toBe(201);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      const pi = r.json;
      expect(pi.id).toMatch(/^pi_[0-9A-Za-z]{24}$/);
      expect(pi.object).toBe('payment_intent');
      expect(pi.status).toBe('awaiting_payment');
      expect(pi.amount).toBe('1500.00');
      expect(pi.currency).toBe('KES');
      expect(pi.settlement_currency).toBe('USDT');
      expect(pi.rate).toBe(price);
      expect(pi.pay_amount).toBe(up(new D('1500').div(price), 6));
      expect(pi.pay_amount).toBe('11.607590');
      expect(pi.amount_received).toBe('0.000000');
      expect(pi.checkout_url).toBe(`${SANDBOX_ORIGIN}/checkout/${pi.id}`);
      expect(pi.merchant_reference).toBe('order_1001');
      expect(pi.description).toBe('Order #1001');
      expect(pi.payment_methods).toEqual(['service_balance', 'mpesa', 'card', 'external_wallet']);
      expect(pi.payment_method).toBeNull();
      expect(pi.customer).toEqual(input.customer);
      expect(pi.metadata).toEqual(input.metadata);
      expect(pi.return_url).toBe(input.return_url);
      expect(pi.payment_link).toBeNull();
      expect(pi.failure_code).toBeNull();
      expect(pi.paid_at).toBeNull();
      expect(pi.cancelled_at).toBeNull();
      expect(pi.livemode).toBe(false);
      expect(pi.environment).toBe('test');
      expect(pi.request_id).toBe(r.headers.get('service-request-id'));
      expect(pi.created_at).toMatch(ISO_RE);
      expect(pi.expires_at).toMatch(ISO_RE);
      const created = Date.parse(pi.created_at);
      expect(created).toBeGreaterThanOrEqual(t0 - 5);
      expect(created).toBeLessThanOrEqual(t1 + 5);
      expect(Date.parse(pi.expires_at)).toBe(created + 30 * 60_000);

      // the stored row
      expect(await h.count('payment_intents')).toBe(before.intents + 1);
      const row = await h.row(pi.id);
      expect(row).toMatchObject({
        merchant_id: s.merchant.merchant.id,
        environment: 'test',
        status: 'awaiting_payment',
        amount: '1500.00',
        currency: 'KES',
        settlement_currency: 'USDT',
        pay_amount: '11.607590',
        rate: price,
        amount_received: '0.000000',
        merchant_reference: 'order_1001',
        description: 'Order #1001',
        return_url: input.return_url,
        payment_method: null,
        paid_at: null,
        cancelled_at: null,
      });
      expect(JSON.parse(row.payment_methods)).toEqual(pi.payment_methods);
      expect(JSON.parse(row.customer!)).toEqual(input.customer);
      expect(JSON.parse(row.metadata)).toEqual(input.metadata);
      expect(Number(row.created_at)).toBe(created);
      expect(Number(row.expires_at)).toBe(created + 1_800_000);

      // exactly one event: payment_intent.created, whose data is the intent as answered
      expect(await h.count('events')).toBe(before.events + 1);
      const events = await h.events(pi.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created']);
      const ev = events[0]!;
      expect(ev.payload).toMatchObject({
        id: ev.id,
        object: 'event',
        type: 'payment_intent.created',
        api_version: '2026-06-01',
        livemode: false,
      });
      expect(ev.id).toMatch(/^evt_/);
      expect(ev.payload.created_at).toBe(pi.created_at);
      expect(ev.payload.data).toEqual(record(pi));
    });

    it('serves the checkout_url: 200 HTML on the environment origin, 404 from the other environment', async () => {
      const pi = await createOk({ amount: '250.5', currency: 'KES', description: 'Mugs <b>x2</b>' });
      expect(pi.amount).toBe('250.50');
      const checkout = new URL(pi.checkout_url);
      expect(checkout.origin).toBe(SANDBOX_ORIGIN);
      expect(checkout.pathname).toBe(`/checkout/${pi.id}`);
      const res = await fetch(s.url('test', checkout.pathname));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toContain('KES 250.50');
      expect(html).toContain('Mugs &lt;b&gt;x2&lt;/b&gt;');
      expect(html).not.toContain('<b>x2</b>');
      const wrongEnv = await fetch(s.url('live', checkout.pathname));
      expect(wrongEnv.status).toBe(404);

      const live = await createOk({ amount: '10', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      expect(live.livemode).toBe(true);
      expect(live.environment).toBe('live');
      expect(live.checkout_url).toBe(`${LIVE_ORIGIN}/checkout/${live.id}`);
      expect((await fetch(s.url('live', `/checkout/${live.id}`))).status).toBe(200);
      expect((await fetch(s.url('test', `/checkout/${live.id}`))).status).toBe(404);
    });

    it('embeds the GET /rates price and defaults the methods for KES, USD, EUR and UGX with each settlement asset', async () => {
      const rates = await s.sandbox('GET', '/rates');
      const amounts: Record<string, [string, string]> = {
        KES: ['1500', '1500.00'],
        USD: ['12.5', '12.50'],
        EUR: ['99.99', '99.99'],
        UGX: ['150000', '150000'],
      };
      for (const currency of Object.keys(FIAT_DECIMALS)) {
        for (const asset of Object.keys(ASSET_DECIMALS)) {
          const [amount, normalised] = amounts[currency]!;
          const pi = await createOk({ amount, currency, settlement_currency: asset });
          const price = rates.json.data.find((d: { asset: string }) => d.asset === asset).prices[currency] as string;
          const where = `${currency}/${asset}`;
          expect(pi.amount, where).toBe(normalised);
          expect(pi.settlement_currency).toBe(asset);
          expect(new D(pi.rate).eq(price), `${where} rate ${pi.rate} vs ${price}`).toBe(true);
          expect(pi.pay_amount, where).toBe(up(new D(amount).div(price), ASSET_DECIMALS[asset]!));
          expect(pi.amount_received, where).toBe(new D(0).toFixed(ASSET_DECIMALS[asset]!));
          expect(pi.payment_methods, where).toEqual(expectedMethods(currency, asset));
        }
      }
    });

    it('keeps the listed methods in the given order, once each', async () => {
      const pi = await createOk({ amount: '100', currency: 'KES', payment_methods: ['card', 'mpesa', 'card'] });
      expect(pi.payment_methods).toEqual(['card', 'mpesa']);
      expect(JSON.parse((await h.row(pi.id)).payment_methods)).toEqual(['card', 'mpesa']);
      const usd = await createOk({
        amount: '5',
        currency: 'USD',
        settlement_currency: 'USDC',
        payment_methods: ['external_wallet', 'paypal', 'service_balance'],
      });
      expect(usd.payment_methods).toEqual(['external_wallet', 'paypal', 'service_balance']);
    });

    it('takes expires_in_minutes from 1 to 1440 (default 30)', async () => {
      for (const minutes of [1, 45, 1440]) {
        const pi = await createOk({ amount: '10', currency: 'USD', expires_in_minutes: minutes });
        expect(Date.parse(pi.expires_at) - Date.parse(pi.created_at)).toBe(minutes * 60_000);
      }
    });

    it.each([
      ['https://shop.example/return?x=1#top'],
      ['http://localhost:3000/done'],
      ['http://127.0.0.1:8080/cb'],
      ['http://[::1]:8080/cb'],
      ['https://localhost/x'],
    ])('accepts the return_url %s', async (url) => {
      const pi = await createOk({ amount: '10', currency: 'USD', return_url: url });
      expect(pi.return_url).toBe(url);
    });

    describe('refusals (400, nothing written)', () => {
      async function expectRefused(body: unknown, code: string, param: string | null): Promise<ApiResponse> {
        const before = { intents: await h.count('payment_intents'), events: await h.count('events') };
        const r = await create(body);
        expectError(r, 400, code, param);
        expect(r.json.environment).toBe('test');
        expect(await h.count('payment_intents')).toBe(before.intents);
        expect(await h.count('events')).toBe(before.events);
        return r;
      }

      it('names a missing amount or currency: parameter_missing', async () => {
        await expectRefused({ currency: 'KES' }, 'parameter_missing', 'amount');
        await expectRefused({ amount: '10' }, 'parameter_missing', 'currency');
        await expectRefused({}, 'parameter_missing', 'amount');
      });

      it.each([0, 1441, 1.5, -1, 100000, '30', null, true])('refuses expires_in_minutes %j', async (minutes) => {
        await expectRefused({ amount: '10', currency: 'USD', expires_in_minutes: minutes }, 'parameter_invalid', 'expires_in_minutes');
      });

      it.each([
        'http://shop.example/return',
        'ftp://shop.example/file',
        'shop.example/return',
        '/relative/path',
        'javascript:alert(1)',
        'data:text/html,hi',
        '',
        'https://',
        'http://localhost.evil.example/',
        `https://shop.example/${'a'.repeat(2000)}`,
      ])('refuses the return_url %j', async (url) => {
        await expectRefused({ amount: '10', currency: 'USD', return_url: url }, 'parameter_invalid', 'return_url');
      });

      it.each([
        ['KES', 'USDT', ['paypal']],
        ['USD', 'USDT', ['mpesa']],
        ['EUR', 'USDT', ['card']],
        ['UGX', 'USDT', ['service_balance', 'mpesa']],
        ['KES', 'BTC', ['external_wallet']],
        ['USD', 'ETH', ['card', 'external_wallet']],
        ['EUR', 'SOL', ['external_wallet']],
      ])('refuses methods not valid for %s settling in %s (%j): payment_method_unavailable', async (currency, asset, methods) => {
        const r = await expectRefused(
          { amount: '1000', currency, settlement_currency: asset, payment_methods: methods },
          'payment_method_unavailable',
          'payment_methods',
        );
        expect(r.json.error.message).toContain(currency);
      });

      it('refuses UGX and RWF amounts with decimals, and KES amounts with three', async () => {
        await expectRefused({ amount: '1500.50', currency: 'UGX' }, 'parameter_invalid', 'amount');
        await expectRefused({ amount: '1500.5', currency: 'UGX' }, 'parameter_invalid', 'amount');
        await expectRefused({ amount: '99.1', currency: 'RWF' }, 'parameter_invalid', 'amount');
        await expectRefused({ amount: '1500.001', currency: 'KES' }, 'parameter_invalid', 'amount');
        const ok = await createOk({ amount: '1500', currency: 'UGX' });
        expect(ok.amount).toBe('1500');
      });

      it.each(['0', '0.00', '-1', 'abc', '', '1e3', ' 10', '10 ', '1,000', '.5', '5.'])('refuses the amount %j', async (amount) => {
        await expectRefused({ amount, currency: 'KES' }, 'parameter_invalid', 'amount');
      });

      it('accepts currency codes in any case and answers them upper case; a negative amount is told it must be above zero', async () => {
        const lower = await createOk({ amount: '100.00', currency: 'kes', settlement_currency: 'usdc' });
        expect([lower.currency, lower.settlement_currency]).toEqual(['KES', 'USDC']);
        const negative = await create({ amount: '-15.00', currency: 'KES' });
        expectError(negative, 400, 'parameter_invalid', 'amount');
        expect(negative.json.error.message).toBe('Invalid amount: must be greater than zero');
        const number = await create({ amount: 1500, currency: 'KES' });
        expect(number.json.error.message).toMatch(/not a JSON number/);
      });

      const wrong: Array<[string, Record<string, unknown>, string, string]> = [
        ['amount as a JSON number', { amount: 1500 }, 'parameter_invalid', 'amount'],
        ['amount null', { amount: null }, 'parameter_invalid', 'amount'],
        ['currency as a number', { currency: 404 }, 'parameter_invalid', 'currency'],
        ['an unknown currency', { currency: 'XYZ' }, 'parameter_invalid', 'currency'],
        ['a negative amount', { amount: '-15.00' }, 'parameter_invalid', 'amount'],
        ['an asset as currency', { currency: 'USDT' }, 'parameter_invalid', 'currency'],
        ['settlement_currency as a number', { settlement_currency: 1 }, 'parameter_invalid', 'settlement_currency'],
        ['an unknown settlement_currency', { settlement_currency: 'DOGE' }, 'parameter_invalid', 'settlement_currency'],
        ['a fiat settlement_currency', { settlement_currency: 'USD' }, 'parameter_invalid', 'settlement_currency'],
        ['settlement_currency null', { settlement_currency: null }, 'parameter_invalid', 'settlement_currency'],
        ['description as a number', { description: 5 }, 'parameter_invalid', 'description'],
        ['description over 1000 characters', { description: 'd'.repeat(1001) }, 'parameter_invalid', 'description'],
        ['merchant_reference as an object', { merchant_reference: {} }, 'parameter_invalid', 'merchant_reference'],
        ['merchant_reference over 255 characters', { merchant_reference: 'r'.repeat(256) }, 'parameter_invalid', 'merchant_reference'],
        ['payment_methods as a string', { payment_methods: 'card' }, 'parameter_invalid', 'payment_methods'],
        ['payment_methods empty', { payment_methods: [] }, 'parameter_invalid', 'payment_methods'],
        ['an unknown payment method', { payment_methods: ['bitcoin'] }, 'parameter_invalid', 'payment_methods[0]'],
        ['a number among payment_methods', { payment_methods: ['card', 7] }, 'parameter_invalid', 'payment_methods[1]'],
        ['customer as a string', { customer: 'jane' }, 'parameter_invalid', 'customer'],
        ['customer null', { customer: null }, 'parameter_invalid', 'customer'],
        ['a customer email that is not one', { customer: { email: 'not-an-email' } }, 'parameter_invalid', 'customer.email'],
        ['a customer phone that is not one', { customer: { phone: 'call me' } }, 'parameter_invalid', 'customer.phone'],
        ['an unknown customer field', { customer: { name: 'Jane' } }, 'parameter_unknown', 'customer.name'],
        ['metadata as a string', { metadata: 'x' }, 'parameter_invalid', 'metadata'],
        ['metadata as an array', { metadata: ['x'] }, 'parameter_invalid', 'metadata'],
        ['metadata nested six levels deep', { metadata: { a: { b: { c: { d: { e: {} } } } } } }, 'parameter_invalid', 'metadata.a.b.c.d.e'],
        ['expires_in_minutes as a string', { expires_in_minutes: '30' }, 'parameter_invalid', 'expires_in_minutes'],
        ['return_url as a number', { return_url: 5 }, 'parameter_invalid', 'return_url'],
        ['an unknown field', { amount_due: '10' }, 'parameter_unknown', 'amount_due'],
        ['a server-set field', { status: 'paid' }, 'parameter_unknown', 'status'],
      ];
      it.each(wrong)('refuses %s', async (_name, patch, code, param) => {
        await expectRefused({ amount: '1000', currency: 'KES', ...patch }, code, param);
      });

      it('refuses a body that is not a JSON object: invalid_json', async () => {
        const before = await h.count('payment_intents');
        expectError(
          await s.sandbox('POST', '/payment-intents', { raw: '"1500"', headers: { 'content-type': 'application/json' } }),
          400,
          'invalid_json',
          null,
        );
        expectError(
          await s.sandbox('POST', '/payment-intents', { raw: '{', headers: { 'content-type': 'application/json' } }),
          400,
          'invalid_json',
          null,
        );
        expect(await h.count('payment_intents')).toBe(before);
      });
    });

    it('creates one intent for one Idempotency-Key: the replay is byte for byte, another body is 409', async () => {
      const key = `order-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const body = { amount: '777', currency: 'KES', merchant_reference: 'idem-1' };
      const before = { intents: await h.count('payment_intents'), events: await h.count('events') };
      const a = await create(body, { headers: { 'idempotency-key': key } });
      const b = await create(body, { headers: { 'idempotency-key': key } });
      expect(a.status, a.text).toBe(201);
      expect(b.status, b.text).toBe(201);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(a.headers.get('idempotent-replayed')).toBeNull();
      expect(b.text).toBe(a.text);
      expect(await h.count('payment_intents')).toBe(before.intents + 1);
      expect(await h.count('events')).toBe(before.events + 1);
      expect((await h.events(a.json.id)).map((e) => e.type)).toEqual(['payment_intent.created']);
      const refs = await s.running.database.db
        .selectFrom('payment_intents')
        .select('id')
        .where('merchant_reference', '=', 'idem-1')
        .execute();
      expect(refs.map((r) => r.id)).toEqual([a.json.id]);

      const c = await create({ ...body, amount: '778' }, { headers: { 'idempotency-key': key } });
      expectError(c, 409, 'idempotency_conflict', 'Idempotency-Key', { type: 'idempotency_error' });
      expect(await h.count('payment_intents')).toBe(before.intents + 1);

      // without a key, two identical requests are two intents
      const d = await createOk(body);
      const e = await createOk(body);
      expect(d.id).not.toBe(e.id);
    });
  });
});
