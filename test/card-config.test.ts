// The live card rail's configuration: off without COWRIE_PAYSTACK_SECRET_KEY, on with it (Paystack's base
// URL and the question delay defaulted, the return to the live origin), a malformed value refused at start
// naming the variable; the live methods the start-up banner and the console's home name.
import { describe, expect, it } from 'vitest';
import { ConfigError, liveMethodsOf, loadConfig } from '../src/config.js';

const base = { COWRIE_DATABASE_URL: 'sqlite::memory:', COWRIE_LIVE_URL: 'https://pay.example.com/v1' };

describe('live card configuration', () => {
  it('is off without the secret key, and on with it', () => {
    const off = loadConfig(base);
    expect(off.card).toBeNull();
    expect(liveMethodsOf(off)).toEqual(['account balance (payer accounts, USDT and USDC)']);
    const on = loadConfig({ ...base, COWRIE_PAYSTACK_SECRET_KEY: 'sk_live_0123456789abcdef' });
    expect(on.card).toEqual({
      secretKey: 'sk_live_0123456789abcdef',
      baseUrl: 'https://api.paystack.co',
      returnOrigin: 'https://pay.example.com',
      queryAfterS: 60,
    });
    expect(liveMethodsOf(on)).toEqual(['account balance (payer accounts, USDT and USDC)', 'card in KES and USD (Paystack)']);
  });

  it('takes a base URL and a question delay; refuses malformed values naming the variable', () => {
    const c = loadConfig({
      ...base,
      COWRIE_PAYSTACK_SECRET_KEY: 'sk_live_0123456789abcdef',
      COWRIE_PAYSTACK_BASE_URL: 'http://127.0.0.1:4910/',
      COWRIE_PAYSTACK_QUERY_AFTER_S: '5',
    });
    expect(c.card).toMatchObject({ baseUrl: 'http://127.0.0.1:4910', queryAfterS: 5 });
    expect(() => loadConfig({ ...base, COWRIE_PAYSTACK_SECRET_KEY: 'has spaces in it' })).toThrow(/COWRIE_PAYSTACK_SECRET_KEY/);
    expect(() => loadConfig({ ...base, COWRIE_PAYSTACK_SECRET_KEY: 'sk_live_x', COWRIE_PAYSTACK_QUERY_AFTER_S: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, COWRIE_PAYSTACK_BASE_URL: 'ftp://paystack' })).toThrow(/COWRIE_PAYSTACK_BASE_URL/);
  });
});
