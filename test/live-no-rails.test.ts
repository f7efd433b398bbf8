// A fresh install has no live payment rail yet (the live M-Pesa and on-chain issues add them): a live
// intent whose currency no configured rail carries is refused at creation with 400
// payment_method_unavailable and nothing is written, rather than created with a checkout that can take
// nothing. Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { LiveStandInRail } from './helpers/live-rail.js';

describe(`live intents without live rails (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ noLiveRails: true });
  });
  afterAll(async () => s?.stop());

  const live = (body: Record<string, unknown>) => s.call('live', 'POST', '/payment-intents', { key: s.merchant.keys.live_secret!, body });
  const liveCount = async () =>
    Number(
      (
        await s.running.database.db
          .selectFrom('payment_intents')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('environment', '=', 'live')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('refuses a live intent no rail can take, naming the currency; a listed method names payment_methods', async () => {
    const r = await live({ amount: '1500.00', currency: 'KES' });
    expectError(r, 400, 'payment_method_unavailable', 'currency');
    expect(r.json.error.message).toBe(
      'No payment method is available in live mode for KES settling in USDT: no payment rail that takes KES is configured.',
    );
    const listed = await live({ amount: '1500.00', currency: 'KES', payment_methods: ['mpesa'] });
    expectError(listed, 400, 'payment_method_unavailable', 'payment_methods');
    expect(listed.json.error.message).toContain('not available in live mode');
    expect(await liveCount()).toBe(0);
    // The sandbox, which has every rail, is unaffected.
    expect((await s.sandbox('POST', '/payment-intents', { body: { amount: '1500.00', currency: 'KES' } })).status).toBe(201);
  });

  it('once a rail carries a method in live, intents offer exactly the carried methods', async () => {
    s.running.services.rails.register('live', new LiveStandInRail(['card']));
    const r = await live({ amount: '15.00', currency: 'USD' });
    expect(r.status, r.text).toBe(201);
    expect(r.json.payment_methods).toEqual(['card']);
    expectError(
      await live({ amount: '15.00', currency: 'USD', payment_methods: ['paypal'] }),
      400,
      'payment_method_unavailable',
      'payment_methods',
    );
    expect(await liveCount()).toBe(1);
  });
});
