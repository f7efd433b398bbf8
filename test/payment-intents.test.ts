// Payment intents (spec 2.1, 3.1, 4.3, 8; DECISIONS "Amounts and currencies", "Payment intents", "Sandbox
// test helpers"; api-reference "Payment intents", "Sandbox helpers"): create with its embedded quote,
// validation, idempotent create, list, retrieve, cancel, the sandbox clock, expiry (by the clock advance,
// by a read before any sweep, by the background sweep) and receiving caps.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantLimits, type CreatedMerchant } from '../src/modules/merchants/index.js';
import { ManualClock } from '../src/shared/clock.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { INTENT_KEYS } from './helpers/intents.js';

const D = Decimal.clone({ precision: 100 });
const SANDBOX_ORIGIN = 'https://sandbox.cowrie.test';
const LIVE_ORIGIN = 'https://api.cowrie.test';
const URL_ENV = { COWRIE_SANDBOX_URL: `${SANDBOX_ORIGIN}/v1`, COWRIE_LIVE_URL: `${LIVE_ORIGIN}/v1` };

const RESPONSE_KEYS = [...new Set([...INTENT_KEYS, 'request_id', 'environment'])].sort();
const FIAT_DECIMALS: Record<string, number> = { KES: 2, USD: 2, EUR: 2, UGX: 0 };
const ASSET_DECIMALS: Record<string, number> = { USDT: 6, USDC: 6, BTC: 8, ETH: 18, SOL: 9 };
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The documented method rules, written out independently of the server's. */
function expectedMethods(currency: string, asset: string): string[] {
  const out = ['service_balance'];
  if (currency === 'KES') out.push('mpesa');
  if (currency === 'KES' || currency === 'USD') out.push('card');
  if (currency !== 'KES') out.push('paypal');
  if (asset === 'USDT' || asset === 'USDC') out.push('external_wallet');
  return out;
}

function up(value: Decimal, places: number): string {
  return value.toDecimalPlaces(places, Decimal.ROUND_CEIL).toFixed(places);
}

/** The record part of a response: without the per-request metadata. */
function record(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _r, environment: _e, ...rest } = body;
  return rest;
}

/** Shared helpers over one server. */
function helpers(get: () => TestServer) {
  const db = () => get().running.database.db;
  return {
    async count(table: 'payment_intents' | 'events' | 'payment_attempts'): Promise<number> {
      const row = await db().selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    row(id: string) {
      return db().selectFrom('payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    },
    async events(id: string) {
      const rows = await db().selectFrom('events').selectAll().where('payment_intent_id', '=', id).orderBy('seq').execute();
      return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, any> }));
    },
    attempts(id: string) {
      return db().selectFrom('payment_attempts').selectAll().where('payment_intent_id', '=', id).orderBy('created_at').orderBy('id').execute();
    },
  };
}

