// The variables of the reference prices, checked at start: `file` is the default; `http` with its defaults
// (Coinbase, every 60 s, stale after 600 s); a variable of the other source, a limit no longer than the
// refresh, a URL that is not http(s) or the same source twice stop the start with a message naming the
// variable. No database.
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RATES_FILE, loadConfig } from '../src/config.js';
import { combinePrices, medianOf, readAnswer } from '../src/modules/rates/index.js';
import { Decimal } from '../src/shared/money.js';

const D = (values: string[]) => values.map((v) => new Decimal(v));

describe('reference price configuration', () => {
  it('the rate table is the default', () => {
    expect(loadConfig({}).rates).toEqual({ source: 'file', file: DEFAULT_RATES_FILE });
    expect(loadConfig({ COWRIE_RATES_FILE: '/etc/cowrie/rates.json' }).rates).toEqual({ source: 'file', file: '/etc/cowrie/rates.json' });
  });

  it('http: Coinbase every 60 s, stale after 600 s, unless set; URLs comma-separated, trailing slashes dropped', () => {
    expect(loadConfig({ COWRIE_RATES_SOURCE: 'http' }).rates).toEqual({
      source: 'http',
      urls: ['https://api.coinbase.com'],
      refreshMs: 60_000,
      maxAgeMs: 600_000,
    });
    expect(
      loadConfig({
        COWRIE_RATES_SOURCE: 'http',
        COWRIE_RATES_URLS: 'https://a.example/, http://127.0.0.1:4920',
        COWRIE_RATES_REFRESH_S: '30',
        COWRIE_RATES_MAX_AGE_S: '300',
      }).rates,
    ).toEqual({ source: 'http', urls: ['https://a.example', 'http://127.0.0.1:4920'], refreshMs: 30_000, maxAgeMs: 300_000 });
  });

  it('refuses what would be ignored or cannot work, naming the variable', () => {
    const refused: Array<[Record<string, string>, RegExp]> = [
      [{ COWRIE_RATES_SOURCE: 'coinbase' }, /COWRIE_RATES_SOURCE/],
      [{ COWRIE_RATES_URLS: 'https://a.example' }, /COWRIE_RATES_URLS is set but COWRIE_RATES_SOURCE is not http/],
      [{ COWRIE_RATES_MAX_AGE_S: '900' }, /COWRIE_RATES_MAX_AGE_S is set but COWRIE_RATES_SOURCE is not http/],
      [{ COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_FILE: '/x.json' }, /COWRIE_RATES_FILE is set but COWRIE_RATES_SOURCE is http/],
      [{ COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_URLS: 'ftp://a.example' }, /COWRIE_RATES_URLS/],
      [
        { COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_URLS: 'https://a.example,https://a.example/' },
        /COWRIE_RATES_URLS names a source twice/,
      ],
      [{ COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_REFRESH_S: '0' }, /COWRIE_RATES_REFRESH_S/],
      [
        { COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_REFRESH_S: '600' },
        /COWRIE_RATES_MAX_AGE_S \(600\) must exceed COWRIE_RATES_REFRESH_S \(600\)/,
      ],
      [{ COWRIE_RATES_SOURCE: 'http', COWRIE_RATES_MAX_AGE_S: 'soon' }, /COWRIE_RATES_MAX_AGE_S/],
    ];
    for (const [env, message] of refused) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });
});

describe('one price from several sources', () => {
  it('the median: the middle answer, or the mean of the two middle ones', () => {
    expect(medianOf(D(['3', '1', '2'])).toFixed()).toBe('2');
    expect(medianOf(D(['4', '1', '3', '2'])).toFixed()).toBe('2.5');
    expect(medianOf(D(['129.2258'])).toFixed()).toBe('129.2258');
  });

  it('a source more than 2 % from the median of all is left out of it; exactly 2 % is not', () => {
    const answers = (values: string[]) => values.map((v, i) => ({ source: `s${i}`, price: new Decimal(v) }));
    expect(combinePrices(answers(['99', '100', '102'])).price!.toFixed()).toBe('100');
    const out = combinePrices(answers(['99', '100', '102.01']));
    expect(out.price!.toFixed()).toBe('99.5');
    expect(out.left.map((l) => l.source)).toEqual(['s2']);
    expect(combinePrices(answers(['100', '100', '50', '200'])).price!.toFixed()).toBe('100');
    // Two sources 10 % apart: each is 5 % from their median, so no price.
    expect(combinePrices(answers(['100', '110'])).price).toBeNull();
  });

  it('reads an exchange-rates answer: the fiat prices it knows, each a positive decimal string', () => {
    const read = (body: unknown) => readAnswer('USDT', JSON.stringify(body));
    const ok = read({ data: { currency: 'USDT', rates: { KES: '129.1', USD: '1', JPY: '150.1' } } });
    expect(ok.outcome).toBe('partial');
    expect([...ok.prices.keys()]).toEqual(['KES', 'USD']);
    expect(ok.problems).toContain('no EUR price');
    const bad = read({
      data: { currency: 'USDT', rates: { KES: '0', USD: '1e3', EUR: 0.92, GBP: '-0.79', NGN: '1550', TZS: ' 2580', GHS: '1'.repeat(61) } },
    });
    expect([...bad.prices.keys()]).toEqual(['NGN']);
    expect(bad.problems).toEqual(
      expect.arrayContaining(['KES price "0" is not a positive decimal string', 'EUR price 0.92 is not a positive decimal string']),
    );
    expect(read({ data: { currency: 'USDC', rates: { KES: '1' } } }).outcome).toBe('malformed');
    expect(read({ data: { currency: 'USDT', rates: ['1'] } }).outcome).toBe('malformed');
    expect(read(null).outcome).toBe('malformed');
    expect(readAnswer('USDT', '<html>').outcome).toBe('malformed');
  });
});
