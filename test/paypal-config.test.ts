// The live PayPal rail's configuration: off without its three credentials, on with all three (PayPal's base
// URL and the look-up delay defaulted, the return and cancel URLs on the live origin), a partial set refused
// at start naming what is missing, malformed values refused naming the variable; the live methods the
// start-up banner and the console's home name.
import { describe, expect, it } from 'vitest';
import { ConfigError, liveMethodsOf, loadConfig } from '../src/config.js';

const base = { COWRIE_DATABASE_URL: 'sqlite::memory:', COWRIE_LIVE_URL: 'https://pay.example.com/v1' };
const creds = {
  COWRIE_PAYPAL_CLIENT_ID: 'AbC-client',
  COWRIE_PAYPAL_CLIENT_SECRET: 'EFG-secret',
  COWRIE_PAYPAL_WEBHOOK_ID: '8PT597110X687430LKGECATA',
};

describe('live PayPal configuration', () => {
  it('is off without the credentials, and on with all three', () => {
    const off = loadConfig(base);
    expect(off.paypal).toBeNull();
    const on = loadConfig({ ...base, ...creds });
    expect(on.paypal).toEqual({
      clientId: 'AbC-client',
      clientSecret: 'EFG-secret',
      webhookId: '8PT597110X687430LKGECATA',
      baseUrl: 'https://api-m.paypal.com',
      returnOrigin: 'https://pay.example.com',
      queryAfterS: 60,
    });
    expect(liveMethodsOf(on)).toEqual(['account balance (payer accounts, USDT and USDC)', 'PayPal in every currency but KES']);
  });

  it('refuses a partial set naming what is missing, and malformed values naming the variable', () => {
    expect(() => loadConfig({ ...base, COWRIE_PAYPAL_CLIENT_ID: 'x', COWRIE_PAYPAL_CLIENT_SECRET: 'y' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, COWRIE_PAYPAL_CLIENT_ID: 'x' })).toThrow(
      /COWRIE_PAYPAL_CLIENT_SECRET, COWRIE_PAYPAL_WEBHOOK_ID must be set/,
    );
    expect(() => loadConfig({ ...base, ...creds, COWRIE_PAYPAL_WEBHOOK_ID: 'not-an-id!' })).toThrow(/COWRIE_PAYPAL_WEBHOOK_ID/);
    expect(() => loadConfig({ ...base, ...creds, COWRIE_PAYPAL_QUERY_AFTER_S: '0' })).toThrow(/COWRIE_PAYPAL_QUERY_AFTER_S/);
    expect(() => loadConfig({ ...base, COWRIE_PAYPAL_BASE_URL: 'ftp://paypal' })).toThrow(/COWRIE_PAYPAL_BASE_URL/);
    const c = loadConfig({ ...base, ...creds, COWRIE_PAYPAL_BASE_URL: 'http://127.0.0.1:4920/', COWRIE_PAYPAL_QUERY_AFTER_S: '5' });
    expect(c.paypal).toMatchObject({ baseUrl: 'http://127.0.0.1:4920', queryAfterS: 5 });
  });
});