function expectError(r: ApiResponse, status: number, code: string, param: string | null, type = 'invalid_request_error'): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json?.error?.code, r.text).toBe(code);
  expect(r.json.error.param, r.text).toBe(param);
  expect(r.json.error.type, r.text).toBe(type);
  expect(typeof r.json.error.message).toBe('string');
  expect(r.json.error.request_id).toBe(r.headers.get('service-request-id'));
  expect(r.json.error.docs_url).toMatch(new RegExp(`/docs/errors#${code}$`));
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe(`payment intents (${ENGINE})`, () => {
  let s: TestServer;
  let other: CreatedMerchant;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startTestServer({ env: URL_ENV });
    other = await s.newMerchant({ name: 'Other merchant', verified: true });
  });
  afterAll(async () => s?.stop());

  const create = (body: unknown, o: { key?: string; env?: 'test' | 'live'; headers?: Record<string, string> } = {}) =>
    s.call(o.env ?? 'test', 'POST', '/payment-intents', { key: o.key ?? s.merchant.keys.test_secret, body, headers: o.headers });

  async function createOk(body: Record<string, unknown>, o: { key?: string; env?: 'test' | 'live' } = {}) {
    const r = await create(body, o);
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

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
      expect(ev.payload).toMatchObject({ id: ev.id, object: 'event', type: 'payment_intent.created', api_version: '2026-06-01', livemode: false });
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
      expect(html).toContain(`${pi.pay_amount} USDT`);
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
      const usd = await createOk({ amount: '5', currency: 'USD', settlement_currency: 'USDC', payment_methods: ['external_wallet', 'paypal', 'service_balance'] });
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

      const wrong: Array<[string, Record<string, unknown>, string, string]> = [
        ['amount as a JSON number', { amount: 1500 }, 'parameter_invalid', 'amount'],
        ['amount null', { amount: null }, 'parameter_invalid', 'amount'],
        ['currency as a number', { currency: 404 }, 'parameter_invalid', 'currency'],
        ['an unknown currency', { currency: 'XYZ' }, 'parameter_invalid', 'currency'],
        ['a lower-case currency', { currency: 'kes' }, 'parameter_invalid', 'currency'],
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
        expectError(await s.sandbox('POST', '/payment-intents', { raw: '"1500"', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json', null);
        expectError(await s.sandbox('POST', '/payment-intents', { raw: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json', null);
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
      const refs = await s.running.database.db.selectFrom('payment_intents').select('id').where('merchant_reference', '=', 'idem-1').execute();
      expect(refs.map((r) => r.id)).toEqual([a.json.id]);

      const c = await create({ ...body, amount: '778' }, { headers: { 'idempotency-key': key } });
      expectError(c, 409, 'idempotency_conflict', 'Idempotency-Key', 'idempotency_error');
      expect(await h.count('payment_intents')).toBe(before.intents + 1);

      // without a key, two identical requests are two intents
      const d = await createOk(body);
      const e = await createOk(body);
      expect(d.id).not.toBe(e.id);
    });
  });

  describe('GET /payment-intents and /payment-intents/{id}', () => {
    let m: CreatedMerchant;
    const ids: string[] = [];

    beforeAll(async () => {
      m = await s.newMerchant({ verified: true, name: 'List merchant' });
      for (let i = 0; i < 23; i++) {
        const r = await create({ amount: `${i + 1}.00`, currency: 'USD', merchant_reference: `L${i}` }, { key: m.keys.test_secret });
        expect(r.status, r.text).toBe(201);
        ids.push(r.json.id);
      }
    });

    const list = (query: string, key = m.keys.test_secret, env: 'test' | 'live' = 'test') => s.call(env, 'GET', `/payment-intents${query}`, { key });

    it('lists newest first, 20 by default, then the rest after starting_after', async () => {
      const first = await list('');
      expect(first.status, first.text).toBe(200);
      expect(Object.keys(first.json).sort()).toEqual(['data', 'environment', 'has_more', 'livemode', 'object', 'request_id']);
      expect(first.json.object).toBe('list');
      expect(first.json.data).toHaveLength(20);
      expect(first.json.has_more).toBe(true);
      for (const pi of first.json.data) expect(Object.keys(pi).sort()).toEqual([...INTENT_KEYS].sort());
      const second = await list(`?starting_after=${first.json.data[19].id}`);
      expect(second.status, second.text).toBe(200);
      expect(second.json.data).toHaveLength(3);
      expect(second.json.has_more).toBe(false);
      const all = [...first.json.data, ...second.json.data];
      expect(new Set(all.map((p: { id: string }) => p.id))).toEqual(new Set(ids));
      expect(all).toHaveLength(23);
      const times = all.map((p: { created_at: string }) => Date.parse(p.created_at));
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]!);
      // the first created is last, the last created first (they are at least a request apart)
      expect(all[22].merchant_reference).toBe('L0');
      expect(all[0].merchant_reference).toBe('L22');
    });

    it('honours limit and filters by status', async () => {
      const five = await list('?limit=5');
      expect(five.json.data).toHaveLength(5);
      expect(five.json.has_more).toBe(true);
      const cancelled = [ids[3]!, ids[10]!];
      for (const id of cancelled) expect((await s.call('test', 'POST', `/payment-intents/${id}/cancel`, { key: m.keys.test_secret })).status).toBe(200);
      const c = await list('?status=cancelled');
      expect(c.status, c.text).toBe(200);
      expect(c.json.data.map((p: { id: string }) => p.id).sort()).toEqual([...cancelled].sort());
      expect(c.json.data.every((p: { status: string }) => p.status === 'cancelled')).toBe(true);
      expect(c.json.has_more).toBe(false);
      const a = await list('?status=awaiting_payment&limit=100');
      expect(a.json.data).toHaveLength(21);
      expect(a.json.data.some((p: { id: string }) => cancelled.includes(p.id))).toBe(false);
      const paid = await list('?status=paid');
      expect(paid.json.data).toEqual([]);
      expect(paid.json.has_more).toBe(false);
    });

    it('refuses a bad status, limit or cursor: 400 naming the parameter', async () => {
      expectError(await list('?status=bogus'), 400, 'parameter_invalid', 'status');
      expectError(await list('?limit=0'), 400, 'parameter_invalid', 'limit');
      expectError(await list('?limit=101'), 400, 'parameter_invalid', 'limit');
      expectError(await list('?starting_after=pi_nope'), 400, 'parameter_invalid', 'starting_after');
      expectError(await list('?colour=red'), 400, 'parameter_unknown', 'colour');
      // another merchant's intent is no cursor here
      const theirs = await createOk({ amount: '1', currency: 'USD' }, { key: other.keys.test_secret });
      expectError(await list(`?starting_after=${theirs.id}`), 400, 'parameter_invalid', 'starting_after');
    });

    it('keeps environments apart: live lists see live intents only', async () => {
      const live = await createOk({ amount: '3', currency: 'USD' }, { env: 'live', key: m.keys.live_secret! });
      const l = await list('', m.keys.live_secret!, 'live');
      expect(l.status, l.text).toBe(200);
      expect(l.json.data.map((p: { id: string }) => p.id)).toEqual([live.id]);
      expect(l.json.livemode).toBe(true);
      const t = await list('?limit=100');
      expect(t.json.data.some((p: { id: string }) => p.id === live.id)).toBe(false);
    });

    it('refuses unknown query parameters on retrieve and on the sandbox clock: 400 parameter_unknown', async () => {
      expectError(await s.call('test', 'GET', `/payment-intents/${ids[0]}?expand=customer`, { key: m.keys.test_secret }), 400, 'parameter_unknown', 'expand');
      expectError(await s.call('test', 'GET', '/sandbox/clock?tz=UTC', { key: m.keys.test_secret }), 400, 'parameter_unknown', 'tz');
    });

    it('retrieves an intent exactly as created', async () => {
      const created = await create({ amount: '42', currency: 'EUR', metadata: { k: 'v' } }, { key: m.keys.test_secret });
      const r = await s.call('test', 'GET', `/payment-intents/${created.json.id}`, { key: m.keys.test_secret });
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      expect(record(r.json)).toEqual(record(created.json));
      expect(r.json.request_id).not.toBe(created.json.request_id);
    });

    it('answers 404 resource_missing for an unknown id, another merchant and the other environment', async () => {
      for (const id of ['pi_000000000000000000000000', 'pi_nope', 'cus_123']) {
        expectError(await s.sandbox('GET', `/payment-intents/${id}`), 404, 'resource_missing', 'id');
      }
      const mine = await createOk({ amount: '1', currency: 'USD' });
      expectError(await s.call('test', 'GET', `/payment-intents/${mine.id}`, { key: other.keys.test_secret }), 404, 'resource_missing', 'id');
      expectError(await s.call('test', 'GET', `/payment-intents/${ids[0]}`), 401, 'invalid_api_key', null, 'authentication_error');
      const live = await createOk({ amount: '1', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const a = await s.sandbox('GET', `/payment-intents/${live.id}`);
      expectError(a, 404, 'resource_missing', 'id');
      const b = await s.call('live', 'GET', `/payment-intents/${mine.id}`, { key: s.merchant.keys.live_secret! });
      expectError(b, 404, 'resource_missing', 'id');
      expect(b.json.livemode).toBe(true);
    });
  });

  describe('POST /payment-intents/{id}/cancel', () => {
    it('cancels an intent awaiting payment, once: 200 then 409 intent_not_cancelable', async () => {
      const pi = await createOk({ amount: '300', currency: 'KES' });
      const t0 = Date.now();
      const r = await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      const t1 = Date.now();
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      expect(r.json.status).toBe('cancelled');
      expect(r.json.cancelled_at).toMatch(ISO_RE);
      const at = Date.parse(r.json.cancelled_at);
      expect(at).toBeGreaterThanOrEqual(t0 - 5);
      expect(at).toBeLessThanOrEqual(t1 + 5);
      expect({ ...record(r.json), status: 'awaiting_payment', cancelled_at: null }).toEqual(record(pi));
      const row = await h.row(pi.id);
      expect(row.status).toBe('cancelled');
      expect(Number(row.cancelled_at)).toBe(at);
      let events = await h.events(pi.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
      expect(events[1]!.payload.data).toEqual(record(r.json));
      expect(events[1]!.payload.created_at).toBe(r.json.cancelled_at);

      const again = await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      expectError(again, 409, 'intent_not_cancelable', null);
      expect(again.json.error.message).toContain('cancelled');
      events = await h.events(pi.id);
      expect(events).toHaveLength(2);
      expect((await s.sandbox('GET', `/payment-intents/${pi.id}`)).json.status).toBe('cancelled');
    });

    it('answers 404 for an unknown id and for another merchant (whose intent stays as it is)', async () => {
      expectError(await s.sandbox('POST', '/payment-intents/pi_000000000000000000000000/cancel'), 404, 'resource_missing', 'id');
      const theirs = await createOk({ amount: '1', currency: 'USD' }, { key: other.keys.test_secret });
      expectError(await s.sandbox('POST', `/payment-intents/${theirs.id}/cancel`), 404, 'resource_missing', 'id');
      expect((await h.row(theirs.id)).status).toBe('awaiting_payment');
      expect(await h.events(theirs.id)).toHaveLength(1);
    });

    it('cancels live intents with a live key', async () => {
      const live = await createOk({ amount: '20', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const r = await s.call('live', 'POST', `/payment-intents/${live.id}/cancel`, { key: s.merchant.keys.live_secret! });
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('cancelled');
      expect(r.json.livemode).toBe(true);
      const events = await h.events(live.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
      expect(events.every((e) => e.environment === 'live' && e.payload.livemode === true)).toBe(true);
    });
  });

  describe('sandbox helpers', () => {
    it('refuses live keys on every sandbox endpoint: 400 sandbox_only, nothing moved', async () => {
      const live = await createOk({ amount: '20', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const key = s.merchant.keys.live_secret!;
      const before = { events: await h.count('events'), attempts: await h.count('payment_attempts') };
      for (const [method, path, body] of [
        ['GET', '/sandbox/clock', undefined],
        ['POST', '/sandbox/clock/advance', { seconds: 3600 }],
        ['POST', `/sandbox/payment-intents/${live.id}/simulate`, { outcome: 'success', payment_method: 'service_balance' }],
      ] as const) {
        const r = await s.call('live', method, path, { key, body });
        expectError(r, 400, 'sandbox_only', null);
        expect(r.json.environment).toBe('live');
        expect(r.json.livemode).toBe(true);
      }
      expect((await h.row(live.id)).status).toBe('awaiting_payment');
      expect(await h.count('events')).toBe(before.events);
      expect(await h.count('payment_attempts')).toBe(before.attempts);
      const clock = await s.running.database.db.selectFrom('sandbox_clocks').selectAll().where('merchant_id', '=', s.merchant.merchant.id).execute();
      expect(clock).toEqual([]);
    });

    it('reads and advances the sandbox clock of one merchant only', async () => {
      const m = await s.newMerchant({ name: 'Clock merchant' });
      const call = (method: string, path: string, body?: unknown, key = m.keys.test_secret) => s.call('test', method, path, { key, body });
      const t0 = Date.now();
      const r0 = await call('GET', '/sandbox/clock');
      expect(r0.status, r0.text).toBe(200);
      expect(Object.keys(r0.json).sort()).toEqual(['environment', 'livemode', 'now', 'object', 'offset_seconds', 'request_id']);
      expect(r0.json.object).toBe('sandbox_clock');
      expect(r0.json.offset_seconds).toBe(0);
      expect(r0.json.now).toMatch(ISO_RE);
      expect(Date.parse(r0.json.now)).toBeGreaterThanOrEqual(t0 - 5);
      expect(Date.parse(r0.json.now)).toBeLessThanOrEqual(Date.now() + 5);

      const t1 = Date.now();
      const a = await call('POST', '/sandbox/clock/advance', { seconds: 90 });
      expect(a.status, a.text).toBe(200);
      expect(a.json.object).toBe('sandbox_clock');
      expect(a.json.offset_seconds).toBe(90);
      expect(Date.parse(a.json.now)).toBeGreaterThanOrEqual(t1 + 90_000 - 5);
      expect(Date.parse(a.json.now)).toBeLessThanOrEqual(Date.now() + 90_000 + 5);
      const b = await call('POST', '/sandbox/clock/advance', { seconds: 10 });
      expect(b.json.offset_seconds).toBe(100);
      const r1 = await call('GET', '/sandbox/clock');
      expect(r1.json.offset_seconds).toBe(100);
      expect(Date.parse(r1.json.now) - Date.now()).toBeGreaterThan(99_000);

      // another merchant's sandbox time has not moved
      const mine = await s.sandbox('GET', '/sandbox/clock');
      expect(mine.json.offset_seconds).toBe(0);

      // what a sandbox intent created now says
      const pi = await createOk({ amount: '10', currency: 'USD' }, { key: m.keys.test_secret });
      expect(Date.parse(pi.created_at) - Date.now()).toBeGreaterThan(99_000);
    });

    it('validates the advance: whole seconds from 1 to 34,560,000', async () => {
      const m = await s.newMerchant({ name: 'Far future merchant' });
      const call = (body: unknown) => s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body });
      for (const seconds of [0, -1, 1.5, '60', null, 34_560_001]) expectError(await call({ seconds }), 400, 'parameter_invalid', 'seconds');
      expectError(await call({}), 400, 'parameter_missing', 'seconds');
      expectError(await call({ seconds: 1, days: 1 }), 400, 'parameter_unknown', 'days');
      expect((await s.call('test', 'GET', '/sandbox/clock', { key: m.keys.test_secret })).json.offset_seconds).toBe(0);
      const max = await call({ seconds: 34_560_000 });
      expect(max.status, max.text).toBe(200);
      expect(max.json.offset_seconds).toBe(34_560_000);
    });
  });

  describe('expiry by the sandbox clock', () => {
    it('expires an intent once its expires_at passes: retrieve, list filter, one expired event at the moment of expiry', async () => {
      const m = await s.newMerchant({ name: 'Expiry merchant' });
      const key = m.keys.test_secret;
      const short = await createOk({ amount: '100', currency: 'KES', expires_in_minutes: 1 }, { key });
      const long = await createOk({ amount: '100', currency: 'KES' }, { key });
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 61 } });
      expect(adv.status, adv.text).toBe(200);
      // the advance ran the sweep at once: the row is expired before anybody reads it
      expect((await h.row(short.id)).status).toBe('expired');
      expect((await h.row(long.id)).status).toBe('awaiting_payment');

      const r = await s.call('test', 'GET', `/payment-intents/${short.id}`, { key });
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('expired');
      expect(r.json.expires_at).toBe(short.expires_at);
      expect(r.json.cancelled_at).toBeNull();
      const awaiting = await s.call('test', 'GET', '/payment-intents?status=awaiting_payment', { key });
      expect(awaiting.json.data.map((p: { id: string }) => p.id)).toEqual([long.id]);
      const expired = await s.call('test', 'GET', '/payment-intents?status=expired', { key });
      expect(expired.json.data.map((p: { id: string }) => p.id)).toEqual([short.id]);
      expect(expired.json.data[0].status).toBe('expired');

      const events = await h.events(short.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      const ev = events[1]!;
      expect(ev.payload.created_at).toBe(short.expires_at);
      expect(Number(ev.created_at)).toBe(Date.parse(short.expires_at));
      expect(ev.payload.data).toEqual({ ...record(short), status: 'expired' });
      expect(ev.payload).toMatchObject({ object: 'event', api_version: '2026-06-01', livemode: false, type: 'payment_intent.expired' });
      expect((await h.events(long.id)).map((e) => e.type)).toEqual(['payment_intent.created']);

      // more time, more reads, a cancel and a payment: still exactly one expired event
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 61 } });
      await s.call('test', 'GET', `/payment-intents/${short.id}`, { key });
      expectError(await s.call('test', 'POST', `/payment-intents/${short.id}/cancel`, { key }), 409, 'intent_not_cancelable', null);
      expectError(
        await s.call('test', 'POST', `/sandbox/payment-intents/${short.id}/simulate`, { key, body: { outcome: 'success', payment_method: 'mpesa' } }),
        409,
        'intent_not_payable',
        null,
      );
      expect((await h.events(short.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      expect(await h.attempts(short.id)).toEqual([]);
    });

    it('does not expire live intents when the sandbox clock moves', async () => {
      const m = await s.newMerchant({ name: 'Live expiry merchant', verified: true });
      const live = await createOk({ amount: '10', currency: 'USD', expires_in_minutes: 1 }, { env: 'live', key: m.keys.live_secret! });
      await s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body: { seconds: 3600 } });
      expect((await h.row(live.id)).status).toBe('awaiting_payment');
      const r = await s.call('live', 'GET', `/payment-intents/${live.id}`, { key: m.keys.live_secret! });
      expect(r.json.status).toBe('awaiting_payment');
    });
  });

  describe('receiving caps', () => {
    const simulate = (key: string, id: string, outcome: string, payment_method = 'service_balance', amount?: string) =>
      s.call('test', 'POST', `/sandbox/payment-intents/${id}/simulate`, { key, body: { outcome, payment_method, ...(amount ? { amount } : {}) } });
    const usdt = (d: Decimal.Value) => new D(d).mul('1.0002');

    it('declines a payment over the per-payment cap with 402 MERCHANT_LIMIT_EXCEEDED; the intent keeps awaiting payment', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Capped merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: '10' });
      const key = m.keys.test_secret;
      const big = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect(big.pay_amount).toBe('11.607590');
      const before = await h.count('events');
      for (const outcome of ['success', 'overpaid', 'review']) {
        const r = await simulate(key, big.id, outcome);
        expectError(r, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
        expect(r.json.error.message).toMatch(/per-payment/);
      }
      expect(await h.count('events')).toBe(before);
      const got = await s.call('test', 'GET', `/payment-intents/${big.id}`, { key });
      expect(got.json).toMatchObject({ status: 'awaiting_payment', amount_received: '0.000000', payment_method: null, paid_at: null });
      const attempts = await h.attempts(big.id);
      expect(attempts).toHaveLength(3);
      for (const a of attempts) {
        expect(a).toMatchObject({
          merchant_id: m.merchant.id,
          environment: 'test',
          outcome: 'declined',
          failure_code: 'MERCHANT_LIMIT_EXCEEDED',
          counts_to_caps: 0,
          asset: 'USDT',
          payment_method: 'service_balance',
        });
      }
      expect(attempts.map((a) => a.amount).sort()).toEqual(['11.607590', '11.607590', up(new D('11.607590').mul('1.1'), 6)].sort());
      expect(new D(attempts.find((a) => a.amount === '11.607590')!.usd_value).eq(usdt('11.607590'))).toBe(true);
      expect((await h.events(big.id)).map((e) => e.type)).toEqual(['payment_intent.created']);

      // under the cap is fine: 1000 KES is 7.738393 USDT
      const small = await createOk({ amount: '1000', currency: 'KES' }, { key });
      const ok = await simulate(key, small.id, 'success', 'mpesa');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.status).toBe('paid');
      const [accepted] = await h.attempts(small.id);
      expect(accepted).toMatchObject({ outcome: 'success', counts_to_caps: 1, amount: small.pay_amount, payment_method: 'mpesa' });
      expect(new D(accepted!.usd_value).eq(usdt(small.pay_amount))).toBe(true);

      // removing the cap lets the big one through
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: 'none' });
      const paid = await simulate(key, big.id, 'success');
      expect(paid.status, paid.text).toBe(200);
      expect(paid.json.status).toBe('paid');
    });

    it('counts earlier accepted payments, not declined ones, against the rolling 24-hour cap', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Daily cap merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { daily: '20' });
      const key = m.keys.test_secret;
      const first = await createOk({ amount: '1500', currency: 'KES' }, { key }); // 11.61 USD
      expect((await simulate(key, first.id, 'success')).status).toBe(200);
      const second = await createOk({ amount: '1500', currency: 'KES' }, { key }); // +11.61 > 20
      const declined = await simulate(key, second.id, 'success');
      expectError(declined, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect(declined.json.error.message).toMatch(/daily/);
      expect((await h.row(second.id)).status).toBe('awaiting_payment');
      expect((await h.attempts(second.id)).map((a) => [a.outcome, a.counts_to_caps])).toEqual([['declined', 0]]);
      // 500 KES (3.87 USD) still fits: 11.61 + 3.87 <= 20 because the declined attempt does not count
      const third = await createOk({ amount: '500', currency: 'KES' }, { key });
      const ok = await simulate(key, third.id, 'success');
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.status).toBe('paid');
      // an underpayment that would cross it (15.48 + 5.00 > 20) is declined too
      const fourth = await createOk({ amount: '2000', currency: 'KES' }, { key });
      expectError(await simulate(key, fourth.id, 'underpaid', 'mpesa', '5.000000'), 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect((await h.row(fourth.id)).amount_received).toBe('0.000000');

      // a day later (merchant's clock) the window has rolled past the earlier payments
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 86_401 } });
      const later = await createOk({ amount: '1500', currency: 'KES' }, { key });
      const laterPay = await simulate(key, later.id, 'success');
      expect(laterPay.status, laterPay.text).toBe(200);
      expect(laterPay.json.status).toBe('paid');
    });

    it('applies the rolling 30-day cap', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Monthly cap merchant' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { monthly: '15' });
      const key = m.keys.test_secret;
      const first = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect((await simulate(key, first.id, 'success')).status).toBe(200);
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 2 * 86_400 } });
      const second = await createOk({ amount: '1500', currency: 'KES' }, { key });
      const r = await simulate(key, second.id, 'success');
      expectError(r, 402, 'MERCHANT_LIMIT_EXCEEDED', null);
      expect(r.json.error.message).toMatch(/monthly/);
      await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 29 * 86_400 } });
      const third = await createOk({ amount: '1500', currency: 'KES' }, { key });
      expect((await simulate(key, third.id, 'success')).json.status).toBe('paid');
    });
  });
});

