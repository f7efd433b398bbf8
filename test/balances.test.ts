// Balances: a plain list derived from the ledger, one entry per asset ever held, per environment.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { DAY, advanceClock, applyLive, expectLedgerInvariant, newIntent, paidSandboxIntent } from './helpers/ledger-invariant.js';

describe(`balances (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterEach(async () => expectLedgerInvariant(s.running.database.db));
  afterAll(async () => s?.stop());

  it('is an empty plain list for a merchant that has held nothing', async () => {
    const m = await s.newMerchant({ name: 'Empty' });
    const r = await s.call('test', 'GET', '/balances', { key: m.keys.test_secret });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['data', 'environment', 'livemode', 'object', 'request_id']);
    expect(r.json).toMatchObject({ object: 'list', data: [], environment: 'test', livemode: false });
    expect(r.json.request_id).toBe(r.headers.get('service-request-id'));
  });

  it("lists one entry per asset, in the asset's decimals, moving from on hold to available as settlements mature", async () => {
    const m = await s.newMerchant({ name: 'Multi asset' });
    const key = m.keys.test_secret;
    const usdt = await paidSandboxIntent(s, 'card', { amount: '100.00', currency: 'USD' }, key);
    const btc = await paidSandboxIntent(s, 'card', { amount: '100.00', currency: 'USD', settlement_currency: 'BTC' }, key);
    const usdt2 = await paidSandboxIntent(s, 'mpesa', {}, key);
    const r = await s.call('test', 'GET', '/balances', { key });
    const usdtTotal = (Number(usdt.pay_amount) + Number(usdt2.pay_amount)).toFixed(6);
    expect(r.json.data).toEqual([
      { asset: 'BTC', total: btc.pay_amount, available: '0.00000000', on_hold: btc.pay_amount },
      { asset: 'USDT', total: usdtTotal, available: '0.000000', on_hold: usdtTotal },
    ]);
    expect(btc.pay_amount).toMatch(/^\d+\.\d{8}$/);
    await advanceClock(s, 3 * DAY + 60, key);
    const after = await s.call('test', 'GET', '/balances', { key });
    expect(after.json.data).toEqual([
      { asset: 'BTC', total: btc.pay_amount, available: btc.pay_amount, on_hold: '0.00000000' },
      { asset: 'USDT', total: usdtTotal, available: usdtTotal, on_hold: '0.000000' },
    ]);
  });

  it('keeps live and sandbox balances apart', async () => {
    const m = await s.newMerchant({ name: 'Two sides', verified: true });
    const live = await newIntent(s, { amount: '50.00', currency: 'USD', settlement_currency: 'USDC' }, 'live', m.keys.live_secret!);
    await applyLive(s, live.id, 'card', 'success', m.merchant.id);
    await paidSandboxIntent(s, 'card', {}, m.keys.test_secret);
    const liveBal = await s.call('live', 'GET', '/balances', { key: m.keys.live_secret! });
    expect(liveBal.json).toMatchObject({ environment: 'live', livemode: true });
    expect(liveBal.json.data).toEqual([{ asset: 'USDC', total: live.pay_amount, available: '0.000000', on_hold: live.pay_amount }]);
    const sandboxBal = await s.call('test', 'GET', '/balances', { key: m.keys.test_secret });
    expect(sandboxBal.json.data.map((b: any) => b.asset)).toEqual(['USDT']);
  });

  it('needs balances:read and takes no parameters', async () => {
    const k = await s.newKey({ merchantId: s.merchant.merchant.id, environment: 'test', type: 'restricted', scopes: ['settlements:read'] });
    const ok = await s.newKey({ merchantId: s.merchant.merchant.id, environment: 'test', type: 'restricted', scopes: ['balances:read'] });
    const denied = await s.call('test', 'GET', '/balances', { key: k.key });
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('insufficient_scope');
    expect((await s.call('test', 'GET', '/balances', { key: ok.key })).status).toBe(200);
    expect((await s.call('test', 'GET', '/balances')).status).toBe(401);
    const unknown = await s.sandbox('GET', '/balances?limit=5');
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_unknown', param: 'limit' });
  });
});
