// A payer tops up by M-Pesa at a locked quote, against the Daraja peer and live prices from the rates peer,
// on SQLite and PostgreSQL: the quote (KES -> asset amount, rate, expiry) is shown before any PIN and
// nothing goes to the phone before it; a wrong PIN sends nothing; a success credits exactly the locked
// amount even when the price moved meanwhile, once, however often or concurrently Daraja calls back; a
// cancelled STK credits nothing and says why; an expired quote and a suspended payer are refused; payers do
// not see or confirm each other's top-ups; a top-up whose callback never comes is settled by the STK query
// of the next process after a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import type { RatesPeer } from '../peers/rates/peer.js';
import { ManualClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { MPESA_TEST_CREDENTIALS, mpesaEnv, postStkSuccess } from './helpers/mpesa.js';
import { liveRatesEnv, priceOf, startRatesPeers, waitForAllAssets, waitForPrice } from './helpers/rates.js';
import { freePorts } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { HAVE_CHROMIUM, axeSeriousViolations, launchChromium } from './helpers/browser.js';
import { PAYER_PIN, WalletClient, signInInBrowser, signedUpPayer } from './helpers/wallet.js';

describe(`payers top up by M-Pesa at a locked quote (${ENGINE})`, () => {
  let s: TestServer;
  let peer: DarajaPeer;
  let rates: RatesPeer;
  let database: TestDatabase;
  let env: Record<string, string>;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    peer = await startDarajaPeer(MPESA_TEST_CREDENTIALS);
    [rates] = (await startRatesPeers(1)) as [RatesPeer];
    database = await createTestDatabase();
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    env = {
      ...mpesaEnv(peer, live, sandbox),
      ...liveRatesEnv([rates]),
      COWRIE_MPESA_QUERY_AFTER_S: '1',
      COWRIE_JOB_INTERVAL_MS: '200',
      COWRIE_PAYER_ACCOUNTS: 'on',
      COWRIE_TRUST_PROXY: '127.0.0.1',
    };
    s = await startTestServer({ noLiveRails: true, clock, databaseUrl: database.url, env });
    await waitForAllAssets(s);
  });
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
    await peer?.close();
    await rates?.close();
  });

  const db = () => s.running.database.db;
  const topupRow = (id: string) => db().selectFrom('payer_mpesa_topups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const balanceOf = async (payerId: string, asset: 'USDT' | 'USDC' = 'USDT') =>
    (await s.running.services.payerAccounts.wallet(payerId, 'live')).balances[asset].toFixed(6);
  const topupLegs = (payerId: string) =>
    db().selectFrom('payer_ledger_entries').selectAll().where('payer_id', '=', payerId).where('kind', '=', 'top_up').execute();

  /** Asks for a quote from the wallet page's form; answers the response and the top-up's id (from the redirect). */
  async function askQuote(client: WalletClient, form: { asset?: string; kes: string; phone?: string }) {
    const home = await client.request('GET', '/wallet');
    expect(home.html).toContain('Top up by M-Pesa');
    const r = await client.request('POST', '/wallet/topups/mpesa', {
      _csrf: WalletClient.csrfOf(home.html),
      asset: form.asset ?? 'USDT',
      kes: form.kes,
      phone: form.phone ?? '0700000001',
    });
    const id = /\/wallet\/topups\/mpesa\/(ptm_[0-9A-Za-z]+)$/.exec(r.location ?? '')?.[1] ?? null;
    return { r, id };
  }

  /** Opens the top-up's page and confirms it with `pin`; answers the confirm's response and the page before it. */
  async function confirm(client: WalletClient, id: string, pin = PAYER_PIN) {
    const page = await client.request('GET', `/wallet/topups/mpesa/${id}`);
    const r = await client.request('POST', `/wallet/topups/mpesa/${id}/confirm`, { _csrf: WalletClient.csrfOf(page.html), pin });
    return { page, r };
  }

  const waitForStatus = (id: string, status: string) =>
    waitFor(
      `top-up ${id} ${status}`,
      () => topupRow(id),
      (row) => row.status === status,
      { timeoutMs: 15_000 },
    );

  /** Every payer movement sums to zero; each payer's top-up credits are exactly its credited top-ups. */
  async function expectPayerLedgerBalanced() {
    const legs = await db().selectFrom('payer_ledger_entries').selectAll().execute();
    const byMovement = new Map<string, Decimal>();
    for (const l of legs) byMovement.set(l.movement_id, (byMovement.get(l.movement_id) ?? new Decimal(0)).plus(l.amount));
    for (const [m, sum] of byMovement) expect(sum.isZero(), `movement ${m} sums to ${sum.toFixed()}`).toBe(true);
    const credited = await db().selectFrom('payer_mpesa_topups').selectAll().where('status', '=', 'credited').execute();
    const topUpLegs = legs.filter((l) => l.kind === 'top_up' && l.account === 'payer_balance');
    expect(topUpLegs.length).toBe(credited.length);
    for (const t of credited) {
      const mine = topUpLegs.filter((l) => l.reason?.includes(t.id));
      expect(mine.length, `credits of ${t.id}`).toBe(1);
      expect(new Decimal(mine[0]!.amount).toFixed(6)).toBe(t.credited_amount);
    }
  }

  it('shows the locked quote before asking for the PIN, and sends nothing to the phone until the PIN', async () => {
    const { client } = await signedUpPayer(s, 'quote@payers.example');
    const pushes = peer.pushes.length;
    const price = (await priceOf(s, 'USDT', 'KES'))!;
    const { r, id } = await askQuote(client, { kes: '1000' });
    expect(r.status, r.html).toBe(303);
    expect(id).toMatch(/^ptm_/);
    const page = await client.request('GET', `/wallet/topups/mpesa/${id}`);
    expect(page.status).toBe(200);
    const locked = new Decimal(1000).div(price).toDecimalPlaces(6, Decimal.ROUND_UP).toFixed(6);
    expect(page.html).toContain(`USDT ${locked}`);
    expect(page.html).toContain(`${price} KES per USDT`);
    expect(page.html).toMatch(/id="quote-expires">\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(page.html).toContain('<label for="topup-pin">Transaction PIN</label>');
    const row = await topupRow(id!);
    expect(row).toMatchObject({ status: 'quoted', kes_amount: 1000, asset: 'USDT', asset_amount: locked, rate: price });
    expect(Number(row.quote_expires_at) - clock.nowMs()).toBe(10 * 60_000);
    expect(peer.pushes.length).toBe(pushes);
  });

  it('refuses bad input on the form with a message, never a 500, and records nothing', async () => {
    const { client, payerId } = await signedUpPayer(s, 'input@payers.example');
    for (const [form, words] of [
      [{ kes: '12.50' }, 'whole shillings'],
      [{ kes: '0' }, 'whole shillings'],
      [{ kes: '300000' }, 'whole shillings'],
      [{ kes: '100', asset: 'BTC' }, 'USDT or USDC'],
      [{ kes: '100', phone: '12345' }, 'M-Pesa phone number'],
    ] as const) {
      const { r, id } = await askQuote(client, form);
      expect(r.status).toBe(400);
      expect(r.html).toContain(words);
      expect(id).toBeNull();
    }
    const rows = await db().selectFrom('payer_mpesa_topups').select('id').where('payer_id', '=', payerId).execute();
    expect(rows).toEqual([]);
  });

  it('a wrong PIN is refused and sends nothing; the right one sends the STK push for the quoted shillings', async () => {
    const { client, payerId } = await signedUpPayer(s, 'pin@payers.example');
    const { id } = await askQuote(client, { kes: '500' });
    const pushes = peer.pushes.length;
    const wrong = await confirm(client, id!, '000000');
    expect(wrong.r.status).toBe(400);
    expect(wrong.r.html).toContain('The PIN is not right.');
    expect(peer.pushes.length).toBe(pushes);
    expect((await topupRow(id!)).status).toBe('quoted');
    expect((await db().selectFrom('payers').select('pin_failures').where('id', '=', payerId).executeTakeFirstOrThrow()).pin_failures).toBe(
      1,
    );

    const right = await confirm(client, id!);
    expect(right.r.status, right.r.html).toBe(303);
    expect(peer.pushes.length).toBe(pushes + 1);
    const push = peer.pushes.at(-1)!;
    expect(push.body).toMatchObject({ Amount: 500, PhoneNumber: '254700000001', PartyB: '174379' });
    expect(String(push.body['CallBackURL'])).toMatch(/\/rails\/mpesa\/callback\/ptm\.[A-Za-z0-9_-]{32}$/);
    const row = await waitForStatus(id!, 'credited');
    expect(row.checkout_request_id).toBe(push.checkoutRequestId);
    expect(row.mpesa_receipt).toBe(push.receipt);
    expect(await balanceOf(payerId)).toBe(row.asset_amount);
    // Confirming again sends nothing more.
    const again = await confirm(client, id!);
    expect(again.r.status).toBe(409);
    expect(peer.pushes.length).toBe(pushes + 1);
  });

  it('credits exactly the locked amount when the price moved between the quote and the payment', async () => {
    const { client, payerId } = await signedUpPayer(s, 'moved@payers.example');
    const { id } = await askQuote(client, { kes: '2000', asset: 'USDC' });
    const locked = (await topupRow(id!)).asset_amount;
    const before = (await priceOf(s, 'USDC', 'KES'))!;
    rates.scale('1.5', 'USDC');
    clock.advance(1_000); // a price is kept only when fetched later than the one stored
    await waitForPrice(s, 'USDC', 'KES', new Decimal(before).mul('1.5').toFixed());
    await confirm(client, id!);
    const row = await waitForStatus(id!, 'credited');
    expect(row.credited_amount).toBe(locked);
    expect(await balanceOf(payerId, 'USDC')).toBe(locked);
    // A quote asked now has the new price: the credit above did not follow it.
    const now = await askQuote(client, { kes: '2000', asset: 'USDC' });
    expect((await topupRow(now.id!)).asset_amount).not.toBe(locked);
    rates.reset();
    clock.advance(1_000);
    await waitForPrice(s, 'USDC', 'KES', before);
    // The wallet page lists the credit among the movements and the top-up as credited.
    const home = await client.request('GET', '/wallet');
    expect(home.html).toContain(`<td>+USDC ${locked}</td>`); // the top-up, in the one money format
    expect(home.html).toContain(`<td>+<span class="money">USDC ${locked}</span></td>`); // its movement
    expect(home.html).toContain(id!);
    await expectPayerLedgerBalanced();
  });

  it('a callback repeated, and posted five times at once, credits once', async () => {
    const { client, payerId } = await signedUpPayer(s, 'twice@payers.example');
    const first = await askQuote(client, { kes: '300' });
    peer.setNextBehaviour({ callback: 'twice' });
    await confirm(client, first.id!);
    const pushTwice = peer.pushes.at(-1)!;
    await waitFor(
      'both callbacks sent',
      () => pushTwice.callbacks,
      (n) => n === 2,
    );
    const row = await waitForStatus(first.id!, 'credited');

    const second = await askQuote(client, { kes: '400' });
    peer.setNextBehaviour({ callback: 'never', delayMs: 0 });
    await confirm(client, second.id!);
    const push = peer.pushes.at(-1)!;
    const answers = await Promise.all(Array.from({ length: 5 }, () => postStkSuccess(push)));
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    const row2 = await waitForStatus(second.id!, 'credited');
    expect(await balanceOf(payerId)).toBe(new Decimal(row.asset_amount).plus(row2.asset_amount).toFixed(6));
    expect((await topupLegs(payerId)).filter((l) => l.account === 'payer_balance')).toHaveLength(2);
    // Late duplicates change nothing either.
    expect(await postStkSuccess(push)).toBe(200);
    expect(await balanceOf(payerId)).toBe(new Decimal(row.asset_amount).plus(row2.asset_amount).toFixed(6));
    await expectPayerLedgerBalanced();
  });

  it('a cancelled STK fails the top-up with its reason and credits nothing; Daraja refusing the push too', async () => {
    const { client, payerId } = await signedUpPayer(s, 'cancel@payers.example');
    const { id } = await askQuote(client, { kes: '250', phone: '0700000002' });
    await confirm(client, id!);
    const row = await waitForStatus(id!, 'failed');
    expect(row.failure_code).toBe('customer_cancelled');
    const page = await client.request('GET', `/wallet/topups/mpesa/${id}`);
    expect(page.html).toContain('You cancelled the M-Pesa prompt; nothing was taken.');

    const refused = await askQuote(client, { kes: '250' });
    peer.failNext('stkpush', 503);
    const r = await confirm(client, refused.id!);
    expect(r.r.status).toBe(303);
    const failed = await topupRow(refused.id!);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toContain('Service Unavailable');
    expect(await balanceOf(payerId)).toBe('0.000000');
    expect(await topupLegs(payerId)).toEqual([]);
  });

  it('a suspended payer cannot ask for a quote nor confirm one', async () => {
    const { client, payerId } = await signedUpPayer(s, 'suspended@payers.example');
    const { id } = await askQuote(client, { kes: '100' });
    await s.running.services.payerAccounts.setStatus(payerId, 'suspended');
    const pushes = peer.pushes.length;
    const r = await confirm(client, id!);
    expect(r.r.status).toBe(403);
    expect(r.r.html).toContain('suspended');
    const again = await askQuote(client, { kes: '100' });
    expect(again.r.status).toBe(403);
    expect(again.id).toBeNull();
    expect(peer.pushes.length).toBe(pushes);
    expect((await topupRow(id!)).status).toBe('quoted');
    await s.running.services.payerAccounts.setStatus(payerId, 'active');
  });

  it('payers do not see, confirm or get credited for one another’s top-ups', async () => {
    const a = await signedUpPayer(s, 'alice@payers.example');
    const b = await signedUpPayer(s, 'bob@payers.example');
    const { id } = await askQuote(a.client, { kes: '700' });
    const seen = await b.client.request('GET', `/wallet/topups/mpesa/${id}`);
    expect(seen.status).toBe(404);
    expect(seen.html).not.toContain('700');
    const home = await b.client.request('GET', '/wallet');
    const pushes = peer.pushes.length;
    const taken = await b.client.request('POST', `/wallet/topups/mpesa/${id}/confirm`, {
      _csrf: WalletClient.csrfOf(home.html),
      pin: PAYER_PIN,
    });
    expect(taken.status).toBe(404);
    expect(peer.pushes.length).toBe(pushes);
    expect(home.html).not.toContain(id!);
    await confirm(a.client, id!);
    await waitForStatus(id!, 'credited');
    expect(await balanceOf(b.payerId)).toBe('0.000000');
    expect(await balanceOf(a.payerId)).toBe((await topupRow(id!)).asset_amount);
    // The sandbox wallet has no M-Pesa top-up (Daraja is live).
    const sandbox = await signedUpPayer(s, 'alice@payers.example', 'test');
    expect((await sandbox.client.request('GET', '/wallet')).html).not.toContain('Top up by M-Pesa');
    expect((await sandbox.client.request('GET', `/wallet/topups/mpesa/${id}`)).status).toBe(404);
  });

  it('an expired quote is refused with a clear message and sends nothing', async () => {
    const { client, payerId } = await signedUpPayer(s, 'late@payers.example');
    const { id } = await askQuote(client, { kes: '100' });
    clock.advance(10 * 60_000 + 1);
    const pushes = peer.pushes.length;
    const r = await confirm(client, id!);
    expect(r.r.status).toBe(409);
    expect(r.r.html).toMatch(/This quote expired at \d\d:\d\d UTC: prices move, so ask for a new quote\. Nothing was sent to your phone\./);
    expect(peer.pushes.length).toBe(pushes);
    expect((await topupRow(id!)).status).toBe('expired');
    expect(await balanceOf(payerId)).toBe('0.000000');
    // Fresh prices again at the new time, for what follows.
    await waitForAllAssets(s);
    await waitFor(
      'prices fetched after the clock moved',
      async () => (await askQuote(client, { kes: '100' })).r.status,
      (st) => st === 303,
    );
  });

  it('a top-up whose callback never came is credited after a restart, by the STK query of the next process', async () => {
    const { client, payerId } = await signedUpPayer(s, 'restart@payers.example');
    const { id } = await askQuote(client, { kes: '900' });
    peer.setNextBehaviour({ callback: 'never', delayMs: 0 });
    await confirm(client, id!);
    expect((await topupRow(id!)).status).toBe('pending');
    await s.stop();
    s = await startTestServer({ noLiveRails: true, clock, databaseUrl: database.url, env });
    clock.advance(2_000);
    const row = await waitForStatus(id!, 'credited');
    expect(row.queries).toBeGreaterThanOrEqual(1);
    expect(peer.calls.some((c) => c.path === '/mpesa/stkpushquery/v1/query' && c.status === 200)).toBe(true);
    expect(await balanceOf(payerId)).toBe(row.asset_amount);
    await expectPayerLedgerBalanced();
  });
  it.skipIf(!HAVE_CHROMIUM)(
    'in a browser at a phone width: the wallet with its M-Pesa and withdrawal forms, the quote, then the PIN sends the prompt, with no serious axe violation',
    async () => {
      const payer = await signedUpPayer(s, 'browser@mpesa-topups.example');
      const pushes = peer.pushes.length;
      const browser = await launchChromium({ width: 390, height: 844 });
      try {
        const page = await browser.context.newPage();
        await signInInBrowser(page, s, 'browser@mpesa-topups.example');
        expect(await axeSeriousViolations(page), 'wallet with the M-Pesa top-up and withdrawal forms').toEqual([]);
        const form = page.locator('form[action="/wallet/topups/mpesa"]');
        await form.getByLabel('Amount in Kenyan shillings').fill('1500');
        await form.getByLabel('M-Pesa phone number').fill('0712345678');
        await form.getByRole('button', { name: 'Get a quote' }).click();
        await page.waitForURL(/\/wallet\/topups\/mpesa\/ptm_[0-9A-Za-z]+$/);
        const id = /(ptm_[0-9A-Za-z]+)$/.exec(page.url())![1]!;
        const quoted = await topupRow(id);
        expect(quoted.status).toBe('quoted');
        // The quote is on the page before the PIN: the amount credited, as the row locked it.
        expect(await page.locator('#quote-amount').textContent()).toContain(quoted.asset_amount);
        expect(peer.pushes.length, 'nothing sent to the phone before the PIN').toBe(pushes);
        expect(await axeSeriousViolations(page), 'the quote with the PIN form').toEqual([]);
        await page.getByLabel('Transaction PIN').fill(PAYER_PIN);
        await page.getByRole('button', { name: 'Confirm and send the M-Pesa prompt' }).click();
        await waitFor(
          'the top-up to be pending',
          () => topupRow(id),
          (row) => row.status !== 'quoted',
        );
        expect((await topupRow(id)).payer_id).toBe(payer.payerId);
        expect(peer.pushes.length, 'one prompt sent after the PIN').toBe(pushes + 1);
        expect(await axeSeriousViolations(page), 'the top-up after the PIN').toEqual([]);
        expect(browser.cspViolations).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