describe(`payment intent expiry before any sweep (${ENGINE})`, () => {
  // Jobs every 60 s: after the first tick at start, no sweep runs during these tests.
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let s: TestServer;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => s?.stop());

  const create = async (body: Record<string, unknown>) => {
    const r = await s.sandbox('POST', '/payment-intents', { body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };

  it('shows an overdue intent as expired on retrieve, recording the expiry once, at expires_at', async () => {
    const a = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    expect(a.created_at).toBe(new Date(clock.nowMs()).toISOString());
    clock.advance(60_000 - 1);
    expect((await s.sandbox('GET', `/payment-intents/${a.id}`)).json.status).toBe('awaiting_payment');
    clock.advance(1); // exactly expires_at
    expect((await h.row(a.id)).status).toBe('awaiting_payment'); // nothing has swept it
    const r = await s.sandbox('GET', `/payment-intents/${a.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe('expired');
    expect((await h.row(a.id)).status).toBe('expired');
    const events = await h.events(a.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    expect(events[1]!.payload.created_at).toBe(a.expires_at);
    expect(events[1]!.payload.data.status).toBe('expired');
    await s.sandbox('GET', `/payment-intents/${a.id}`);
    expect(await h.events(a.id)).toHaveLength(2);
  });

  it('never lists an overdue intent as awaiting payment', async () => {
    const b = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    const c = await create({ amount: '10', currency: 'USD', expires_in_minutes: 5 });
    clock.advance(2 * 60_000);
    expect((await h.row(b.id)).status).toBe('awaiting_payment');
    const l = await s.sandbox('GET', '/payment-intents?status=awaiting_payment');
    expect(l.status, l.text).toBe(200);
    const listed = l.json.data.map((p: { id: string }) => p.id);
    expect(listed).toContain(c.id);
    expect(listed).not.toContain(b.id);
    const all = await s.sandbox('GET', '/payment-intents?limit=100');
    expect(all.json.data.find((p: { id: string }) => p.id === b.id).status).toBe('expired');
    expect((await h.events(b.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
  });

  it('refuses to cancel or pay an overdue intent, and records its expiry instead', async () => {
    const d = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    const e = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    clock.advance(61_000);
    const cancel = await s.sandbox('POST', `/payment-intents/${d.id}/cancel`);
    expectError(cancel, 409, 'intent_not_cancelable', null);
    expect(cancel.json.error.message).toContain('expired');
    expect((await h.events(d.id)).map((x) => x.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    const pay = await s.sandbox('POST', `/sandbox/payment-intents/${e.id}/simulate`, { body: { outcome: 'success', payment_method: 'card' } });
    expectError(pay, 409, 'intent_not_payable', null);
    expect((await h.events(e.id)).map((x) => x.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    expect((await h.row(e.id)).status).toBe('expired');
    expect(await h.attempts(e.id)).toEqual([]);
  });

  it('shows an overdue intent as expired on its checkout page', async () => {
    const f = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    clock.advance(61_000);
    const res = await fetch(s.url('test', `/checkout/${f.id}`));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/expired/i);
    expect(html).not.toMatch(/awaiting[ _]payment/i);
  });
});

describe(`payment intent expiry by the background sweep (${ENGINE})`, () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let s: TestServer;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { COWRIE_JOB_INTERVAL_MS: '50' } });
  });
  afterAll(async () => s?.stop());

  it('expires intents nobody reads, once each, and leaves the others', async () => {
    const created = await Promise.all(
      [1, 1, 10].map((minutes) => s.sandbox('POST', '/payment-intents', { body: { amount: '10', currency: 'USD', expires_in_minutes: minutes } })),
    );
    const [a, b, c] = created.map((r) => {
      expect(r.status, r.text).toBe(201);
      return r.json;
    });
    await new Promise((r) => setTimeout(r, 200)); // several sweeps with nothing due
    expect((await h.row(a.id)).status).toBe('awaiting_payment');
    clock.advance(61_000);
    const swept = await waitFor(async () => (await h.row(a.id)).status === 'expired' && (await h.row(b.id)).status === 'expired', 5000);
    expect(swept).toBe(true);
    await new Promise((r) => setTimeout(r, 200)); // more sweeps: nothing more happens
    for (const x of [a, b]) {
      const events = await h.events(x.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      expect(events[1]!.payload.created_at).toBe(x.expires_at);
    }
    expect((await h.row(c.id)).status).toBe('awaiting_payment');
    expect(await h.events(c.id)).toHaveLength(1);
  });
});
