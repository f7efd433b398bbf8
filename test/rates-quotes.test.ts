// Rates and quotes (api-reference "Amounts, currencies and rates"): the rate table as GET /rates shows it,
// quotes on both sides with the rounding written down once (always up), the 10-minute lock on the merchant's
// clock, and every validation error.
import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';

// The test's own arithmetic: a separate Decimal with more precision than any value here needs.
const D = Decimal.clone({ precision: 100 });

const TABLE = JSON.parse(readFileSync(new URL('../config/rates.json', import.meta.url), 'utf8')) as {
  updated_at: string;
  prices: Record<string, Record<string, string>>;
};
const FIAT: Record<string, number> = { KES: 2, USD: 2, EUR: 2, GBP: 2, NGN: 2, TZS: 2, GHS: 2, ZAR: 2, UGX: 0, RWF: 0 };
const ASSETS: Record<string, number> = { USDT: 6, USDC: 6, BTC: 8, ETH: 18, SOL: 9 };
const DECIMAL_RE = /^[0-9]+(\.[0-9]+)?$/;
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const QUOTE_KEYS = [
  'id',
  'object',
  'source_currency',
  'target_asset',
  'side',
  'rate',
  'source_amount',
  'target_amount',
  'expires_at',
  'created_at',
  'livemode',
  'request_id',
  'environment',
].sort();

/** Rounded up (towards +infinity; every amount here is positive) to `places` decimals, as a fixed string. */
function up(value: Decimal, places: number): string {
  return value.toDecimalPlaces(places, Decimal.ROUND_CEIL).toFixed(places);
}

function price(asset: string, fiat: string): Decimal {
  return new D(TABLE.prices[asset]![fiat]!);
}

/** A fiat amount with the currency's decimals that does not divide evenly. */
function fiatAmountFor(currency: string): string {
  return FIAT[currency] === 0 ? '123457' : '1234.57';
}

