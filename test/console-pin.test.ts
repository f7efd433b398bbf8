// Balance refunds with the transaction PIN in the merchant console, over real HTTP on both engines: the owner
// sets and changes the PIN with the password; a refund with the right PIN succeeds at once (the intent
// refunded, `payment_intent.refunded` fired, seen over the API); five wrong PINs lock PIN refunds for 15
// minutes; only owners; the API still answers `use_dashboard_refund`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { consoleHttp } from './helpers/console.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`merchant console: balance refunds with the transaction PIN (${ENGINE})`, () => {
  let s: TestServer;
  const clock = new ManualClock(Date.now());
  let key: string;
  let merchantId: string;
  let owner: { cookie: string; password: string };

  const { request, signedInUser, csrfOf } = consoleHttp(() => s);
  const signIn = async (role: 'owner' | 'developer') => signedInUser(merchantId, `${role}@pin.example`, role);
  const api = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key, body });
  async function balancePayment(): Promise<string> {
    const pi = await api('POST', '/payment-intents', { amount: '40.00', currency: 'USD' });
    const paid = await api('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, {
      outcome: 'success',
      payment_method: 'service_balance',
    });
    expect(paid.json.status).toBe('paid');
    return pi.json.id;
  }
  async function refundWithPin(id: string, pin: string, cookie = owner.cookie) {
    const page = await request('GET', `/console/payments/${id}?env=test`, { cookie });
    return request('POST', `/console/payments/${id}/refund?env=test`, { cookie, form: { _csrf: csrfOf(page.html), pin, confirm: 'yes' } });
  }
  async function setPin(password: string, pin: string) {
    const page = await request('GET', '/console/account', { cookie: owner.cookie });
    return request('POST', '/console/account/pin', { cookie: owner.cookie, form: { _csrf: csrfOf(page.html), password, pin } });
  }

  beforeAll(async () => {
    s = await startTestServer({ clock });
    const m = await s.newMerchant({ name: 'PIN shop', verified: false });
    key = m.keys.test_secret;
    merchantId = m.merchant.id;
    owner = await signIn('owner');
  });
  afterAll(async () => s?.stop());

  it('the owner sets the PIN with the password; 6 digits; changed the same way', async () => {
    const id = await balancePayment();
    expect((await refundWithPin(id, '123456')).html).toContain('Set a transaction PIN first');
    expect((await setPin('wrong password', '123456')).status).toBe(400);
    expect((await setPin(owner.password, '12345')).status).toBe(400);
    expect((await setPin(owner.password, '123456')).location).toBe('/console/account');
    expect((await setPin(owner.password, '654321')).location).toBe('/console/account');
    const row = await s.running.database.db
      .selectFrom('merchants')
      .select('pin_hash')
      .where('id', '=', merchantId)
      .executeTakeFirstOrThrow();
    expect(row.pin_hash).toMatch(/^scrypt\$/);
    expect(row.pin_hash).not.toContain('654321');
  });

  it('a refund with the right PIN succeeds at once: the intent is refunded and payment_intent.refunded fires', async () => {
    const id = await balancePayment();
    // The API still sends balance refunds to the dashboard.
    const viaApi = await api('POST', '/refunds', { payment_intent: id });
    expect(viaApi.status).toBe(400);
    expect(viaApi.json.error.code).toBe('use_dashboard_refund');
    // The owner is offered the refund on the payment's page.
    const offered = await request('GET', `/console/payments/${id}?env=test`, { cookie: owner.cookie });
    expect(offered.html).toContain('Refund this balance payment');
    expect(offered.html).toContain('<label for="refund-pin">Transaction PIN</label>');
    const wrong = await refundWithPin(id, '000000');
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('The transaction PIN is not right.');
    expect((await api('GET', `/payment-intents/${id}`)).json.status).toBe('paid');
    const ok = await refundWithPin(id, '654321');
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/console/payments/${id}?env=test`);
    expect((await api('GET', `/payment-intents/${id}`)).json.status).toBe('refunded');
    const refunds = await api('GET', `/refunds?payment_intent=${id}`);
    expect(refunds.json.data).toHaveLength(1);
    expect(refunds.json.data[0]).toMatchObject({ status: 'succeeded', payment_intent: id });
    const events = await s.running.database.db
      .selectFrom('events')
      .select('type')
      .where('payment_intent_id', '=', id)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['refund.created', 'refund.updated', 'payment_intent.refunded']));
    // At most one refund per payment.
    expect((await refundWithPin(id, '654321')).status).toBe(409);
  });

  it('five wrong PINs lock PIN refunds for 15 minutes; only owners; only balance payments', async () => {
    const id = await balancePayment();
    for (let i = 0; i < 4; i++) expect((await refundWithPin(id, '111111')).status).toBe(400);
    const fifth = await refundWithPin(id, '111111');
    expect(fifth.status).toBe(423);
    expect((await refundWithPin(id, '654321')).status).toBe(423);
    expect((await api('GET', `/payment-intents/${id}`)).json.status).toBe('paid');
    clock.advance(15 * 60_000 + 1000);
    expect((await refundWithPin(id, '654321')).status).toBe(303);

    const developer = await signIn('developer');
    const other = await balancePayment();
    const page = await request('GET', `/console/payments/${other}?env=test`, { cookie: developer.cookie });
    expect(page.html).not.toContain('Transaction PIN');
    expect((await refundWithPin(other, '654321', developer.cookie)).status).toBe(403);

    const card = await api('POST', '/payment-intents', { amount: '40.00', currency: 'USD' });
    await api('POST', `/sandbox/payment-intents/${card.json.id}/simulate`, { outcome: 'success', payment_method: 'card' });
    const cardPage = await request('GET', `/console/payments/${card.json.id}?env=test`, { cookie: owner.cookie });
    expect(cardPage.html).not.toContain('Refund this balance payment');
    expect((await refundWithPin(card.json.id, '654321')).status).toBe(400);
    expect((await api('GET', `/payment-intents/${card.json.id}`)).json.status).toBe('paid');
  });
});
