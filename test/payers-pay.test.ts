// Paying a live checkout from a payer's balance (the live service balance), on SQLite and PostgreSQL:
// offered on live intents settling in USDT or USDC; paid at once with the merchant's credit, the payer's
// debit and the paid event in one transaction; insufficient_funds and invalid_pin as failed attempts that
// leave the intent payable; five wrong PINs lock paying for 15 minutes; a suspended payer is refused; the
// owner's PIN refund credits the payer at once; payers and environments are kept apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { ManualClock } from '../src/shared/clock.js';
import { eventsOf, expectLedgerInvariant, newIntent } from './helpers/ledger-invariant.js';
import { PAYER_PIN, WalletClient, adjust, signedUpPayer } from './helpers/wallet.js';

describe(`paying from the live balance (${ENGINE})`, () => {
  let s: TestServer;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    s = await startTestServer({ noLiveRails: true, clock, env: { COWRIE_PAYER_ACCOUNTS: 'on' } });
  });
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;
  const liveIntent = (body: Record<string, unknown> = {}) => newIntent(s, { amount: '10.00', currency: 'USD', ...body }, 'live');
  const getLive = async (id: string) => (await s.call('live', 'GET', `/payment-intents/${id}`, { key: s.merchant.keys.live_secret! })).json;
  const balanceOf = async (payerId: string, asset: 'USDT' | 'USDC' = 'USDT') =>
    (await s.running.services.payerAccounts.wallet(payerId, 'live')).balances[asset].toFixed(6);

  it('offers the balance on live intents settling in USDT or USDC only; the sandbox keeps its simulated payer', async () => {
    expect((await liveIntent()).payment_methods).toEqual(['service_balance']);
    expect((await liveIntent({ settlement_currency: 'USDC' })).payment_methods).toEqual(['service_balance']);
    const btc = await s.call('live', 'POST', '/payment-intents', {
      key: s.merchant.keys.live_secret!,
      body: { amount: '10.00', currency: 'USD', settlement_currency: 'BTC' },
    });
    expect(btc.status).toBe(400);
    expect(btc.json.error.code).toBe('payment_method_unavailable');
    const sandbox = await newIntent(s, { amount: '10.00', currency: 'USD', payment_methods: ['service_balance'] });
    const paid = await new WalletClient(s.url('test', '')).payFromBalance(sandbox.checkout_url, '');
    expect(paid.json.status).toBe('paid');
  });

  it('pays at once: the payer debited pay_amount, the merchant credited, the paid event, the movement on the wallet page', async () => {
    const { client, payerId } = await signedUpPayer(s, 'ada@payers.example');
    await adjust(s, payerId, '50');
    const pi = await liveIntent();
    const page = await (await fetch(s.url('live', new URL(pi.checkout_url).pathname), { headers: { cookie: client.session } })).text();
    expect(page).toContain('ada@payers.example');
    expect(page).toContain(`USDT ${pi.pay_amount}`);
    expect(page).toContain('USDT 50.000000');
    const r = await client.payFromBalance(pi.checkout_url, PAYER_PIN);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toEqual({ state: 'completed', status: 'paid' });
    const intent = await getLive(pi.id);
    expect(intent.status).toBe('paid');
    expect(intent.payment_method).toBe('service_balance');
    expect(intent.provider_reference).toMatch(/^rp_/);
    expect(await balanceOf(payerId)).toBe(new Decimal(50).minus(pi.pay_amount).toFixed(6));
    expect((await eventsOf(db(), pi.id, 'payment_intent.paid')).length).toBe(1);
    const settlement = await db().selectFrom('settlements').selectAll().where('payment_intent_id', '=', pi.id).executeTakeFirstOrThrow();
    expect(new Decimal(settlement.amount).toFixed(6)).toBe(new Decimal(pi.pay_amount).toFixed(6));
    const wallet = await client.request('GET', '/wallet');
    expect(wallet.status).toBe(200);
    expect(wallet.html).toContain(pi.id);
    // The one money format of the console and the checkout, signed: a debit and the operator's credit.
    expect(wallet.html).toContain(`<td>-<span class="money">USDT ${pi.pay_amount}</span></td>`);
    expect(wallet.html).toContain('<td>+<span class="money">USDT 50.000000</span></td>');
    await expectLedgerInvariant(db());
  });

  it('too little balance is a failed attempt insufficient_funds; the intent stays payable and nothing moves', async () => {
    const { client, payerId } = await signedUpPayer(s, 'bo@payers.example');
    await adjust(s, payerId, '1');
    const pi = await liveIntent();
    const r = await client.payFromBalance(pi.checkout_url, PAYER_PIN);
    expect(r.json).toEqual({ state: 'completed', status: 'awaiting_payment' });
    const intent = await getLive(pi.id);
    expect(intent.last_payment_error).toMatchObject({ code: 'insufficient_funds', payment_method: 'service_balance' });
    expect(await balanceOf(payerId)).toBe('1.000000');
    const status = (await (await fetch(s.url('live', `${new URL(pi.checkout_url).pathname}/status`))).json()) as { detail: string };
    expect(status.detail).toContain('not enough money');
    await adjust(s, payerId, '20');
    expect((await client.payFromBalance(pi.checkout_url, PAYER_PIN)).json.status).toBe('paid');
    expect((await getLive(pi.id)).last_payment_error).toBeNull();
    await expectLedgerInvariant(db());
  });

  it('a wrong PIN is a failed attempt invalid_pin; five in a row lock paying for 15 minutes, then it pays', async () => {
    const { client, payerId } = await signedUpPayer(s, 'cy@payers.example');
    await adjust(s, payerId, '100');
    const a = await liveIntent();
    const b = await liveIntent();
    for (let i = 0; i < 3; i++) expect((await client.payFromBalance(a.checkout_url, '000000')).json.status).toBe('awaiting_payment');
    expect((await getLive(a.id)).last_payment_error.code).toBe('invalid_pin');
    for (let i = 0; i < 2; i++) expect((await client.payFromBalance(b.checkout_url, '000000')).json.status).toBe('awaiting_payment');
    const locked = await client.payFromBalance(b.checkout_url, PAYER_PIN);
    expect(locked.status).toBe(403);
    expect(locked.json.error.code).toBe('payer_pin_locked');
    expect(await balanceOf(payerId)).toBe('100.000000');
    clock.advance(15 * 60_000 + 1000);
    expect((await client.payFromBalance(b.checkout_url, PAYER_PIN)).json.status).toBe('paid');
    expect((await getLive(b.id)).status).toBe('paid');
    const audit = await db()
      .selectFrom('payer_audit')
      .select('action')
      .where('payer_id', '=', payerId)
      .where('action', '=', 'pin.failed')
      .execute();
    expect(audit.length).toBe(5);
  });

  it('paying needs a signed-in payer; a suspended payer is refused until unsuspended', async () => {
    const pi = await liveIntent();
    const anonymous = await new WalletClient(s.url('live', '')).payFromBalance(pi.checkout_url, PAYER_PIN);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.code).toBe('payer_sign_in_required');
    const { client, payerId } = await signedUpPayer(s, 'di@payers.example');
    await adjust(s, payerId, '30');
    await s.running.services.payerAccounts.setStatus(payerId, 'suspended');
    const refused = await client.payFromBalance(pi.checkout_url, PAYER_PIN);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('payer_suspended');
    expect((await getLive(pi.id)).status).toBe('awaiting_payment');
    expect(await balanceOf(payerId)).toBe('30.000000');
    await s.running.services.payerAccounts.setStatus(payerId, 'active');
    expect((await client.payFromBalance(pi.checkout_url, PAYER_PIN)).json.status).toBe('paid');
  });

  it("the owner's PIN refund of a balance payment credits the payer at once", async () => {
    const { client, payerId } = await signedUpPayer(s, 'ed@payers.example');
    await adjust(s, payerId, '25');
    const pi = await liveIntent();
    await client.payFromBalance(pi.checkout_url, PAYER_PIN);
    const after = await balanceOf(payerId);
    const refund = await s.running.services.refunds.refundBalancePayment(
      { merchantId: s.merchant.merchant.id, environment: 'live' },
      pi.id,
    );
    expect(refund.status).toBe('succeeded');
    expect((await getLive(pi.id)).status).toBe('refunded');
    expect(await balanceOf(payerId)).toBe(new Decimal(after).plus(refund.asset_amount).toFixed(6));
    expect(await balanceOf(payerId)).toBe('25.000000');
    const wallet = await client.request('GET', '/wallet');
    expect(wallet.html).toContain('Refund');
    await expectLedgerInvariant(db());
  });

  it('keeps payers and environments apart', async () => {
    const one = await signedUpPayer(s, 'fi@payers.example');
    const two = await signedUpPayer(s, 'gu@payers.example');
    await adjust(s, one.payerId, '40');
    const pi = await liveIntent();
    await one.client.payFromBalance(pi.checkout_url, PAYER_PIN);
    expect(await balanceOf(two.payerId)).toBe('0.000000');
    expect((await two.client.request('GET', '/wallet')).html).not.toContain(pi.id);
    // The same email is another payer in the sandbox; a live session is no session on the sandbox origin.
    const sandboxPayer = await signedUpPayer(s, 'fi@payers.example', 'test');
    expect(sandboxPayer.payerId).not.toBe(one.payerId);
    expect((await s.running.services.payerAccounts.wallet(sandboxPayer.payerId, 'test')).balances.USDT.toFixed(6)).toBe('0.000000');
    const crossed = await fetch(s.url('test', '/wallet'), { headers: { cookie: one.client.session }, redirect: 'manual' });
    expect(crossed.status).toBe(303);
    expect(crossed.headers.get('location')).toBe('/wallet/login');
    // A sandbox session cannot pay a live checkout.
    const live = await liveIntent();
    const r = await new WalletClient(s.url('live', '')).payFromBalance(live.checkout_url, PAYER_PIN);
    expect(r.json.error.code).toBe('payer_sign_in_required');
  });

  it('concurrent payments that would overdraw: exactly the ones that fit succeed, and the balance never goes below zero', async () => {
    const { client, payerId } = await signedUpPayer(s, 'ha@payers.example');
    const intents = await Promise.all(Array.from({ length: 8 }, () => liveIntent()));
    const each = new Decimal(intents[0].pay_amount);
    // Room for three payments and most of a fourth.
    const fund = each.mul(3).plus(each.div(2).toDecimalPlaces(6, Decimal.ROUND_DOWN));
    await adjust(s, payerId, fund.toFixed(6));
    const results = await Promise.all(intents.map((pi) => client.payFromBalance(pi.checkout_url, PAYER_PIN)));
    const paid = results.filter((r) => r.json?.status === 'paid').length;
    expect(paid).toBe(3);
    expect(results.filter((r) => r.json?.status === 'awaiting_payment').length).toBe(5);
    expect(await balanceOf(payerId)).toBe(fund.minus(each.mul(3)).toFixed(6));
    await expectLedgerInvariant(db());
  });

  it('one intent paid at once by a double submit and by two payers: paid once, only one balance debited', async () => {
    const one = await signedUpPayer(s, 'ia@payers.example');
    const two = await signedUpPayer(s, 'jo@payers.example');
    await adjust(s, one.payerId, '30');
    await adjust(s, two.payerId, '30');
    const pi = await liveIntent();
    const results = await Promise.all([
      one.client.payFromBalance(pi.checkout_url, PAYER_PIN),
      one.client.payFromBalance(pi.checkout_url, PAYER_PIN),
      two.client.payFromBalance(pi.checkout_url, PAYER_PIN),
    ]);
    expect(results.filter((r) => r.json?.status === 'paid').length).toBe(1);
    for (const r of results.filter((x) => x.json?.status !== 'paid')) expect(r.json.error.code).toBe('intent_not_payable');
    const left = [await balanceOf(one.payerId), await balanceOf(two.payerId)].map((b) => new Decimal(b));
    expect(left[0]!.plus(left[1]!).toFixed(6)).toBe(new Decimal(60).minus(pi.pay_amount).toFixed(6));
    expect((await eventsOf(db(), pi.id, 'payment_intent.paid')).length).toBe(1);
    expect((await eventsOf(db(), pi.id, 'payment_intent.duplicate_payment')).length).toBe(0);
    await expectLedgerInvariant(db());
  });
});
