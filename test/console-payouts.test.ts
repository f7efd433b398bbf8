// Payouts in the merchant console, over real HTTP on both engines: the owner asks for a sandbox payout with
// the transaction PIN (labelled fields, the amount held, the payout listed with its state in words, the
// request in the audit log); a wrong PIN changes nothing and five lock it for 15 minutes; a refusal of the
// payouts service (more than available) shows the form again; developers and viewers see the list but not
// the form and are refused with 403; the sandbox test driver fails a payout and its amount is available again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { consoleHttp } from './helpers/console.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe(`merchant console: payouts with the transaction PIN (${ENGINE})`, () => {
  let s: TestServer;
  const clock = new ManualClock(Date.now());
  let key: string;
  let merchantId: string;
  let owner: { cookie: string; password: string };

  const { request, signedInUser, csrfOf } = consoleHttp(() => s);
  const api = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key, body });
  const available = async () => (await api('GET', '/balances')).json.data.find((b: any) => b.asset === 'USDT')?.available;
  async function requestPayout(form: Record<string, string>, cookie = owner.cookie) {
    const page = await request('GET', '/console/payouts?env=test', { cookie });
    const csrf = csrfOf(page.html);
    return request('POST', '/console/payouts?env=test', { cookie, form: { _csrf: csrf, ...form } });
  }
  const payoutForm = (amount: string, pin: string) => ({ asset: 'USDT', network: 'TRON', address: TRON, amount, pin });

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { COWRIE_NEW_MERCHANT_DAYS: '0' } });
    const m = await s.newMerchant({ name: 'Payout shop', verified: false });
    key = m.keys.test_secret;
    merchantId = m.merchant.id;
    owner = await signedInUser(merchantId, 'owner@payouts.example', 'owner');
    const pinPage = await request('GET', '/console/account', { cookie: owner.cookie });
    const set = await request('POST', '/console/account/pin', {
      cookie: owner.cookie,
      form: { _csrf: csrfOf(pinPage.html), password: owner.password, pin: '246810' },
    });
    expect(set.status).toBe(303);
    const pi = await api('POST', '/payment-intents', { amount: '40.00', currency: 'USD', settlement_currency: 'USDT' });
    await api('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, { outcome: 'success', payment_method: 'card' });
  });
  afterAll(async () => s?.stop());

  it('the owner pays out with the PIN: the amount is held, the payout listed in words, the request in the audit log', async () => {
    const before = Number(await available());
    const page = await request('GET', '/console/payouts?env=test', { cookie: owner.cookie });
    expect(page.status).toBe(200);
    for (const label of ['Asset', 'Network', 'Address', 'Amount', 'Transaction PIN']) expect(page.html).toContain(`">${label}</label>`);
    expect(page.html).toContain('No payouts in this environment.');
    const wrong = await requestPayout(payoutForm('5', '000000'));
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('The transaction PIN is not right.');
    expect(wrong.html).toContain(`value="${TRON}"`);
    expect(Number(await available())).toBe(before);
    const ok = await requestPayout(payoutForm('5', '246810'));
    expect(ok.status, ok.html).toBe(303);
    expect(ok.location).toBe('/console/payouts?env=test&done=requested');
    expect(Number(await available())).toBeCloseTo(before - 5, 6);
    const listed = await request('GET', ok.location!, { cookie: owner.cookie });
    expect(listed.html).toContain('Payout requested');
    expect(listed.html).toContain('Sent, confirming');
    const [p] = (await api('GET', '/payouts')).json.data;
    expect(p).toMatchObject({ amount: '5.000000', network: 'TRON', address: TRON, status: 'sent' });
    const audit = await s.running.database.db.selectFrom('audit_log').selectAll().where('target', '=', p.id).execute();
    expect(audit.map((a) => [a.action, a.actor])).toContainEqual(['payout.requested', 'owner@payouts.example']);
  });

  it('more than available is refused in words and nothing is held', async () => {
    const before = await available();
    const r = await requestPayout(payoutForm('100000', '246810'));
    expect(r.status).toBe(400);
    expect(r.html).toContain('is more than the available balance');
    expect(await available()).toBe(before);
  });

  it('developers and viewers see the payouts but not the form; a request from them is refused with 403', async () => {
    for (const role of ['developer', 'viewer'] as const) {
      const user = await signedInUser(merchantId, `${role}@payouts.example`, role);
      const page = await request('GET', '/console/payouts?env=test', { cookie: user.cookie });
      expect(page.status).toBe(200);
      expect(page.html).toContain('Sent, confirming');
      expect(page.html).not.toContain('Transaction PIN');
      expect((await requestPayout(payoutForm('1', '246810'), user.cookie)).status).toBe(403);
      const fail = page.html.includes('Test driver');
      expect(fail).toBe(role === 'developer');
    }
  });

  it('the sandbox test driver fails a payout: released, failed in words', async () => {
    const before = Number(await available());
    expect((await requestPayout(payoutForm('2', '246810'))).status).toBe(303);
    const [p] = (await api('GET', '/payouts?limit=1')).json.data;
    const page = await request('GET', '/console/payouts?env=test', { cookie: owner.cookie });
    const r = await request('POST', `/console/payouts/${p.id}/fail?env=test`, { cookie: owner.cookie, form: { _csrf: csrfOf(page.html) } });
    expect(r.status).toBe(303);
    expect((await api('GET', `/payouts/${p.id}`)).json.status).toBe('failed');
    expect(Number(await available())).toBeCloseTo(before, 6);
    const after = await request('GET', '/console/payouts?env=test', { cookie: owner.cookie });
    expect(after.html).toContain('Failed by the sandbox test driver');
  });

  it('five wrong PINs lock payouts for 15 minutes', async () => {
    for (let i = 0; i < 4; i++) expect((await requestPayout(payoutForm('1', '111111'))).status).toBe(400);
    expect((await requestPayout(payoutForm('1', '111111'))).status).toBe(423);
    expect((await requestPayout(payoutForm('1', '246810'))).status).toBe(423);
    clock.advance(15 * 60_000 + 1000);
    expect((await requestPayout(payoutForm('1', '246810'))).status).toBe(303);
  });
});