describe(`rates and quotes (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  async function quoteCount(): Promise<number> {
    const row = await s.running.database.db
      .selectFrom('quotes')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('GET /rates', () => {
    it('answers every settlement asset priced in every fiat currency, exactly as the rate table says', async () => {
      const r = await s.sandbox('GET', '/rates');
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(['data', 'environment', 'livemode', 'object', 'request_id']);
      expect(r.json.object).toBe('rates');
      expect(r.json.environment).toBe('test');
      expect(r.json.livemode).toBe(false);
      expect(r.json.request_id).toBe(r.headers.get('service-request-id'));
      expect(r.json.data.map((d: { asset: string }) => d.asset)).toEqual(['USDT', 'USDC', 'BTC', 'ETH', 'SOL']);
      for (const entry of r.json.data) {
        expect(Object.keys(entry).sort()).toEqual(['asset', 'prices', 'updated_at']);
        expect(Object.keys(entry.prices).sort()).toEqual(Object.keys(FIAT).sort());
        for (const [fiat, text] of Object.entries(entry.prices)) {
          expect(text, `${entry.asset}/${fiat}`).toMatch(DECIMAL_RE);
          expect(text).toBe(TABLE.prices[entry.asset]![fiat]);
          expect(new D(text as string).gt(0)).toBe(true);
        }
        expect(entry.updated_at).toBe(TABLE.updated_at);
        expect(entry.updated_at).toMatch(ISO_RE);
      }
    });

    it('answers the same table to a live key, with livemode true', async () => {
      const sandbox = await s.sandbox('GET', '/rates');
      const live = await s.call('live', 'GET', '/rates', { key: s.merchant.keys.live_secret! });
      expect(live.status, live.text).toBe(200);
      expect(live.json.livemode).toBe(true);
      expect(live.json.environment).toBe('live');
      expect(live.json.data).toEqual(sandbox.json.data);
    });

    it('takes no query parameters: 400 parameter_unknown', async () => {
      expectError(await s.sandbox('GET', '/rates?asset=BTC'), 400, 'parameter_unknown', 'asset');
    });
  });

  describe('POST /quotes, customer_pays', () => {
    it('matches the reference example: 1500 KES buys 11.607590 USDT (rounded up, not to nearest)', async () => {
      const r = await s.sandbox('POST', '/quotes', { body: { source_currency: 'KES', target_asset: 'USDT', amount: '1500' } });
      expect(r.status, r.text).toBe(200);
      expect(r.json.side).toBe('customer_pays');
      expect(r.json.rate).toBe('129.2258');
      expect(r.json.source_amount).toBe('1500.00');
      // 1500 / 129.2258 = 11.6075892...: nearest rounding would give 11.607589
      expect(r.json.target_amount).toBe('11.607590');
    });

    it('converts every currency into every asset: target = amount / rate rounded up to the asset decimals', async () => {
      for (const currency of Object.keys(FIAT)) {
        for (const asset of Object.keys(ASSETS)) {
          const amount = fiatAmountFor(currency);
          const t0 = Date.now();
          const r = await s.sandbox('POST', '/quotes', { body: { source_currency: currency, target_asset: asset, amount } });
          const t1 = Date.now();
          expect(r.status, `${currency}->${asset}: ${r.text}`).toBe(200);
          expect(Object.keys(r.json).sort()).toEqual(QUOTE_KEYS);
          expect(r.json.id).toMatch(/^qt_[0-9A-Za-z]+$/);
          expect(r.json.object).toBe('quote');
          expect(r.json.source_currency).toBe(currency);
          expect(r.json.target_asset).toBe(asset);
          expect(r.json.side).toBe('customer_pays');
          expect(r.json.rate).toMatch(DECIMAL_RE);
          expect(new D(r.json.rate).eq(price(asset, currency)), `${currency}->${asset} rate ${r.json.rate}`).toBe(true);
          expect(r.json.source_amount).toBe(new D(amount).toFixed(FIAT[currency]!));
          expect(r.json.target_amount, `${currency}->${asset}`).toBe(up(new D(amount).div(price(asset, currency)), ASSETS[asset]!));
          expect(r.json.livemode).toBe(false);
          expect(r.json.environment).toBe('test');
          const created = Date.parse(r.json.created_at);
          expect(r.json.created_at).toMatch(ISO_RE);
          expect(created).toBeGreaterThanOrEqual(t0 - 5);
          expect(created).toBeLessThanOrEqual(t1 + 5);
          expect(Date.parse(r.json.expires_at) - created).toBe(10 * 60_000);
        }
      }
    });

    it('rounds a result that would round down to nearest up by one unit of the last decimal', async () => {
      // 100 USD / 1.0002 = 99.98000399920...: the 7th decimal is 3, so rounding to nearest would keep 99.980003.
      const r = await s.sandbox('POST', '/quotes', {
        body: { source_currency: 'USD', target_asset: 'USDT', amount: '100', side: 'customer_pays' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.target_amount).toBe('99.980004');
      expect(r.json.source_amount).toBe('100.00');
      // An exact division is not rounded: 190500 USD is exactly 2 BTC.
      const exact = await s.sandbox('POST', '/quotes', { body: { source_currency: 'USD', target_asset: 'BTC', amount: '190500.00' } });
      expect(exact.status, exact.text).toBe(200);
      expect(exact.json.target_amount).toBe('2.00000000');
    });

    it('accepts every asset decimal count for UGX and RWF amounts without decimals', async () => {
      const r = await s.sandbox('POST', '/quotes', { body: { source_currency: 'UGX', target_asset: 'ETH', amount: '5000' } });
      expect(r.status, r.text).toBe(200);
      expect(r.json.source_amount).toBe('5000');
      expect(r.json.target_amount).toBe(up(new D('5000').div('12626250.0000'), 18));
      expect(r.json.target_amount).toMatch(/^0\.[0-9]{18}$/);
    });

    it('stores the quote in the quotes table exactly as answered', async () => {
      const before = await quoteCount();
      const r = await s.sandbox('POST', '/quotes', { body: { source_currency: 'EUR', target_asset: 'BTC', amount: '250.50' } });
      expect(r.status, r.text).toBe(200);
      expect(await quoteCount()).toBe(before + 1);
      const row = await s.running.database.db.selectFrom('quotes').selectAll().where('id', '=', r.json.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        merchant_id: s.merchant.merchant.id,
        environment: 'test',
        source_currency: 'EUR',
        target_asset: 'BTC',
        side: 'customer_pays',
        source_amount: '250.50',
        target_amount: up(new D('250.50').div('87630.0000'), 8),
      });
      expect(new D(row.rate).eq('87630')).toBe(true);
      expect(r.json.rate).toBe(row.rate);
      expect(Number(row.created_at)).toBe(Date.parse(r.json.created_at));
      expect(Number(row.expires_at)).toBe(Date.parse(r.json.expires_at));
      expect(Number(row.expires_at) - Number(row.created_at)).toBe(600_000);
    });

    it('locks live quotes too: environment live, livemode true', async () => {
      const r = await s.call('live', 'POST', '/quotes', {
        key: s.merchant.keys.live_secret!,
        body: { source_currency: 'KES', target_asset: 'USDC', amount: '1500.00' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.livemode).toBe(true);
      expect(r.json.environment).toBe('live');
      expect(r.json.target_amount).toBe(up(new D('1500').div('129.1871'), 6));
      const row = await s.running.database.db.selectFrom('quotes').selectAll().where('id', '=', r.json.id).executeTakeFirstOrThrow();
      expect(row.environment).toBe('live');
    });
  });

  describe('POST /quotes, merchant_receives', () => {
    it('prices every asset amount in every currency: source = amount * rate rounded up to the fiat decimals', async () => {
      const amounts: Record<string, string> = {
        USDT: '11.607591',
        USDC: '7.123457',
        BTC: '0.00123457',
        ETH: '0.012345678901234567',
        SOL: '1.234567891',
      };
      for (const currency of Object.keys(FIAT)) {
        for (const asset of Object.keys(ASSETS)) {
          const amount = amounts[asset]!;
          const r = await s.sandbox('POST', '/quotes', {
            body: { source_currency: currency, target_asset: asset, amount, side: 'merchant_receives' },
          });
          expect(r.status, `${asset}->${currency}: ${r.text}`).toBe(200);
          expect(Object.keys(r.json).sort()).toEqual(QUOTE_KEYS);
          expect(r.json.side).toBe('merchant_receives');
          expect(r.json.target_amount).toBe(new D(amount).toFixed(ASSETS[asset]!));
          expect(r.json.source_amount, `${asset}->${currency}`).toBe(up(new D(amount).mul(price(asset, currency)), FIAT[currency]!));
          expect(Date.parse(r.json.expires_at) - Date.parse(r.json.created_at)).toBe(600_000);
        }
      }
    });

    it('rounds the fiat side up: 11.607591 USDT costs 1500.01 KES, 1 USDT costs 3701 UGX', async () => {
      // 11.607591 * 129.2258 = 1500.0001... -> 1500.01
      const a = await s.sandbox('POST', '/quotes', {
        body: { source_currency: 'KES', target_asset: 'USDT', amount: '11.607591', side: 'merchant_receives' },
      });
      expect(a.status, a.text).toBe(200);
      expect(a.json.source_amount).toBe('1500.01');
      expect(a.json.target_amount).toBe('11.607591');
      // 1 * 3700.74 -> 3701 (UGX has no decimals)
      const b = await s.sandbox('POST', '/quotes', {
        body: { source_currency: 'UGX', target_asset: 'USDT', amount: '1', side: 'merchant_receives' },
      });
      expect(b.status, b.text).toBe(200);
      expect(b.json.source_amount).toBe('3701');
      expect(b.json.target_amount).toBe('1.000000');
    });

    it('takes the asset amount with up to the asset decimals, not the currency decimals', async () => {
      const r = await s.sandbox('POST', '/quotes', {
        body: { source_currency: 'UGX', target_asset: 'BTC', amount: '0.12345678', side: 'merchant_receives' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json.target_amount).toBe('0.12345678');
      expect(r.json.source_amount).toBe(up(new D('0.12345678').mul('352425000'), 0));
    });
  });

  describe('quote lock follows the sandbox clock', () => {
    it('stamps sandbox quotes with the advanced sandbox time; live quotes keep real time', async () => {
      const m = await s.newMerchant({ verified: true, name: 'Clock merchant' });
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key: m.keys.test_secret, body: { seconds: 7200 } });
      expect(adv.status, adv.text).toBe(200);
      expect(adv.json.offset_seconds).toBe(7200);
      const t0 = Date.now();
      const r = await s.call('test', 'POST', '/quotes', {
        key: m.keys.test_secret,
        body: { source_currency: 'KES', target_asset: 'USDT', amount: '100' },
      });
      const t1 = Date.now();
      expect(r.status, r.text).toBe(200);
      const created = Date.parse(r.json.created_at);
      expect(created).toBeGreaterThanOrEqual(t0 + 7_200_000 - 5);
      expect(created).toBeLessThanOrEqual(t1 + 7_200_000 + 5);
      expect(Date.parse(r.json.expires_at)).toBe(created + 600_000);
      const row = await s.running.database.db.selectFrom('quotes').selectAll().where('id', '=', r.json.id).executeTakeFirstOrThrow();
      expect(Number(row.created_at)).toBe(created);
      expect(Number(row.expires_at)).toBe(created + 600_000);

      const live = await s.call('live', 'POST', '/quotes', {
        key: m.keys.live_secret!,
        body: { source_currency: 'KES', target_asset: 'USDT', amount: '100' },
      });
      const t2 = Date.now();
      expect(live.status, live.text).toBe(200);
      expect(Date.parse(live.json.created_at)).toBeLessThanOrEqual(t2 + 5);
      expect(Date.parse(live.json.created_at)).toBeGreaterThanOrEqual(t1 - 5);
      expect(Date.parse(live.json.expires_at) - Date.parse(live.json.created_at)).toBe(600_000);

      // Another merchant's sandbox time did not move.
      const mine = await s.sandbox('POST', '/quotes', { body: { source_currency: 'KES', target_asset: 'USDT', amount: '100' } });
      expect(Date.parse(mine.json.created_at)).toBeLessThanOrEqual(Date.now() + 5);
    });
  });

  describe('validation (400, param named, nothing stored)', () => {
    const valid = { source_currency: 'KES', target_asset: 'USDT', amount: '1500.00' };

    async function expectRefused(body: unknown, code: string, param: string): Promise<void> {
      const before = await quoteCount();
      const r = await s.sandbox('POST', '/quotes', { body });
      expectError(r, 400, code, param);
      expect(r.json.environment).toBe('test');
      expect(await quoteCount()).toBe(before);
    }

    it('names each missing required field: parameter_missing', async () => {
      for (const field of ['source_currency', 'target_asset', 'amount']) {
        const body: Record<string, unknown> = { ...valid };
        delete body[field];
        await expectRefused(body, 'parameter_missing', field);
      }
      await expectRefused({}, 'parameter_missing', 'source_currency');
    });

    it('refuses a JSON number, null, or a boolean as the amount', async () => {
      await expectRefused({ ...valid, amount: 1500 }, 'parameter_invalid', 'amount');
      await expectRefused({ ...valid, amount: 1500.5 }, 'parameter_invalid', 'amount');
      await expectRefused({ ...valid, amount: null }, 'parameter_invalid', 'amount');
      await expectRefused({ ...valid, amount: true }, 'parameter_invalid', 'amount');
    });

    it.each(['0', '0.00', '-1', '1.234', 'abc', '', ' 1', '1 ', '1.', '.5', '1e3', '+1', '1,500', '0x10', 'NaN', 'Infinity'])(
      'refuses the KES amount %j',
      async (amount) => {
        await expectRefused({ ...valid, amount }, 'parameter_invalid', 'amount');
      },
    );

    it('refuses decimals a unit does not have: UGX 1.5, USDT 7 decimals, BTC 9 decimals on merchant_receives', async () => {
      await expectRefused({ source_currency: 'UGX', target_asset: 'USDT', amount: '1500.5' }, 'parameter_invalid', 'amount');
      await expectRefused({ source_currency: 'RWF', target_asset: 'USDT', amount: '10.01' }, 'parameter_invalid', 'amount');
      await expectRefused({ ...valid, amount: '1.0000001', side: 'merchant_receives' }, 'parameter_invalid', 'amount');
      await expectRefused(
        { source_currency: 'KES', target_asset: 'BTC', amount: '0.123456789', side: 'merchant_receives' },
        'parameter_invalid',
        'amount',
      );
      await expectRefused(
        { source_currency: 'KES', target_asset: 'ETH', amount: '0.0000000000000000001', side: 'merchant_receives' },
        'parameter_invalid',
        'amount',
      );
      // a KES amount with 6 decimals is fine for merchant_receives in USDT (the amount is in the asset)
      const ok = await s.sandbox('POST', '/quotes', { body: { ...valid, amount: '1.123456', side: 'merchant_receives' } });
      expect(ok.status, ok.text).toBe(200);
    });

    it('accepts currency and asset codes in any case, answered upper case', async () => {
      const r = await s.sandbox('POST', '/quotes', { body: { ...valid, source_currency: 'kes', target_asset: 'usdt' } });
      expect(r.status, r.text).toBe(200);
      expect([r.json.source_currency, r.json.target_asset]).toEqual(['KES', 'USDT']);
    });

    it('refuses unknown or misplaced currency and asset codes', async () => {
      await expectRefused({ ...valid, source_currency: 'XYZ' }, 'parameter_invalid', 'source_currency');
      await expectRefused({ ...valid, source_currency: 'USDT' }, 'parameter_invalid', 'source_currency');
      await expectRefused({ ...valid, source_currency: '' }, 'parameter_invalid', 'source_currency');
      await expectRefused({ ...valid, source_currency: 'toString' }, 'parameter_invalid', 'source_currency');
      await expectRefused({ ...valid, source_currency: 404 }, 'parameter_invalid', 'source_currency');
      await expectRefused({ ...valid, target_asset: 'DOGE' }, 'parameter_invalid', 'target_asset');
      await expectRefused({ ...valid, target_asset: 'USD' }, 'parameter_invalid', 'target_asset');
      await expectRefused({ ...valid, target_asset: '__proto__' }, 'parameter_invalid', 'target_asset');
      await expectRefused({ ...valid, target_asset: ['USDT'] }, 'parameter_invalid', 'target_asset');
    });

    it('refuses a side that is not customer_pays or merchant_receives', async () => {
      await expectRefused({ ...valid, side: 'both' }, 'parameter_invalid', 'side');
      await expectRefused({ ...valid, side: 'CUSTOMER_PAYS' }, 'parameter_invalid', 'side');
      await expectRefused({ ...valid, side: null }, 'parameter_invalid', 'side');
      await expectRefused({ ...valid, side: 1 }, 'parameter_invalid', 'side');
    });

    it('refuses unknown fields: parameter_unknown', async () => {
      await expectRefused({ ...valid, fee: '1' }, 'parameter_unknown', 'fee');
      await expectRefused({ ...valid, rate: '100' }, 'parameter_unknown', 'rate');
    });

    it('refuses a body that is not a JSON object: invalid_json', async () => {
      const before = await quoteCount();
      const r = await s.sandbox('POST', '/quotes', { raw: '[1]', headers: { 'content-type': 'application/json' } });
      expectError(r, 400, 'invalid_json', null);
      const r2 = await s.sandbox('POST', '/quotes', { raw: '{"amount":', headers: { 'content-type': 'application/json' } });
      expectError(r2, 400, 'invalid_json', null);
      expect(await quoteCount()).toBe(before);
    });
  });
});
