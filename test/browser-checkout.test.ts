// The hosted checkout in a real browser (Debian's chromium driven by playwright-core): every method paid
// in the sandbox and checked over the API (intent and event), live status of a move made elsewhere, the
// return_url redirect, no CSP violation, screenshots for docs/screenshots, and an axe-core accessibility
// check with no serious or critical violation. Skipped, saying so, only where /usr/bin/chromium is absent;
// .ci/run installs it, so CI always runs these.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { pathOf } from './helpers/checkout.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';

if (!HAVE_CHROMIUM) {
  process.stdout.write(`\nBrowser checkout tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it).\n\n`);
}
// The committed screenshots are refreshed with COWRIE_UPDATE_SCREENSHOTS=1; other runs write them to a
// temporary folder, so a test run leaves the work tree as it was.
const SCREENSHOTS = process.env['COWRIE_UPDATE_SCREENSHOTS']
  ? new URL('../docs/screenshots/', import.meta.url)
  : new URL(`file://${mkdtempSync(join(tmpdir(), 'cowrie-screens-'))}/`);

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`checkout in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    s = await startTestServer();
    browser = await launchChromium();
    context = browser.context;
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function intent(body: Record<string, unknown>): Promise<any> {
    const r = await s.sandbox('POST', '/payment-intents', {
      body: { amount: '1500.00', currency: 'KES', description: 'Order #1001: two baskets', ...body },
    });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  async function open(url: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    await page.goto(s.url('test', pathOf(url)));
    return page;
  }

  async function expectPaidOverApi(id: string, method: string): Promise<void> {
    const pi = await s.sandbox('GET', `/payment-intents/${id}`);
    expect(pi.json.status).toBe('paid');
    expect(pi.json.payment_method).toBe(method);
    // The event feed shows an event once every transaction that began before it has finished.
    await expect
      .poll(
        async () => {
          const events = await s.sandbox('GET', '/events?limit=100');
          return events.status === 200 ? events.json.data.filter((e: any) => e.data?.id === id).map((e: any) => e.type) : [];
        },
        { timeout: 10_000 },
      )
      .toEqual(expect.arrayContaining(['payment_intent.created', 'payment_intent.paid']));
  }

  async function waitForHeadline(page: Page, text: string, timeout = 10_000): Promise<void> {
    await page.locator('#status-headline', { hasText: text }).waitFor({ timeout });
  }

  it('pays from the balance in one step', async () => {
    const pi = await intent({});
    const page = await open(pi.checkout_url);
    // No method is chosen for the customer: no panel shows until one is.
    expect(await page.locator('input[name="method"]:checked').count()).toBe(0);
    expect(await page.locator('.method-form:visible').count()).toBe(0);
    await page.getByLabel('Account balance', { exact: true }).check();
    await page.getByRole('button', { name: 'Pay KES 1,500.00' }).click();
    await waitForHeadline(page, 'Paid');
    // The outcome takes the focus.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('status-headline');
    await expectPaidOverApi(pi.id, 'service_balance');
    await page.close();
  });

  it('pays by card: every field error at once, the number grouped as typed, a decline then a retry', async () => {
    const pi = await intent({});
    const page = await open(pi.checkout_url);
    await page.getByLabel('Card', { exact: true }).check();
    await page.getByLabel('Card number').pressSequentially('4242424242424241');
    // Grouped in fours while typed
    expect(await page.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4241');
    await page.getByLabel('Expiry (MM/YY)').fill('13/20');
    await page.getByLabel('Security code (CVC)').fill('1');
    await page.locator('#panel-card button[type=submit]').click();
    // All three mistakes at once, each beside (and described by) its field; focus on the first.
    await expect.poll(() => page.locator('#card_number-error').textContent()).toContain('not a valid card number');
    expect(await page.locator('#card_expiry-error').textContent()).toContain('MM/YY');
    expect(await page.locator('#card_cvc-error').textContent()).toContain('3-digit');
    expect(await page.locator('#err-card').textContent()).toBe('Fix the 3 fields marked below.');
    for (const label of ['Card number', 'Expiry (MM/YY)', 'Security code (CVC)']) {
      expect(await page.getByLabel(label).getAttribute('aria-invalid'), label).toBe('true');
    }
    expect(await page.getByLabel('Card number').getAttribute('aria-describedby')).toContain('card_number-error');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('card_number');
    expect(await axeSeriousViolations(page)).toEqual([]);
    expect(await s.running.database.db.selectFrom('rail_payments').select('id').where('payment_intent_id', '=', pi.id).execute()).toEqual(
      [],
    );
    // A declined card leaves the payment open: the error in plain words, the methods again.
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry (MM/YY)').fill('12/40');
    await page.getByLabel('Security code (CVC)').fill('123');
    await page.locator('#panel-card button[type=submit]').click();
    await waitForHeadline(page, 'That payment did not go through');
    expect(await page.locator('#status-detail').textContent()).toMatch(/declined.*Try again/);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('status-headline');
    expect(await page.locator('#methods').isVisible()).toBe(true);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.locator('#panel-card button[type=submit]').click();
    await waitForHeadline(page, 'Paid');
    await expectPaidOverApi(pi.id, 'card');
    const events = (await s.sandbox('GET', '/events?limit=100')).json.data.filter((e: any) => e.data?.id === pi.id).map((e: any) => e.type);
    expect(events).toContain('payment_intent.payment_failed');
    await page.close();
  });

  it('pays by M-Pesa: the STK push waits, then the test number pays', async () => {
    const pi = await intent({});
    const page = await open(pi.checkout_url);
    await page.getByLabel('M-Pesa', { exact: true }).check();
    await page.getByLabel('M-Pesa phone number').fill('+254700000001');
    await page.getByRole('button', { name: 'Send payment request' }).click();
    await waitForHeadline(page, 'Check your phone');
    expect(await page.locator('#status-detail').textContent()).toContain('M-Pesa PIN');
    await waitForHeadline(page, 'Paid');
    await expectPaidOverApi(pi.id, 'mpesa');
    await page.close();
  });

  it('pays by PayPal through the approval page', async () => {
    const pi = await intent({ amount: '25.00', currency: 'USD' });
    const page = await open(pi.checkout_url);
    await page.getByLabel('PayPal', { exact: true }).check();
    await page.getByRole('button', { name: 'Continue to PayPal' }).click();
    await page.waitForURL(/\/paypal\/rp_/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await page.waitForURL(new RegExp(`/checkout/${pi.id}$`));
    await waitForHeadline(page, 'Paid');
    await expectPaidOverApi(pi.id, 'paypal');
    await page.close();
  });

  it('pays from an external wallet: address, exact amount, QR, copy button and the sandbox deposit panel', async () => {
    const pi = await intent({});
    const page = await open(pi.checkout_url, { width: 390, height: 844 });
    await page.getByLabel('Crypto wallet', { exact: true }).check();
    await page.getByLabel('Network', { exact: true }).selectOption('tron');
    await page.getByRole('button', { name: 'Show deposit address' }).click();
    await page.locator('#wallet-instructions').waitFor({ state: 'visible' });
    const amount = (await page.locator('#w-amount').textContent())!;
    expect(amount).toMatch(/^\d+\.\d{6}$/);
    expect(Number(amount)).toBeGreaterThan(Number(pi.pay_amount));
    expect(await page.locator('#w-address').textContent()).toMatch(/^T/);
    expect(await page.locator('#w-qr').evaluate((img: any) => img.complete && img.naturalWidth > 0)).toBe(true);
    // The one asset amount shown is explained: what is due plus the tag.
    expect(await page.locator('#w-tag').textContent()).toMatch(new RegExp(`${pi.pay_amount} USDT due plus a tag of 0\\.\\d{6} USDT`));
    expect(await page.locator('.amount').textContent()).not.toContain(pi.pay_amount);
    await page.getByRole('button', { name: 'Copy amount' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe(`Copied: ${amount}`);
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(amount);
    await page.screenshot({ path: new URL('checkout-phone-wallet.png', SCREENSHOTS).pathname, fullPage: true });
    expect(await axeSeriousViolations(page)).toEqual([]);
    // A wrong amount is kept aside; the exact one pays.
    await page.getByLabel('Deposit amount').fill(pi.pay_amount);
    await page.getByRole('button', { name: 'Send simulated deposit' }).click();
    await expect.poll(() => page.locator('#deposit-result').textContent()).toContain('unmatched');
    await page.getByLabel('Deposit amount').fill(amount);
    await page.getByRole('button', { name: 'Send simulated deposit' }).click();
    await waitForHeadline(page, 'Paid');
    await expectPaidOverApi(pi.id, 'external_wallet');
    const unmatched = await s.sandbox('GET', '/wallet-deposits?status=unmatched');
    expect(unmatched.json.data.some((d: any) => d.amount === pi.pay_amount)).toBe(true);
    await page.close();
  });

  it('follows a move made elsewhere without reloading, and sends the customer to return_url', async () => {
    const returnUrl = s.url('test', '/docs/errors');
    const pi = await intent({ return_url: returnUrl });
    const page = await open(pi.checkout_url);
    await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
    await waitForHeadline(page, 'This payment was cancelled');
    expect(await page.locator('#methods').isHidden()).toBe(true);
    await page.waitForURL((u) => u.toString().startsWith(`${returnUrl}?payment_intent=${pi.id}`), { timeout: 10_000 });
    await page.close();
  });

  it('desktop and phone screenshots, an accessible page (axe: no serious or critical), no CSP violation', async () => {
    const pi = await intent({});
    const desktop = await open(pi.checkout_url);
    // Keyboard: Tab from the top reaches the method choice first, then the chosen method's form.
    await desktop.keyboard.press('Tab');
    expect(await desktop.evaluate(() => (globalThis as any).document.activeElement?.name)).toBe('method');
    await desktop.keyboard.press('ArrowRight');
    await desktop.keyboard.press('ArrowRight');
    expect(await desktop.evaluate(() => (globalThis as any).document.activeElement?.value)).toBe('card');
    await desktop.keyboard.press('Tab');
    expect(await desktop.evaluate(() => (globalThis as any).document.activeElement?.id)).toBe('card_number');
    await desktop.screenshot({ path: new URL('checkout-desktop.png', SCREENSHOTS).pathname });
    expect(await axeSeriousViolations(desktop)).toEqual([]);
    await desktop.close();

    const phone = await open(pi.checkout_url, { width: 390, height: 844 });
    await phone.getByLabel('M-Pesa', { exact: true }).check();
    expect(await phone.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: new URL('checkout-phone.png', SCREENSHOTS).pathname, fullPage: true });
    expect(await axeSeriousViolations(phone)).toEqual([]);
    await phone.close();

    const link = await s.sandbox('POST', '/payment-links', { body: { title: 'Donation', currency: 'USD' } });
    const amountPage = await open(link.json.url, { width: 390, height: 844 });
    expect(await axeSeriousViolations(amountPage)).toEqual([]);
    await amountPage.getByLabel('Amount to pay (USD)').fill('1.234');
    await amountPage.getByRole('button', { name: 'Continue to payment' }).click();
    await amountPage.locator('#amount-error').waitFor();
    expect(await amountPage.locator('#amount-error').textContent()).toContain('at most 2 decimals');
    expect(await axeSeriousViolations(amountPage)).toEqual([]);
    await amountPage.getByLabel('Amount to pay (USD)').fill('12.50');
    await amountPage.getByRole('button', { name: 'Continue to payment' }).click();
    await amountPage.waitForURL(/\/checkout\/pi_/);
    expect(await amountPage.locator('.fiat').textContent()).toBe('USD 12.50');
    await amountPage.close();
    expect(browser.cspViolations).toEqual([]);
  });
});
