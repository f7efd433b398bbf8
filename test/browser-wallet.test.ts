// The live service balance in a real browser (Debian's chromium driven by playwright-core), on SQLite and
// PostgreSQL, at a phone's width (390 px): open a wallet, receive funds (the operator's adjustment), open a
// live checkout, choose "Account balance", sign in from there and come back, see the balance and the
// amount, pay with the PIN (a wrong PIN first, said in plain words), and see it paid; the wallet lists
// the payment. axe-core finds no serious or critical violation on any of these pages, and no CSP violation.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { pathOf } from './helpers/checkout.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';
import { PAYER_PASSWORD, PAYER_PIN } from './helpers/wallet.js';

if (!HAVE_CHROMIUM) {
  process.stdout.write(`\nBrowser wallet tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it).\n\n`);
}

const PHONE = { width: 390, height: 844 };

describe.skipIf(!HAVE_CHROMIUM)(`the wallet and the live balance in a browser (${ENGINE})`, { timeout: 120_000 }, () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer({ noLiveRails: true, env: { COWRIE_PAYER_ACCOUNTS: 'on' } });
    browser = await launchChromium(PHONE);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function expectAccessible(page: Page, where: string) {
    expect(await axeSeriousViolations(page), where).toEqual([]);
  }

  it('signs up, pays a live checkout from the balance with the PIN, and sees the payment in the wallet', async () => {
    const page = await browser.context.newPage();
    await page.goto(s.url('live', '/wallet/signup'));
    await expectAccessible(page, 'sign-up page');
    await page.getByLabel('Email').fill('browser@payers.example');
    await page.getByLabel('Password').fill(PAYER_PASSWORD);
    await page.getByLabel('Transaction PIN').fill(PAYER_PIN);
    await page.getByRole('button', { name: 'Open my wallet' }).click();
    await page.waitForURL(/\/wallet$/);
    await expect.poll(() => page.locator('#balance-USDT').textContent()).toBe('USDT 0.000000');
    await expectAccessible(page, 'wallet page');
    const payer = await s.running.database.db
      .selectFrom('payers')
      .select('id')
      .where('email', '=', 'browser@payers.example')
      .executeTakeFirstOrThrow();
    await s.running.services.payerAccounts.adjust(payer.id, { amount: '40', asset: 'USDT', reason: 'cash deposit at the counter' });

    // Signed out, the checkout's balance panel sends the payer to sign in and back.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/wallet\/login$/);
    const created = await s.call('live', 'POST', '/payment-intents', {
      key: s.merchant.keys.live_secret!,
      body: { amount: '12.50', currency: 'USD', description: 'Two coffees' },
    });
    expect(created.status, created.text).toBe(201);
    const pi = created.json;
    await page.goto(s.url('live', pathOf(pi.checkout_url)));
    await page.getByLabel('Account balance', { exact: true }).check();
    await expectAccessible(page, 'checkout, signed out');
    await page.getByRole('link', { name: 'Sign in to your wallet' }).click();
    await page.waitForURL(/\/wallet\/login\?return=/);
    await expectAccessible(page, 'sign-in page');
    await page.getByLabel('Email').fill('browser@payers.example');
    await page.getByLabel('Password').fill(PAYER_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(new RegExp(`/checkout/${pi.id}$`));

    await page.getByLabel('Account balance', { exact: true }).check();
    expect(await page.locator('#wallet-balance').textContent()).toBe('USDT 40.000000');
    expect(await page.locator('#wallet-pay-amount').textContent()).toBe(`USDT ${pi.pay_amount}`);
    await expectAccessible(page, 'checkout, signed in');
    await page.getByLabel('Transaction PIN').fill('999999');
    await page.getByRole('button', { name: `Pay USDT ${pi.pay_amount}` }).click();
    await expect.poll(() => page.locator('#status-detail').textContent()).toContain('The PIN entered was wrong.');
    await page.getByLabel('Account balance', { exact: true }).check();
    await page.getByLabel('Transaction PIN').fill(PAYER_PIN);
    await page.getByRole('button', { name: `Pay USDT ${pi.pay_amount}` }).click();
    await expect.poll(() => page.locator('#status-headline').textContent(), { timeout: 20_000 }).toBe('Paid. Thank you!');
    await expectAccessible(page, 'checkout, paid');
    const paid = await s.call('live', 'GET', `/payment-intents/${pi.id}`, { key: s.merchant.keys.live_secret! });
    expect(paid.json.status).toBe('paid');
    expect(paid.json.payment_method).toBe('service_balance');

    await page.goto(s.url('live', '/wallet'));
    expect(await page.locator('#balance-USDT').textContent()).toBe(`USDT ${(40 - Number(pi.pay_amount)).toFixed(6)}`);
    expect(await page.locator('table').textContent()).toContain(pi.id);
    expect(await page.locator('table').textContent()).toContain(`-USDT ${pi.pay_amount}`);
    await expectAccessible(page, 'wallet page with movements');
    expect(browser.cspViolations).toEqual([]);
    await page.close();
  });
});
