// The merchant console in a real browser (Debian's chromium driven by playwright-core): signing in by
// keyboard only, submitting the business verification (checked in the database the operator's command
// reads), the account and audit pages, every page with no serious or critical axe-core violation and no
// CSP violation, no sideways scroll at phone width (390 px), and screenshots for docs/screenshots.
// Skipped, saying so, only where /usr/bin/chromium is absent.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

if (!HAVE_CHROMIUM) {
  process.stdout.write(`\nBrowser console tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it).\n\n`);
}
const SCREENSHOTS = process.env['COWRIE_UPDATE_SCREENSHOTS']
  ? new URL('../docs/screenshots/', import.meta.url)
  : new URL(`file://${mkdtempSync(join(tmpdir(), 'cowrie-screens-'))}/`);
const PHONE = { width: 390, height: 844 };

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`merchant console in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let browser: Browser;
  let owner: { email: string; password: string; merchantId: string };
  let key: string;
  let intentId: string;
  const api = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key, body });

  beforeAll(async () => {
    s = await startTestServer();
    browser = await launchChromium();
    // A merchant not verified yet: the console opens on the test side and offers the verification form.
    const merchant = await s.newMerchant({ name: 'Shop', verified: false });
    const created = await s.running.services.console.createUser(merchant.merchant.id, 'owner@shop.example', 'owner');
    owner = { email: created.user.email, password: created.password, merchantId: merchant.merchant.id };
    key = merchant.keys.test_secret;
    const intent = await api('POST', '/payment-intents', { amount: '1500.00', currency: 'KES', merchant_reference: 'order-77' });
    expect(intent.status).toBe(201);
    intentId = intent.json.id;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function checked(page: Page, name: string): Promise<void> {
    expect(await axeSeriousViolations(page), `axe on ${name}`).toEqual([]);
    expect(browser.cspViolations, `CSP on ${name}`).toEqual([]);
    await page.screenshot({ path: new URL(`console-${name}.png`, SCREENSHOTS).pathname, fullPage: true });
  }

  it('signs in by keyboard only, sees balances and payments; every page passes axe', async () => {
    const page = await browser.context.newPage();
    await page.goto(s.url('test', '/console'));
    expect(page.url()).toBe(s.url('test', '/console/login'));
    await checked(page, 'login');
    // Keyboard only: the skip link, then the fields in order, Enter to send.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(owner.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(s.url('test', '/console'));
    await expect(page.getByRole('heading', { name: 'Recent payments' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('order-77').isVisible()).resolves.toBe(true);
    await checked(page, 'home');
    // The live side is closed until the business is verified.
    await page.getByRole('link', { name: 'Live' }).click();
    await expect(page.getByText('Live payments open once your business is verified').isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'Test' }).click();

    await page.getByRole('link', { name: 'Your account' }).click();
    await checked(page, 'account');
    await page.getByRole('link', { name: 'Audit log' }).click();
    await expect(page.getByText('login', { exact: true }).first().isVisible()).resolves.toBe(true);
    await checked(page, 'audit');
    // Payments, a payment's page with the sandbox driver, and the developers page.
    await page.getByRole('link', { name: 'Payments' }).click();
    await checked(page, 'payments');
    await page.getByRole('link', { name: /^pi_/ }).first().click();
    await page.getByLabel('Outcome').selectOption('success');
    await page.getByLabel('Payment method').selectOption('card');
    await page.getByRole('button', { name: 'Apply outcome' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Outcome applied');
    await expect(page.getByText('payment_intent.paid').first().isVisible()).resolves.toBe(true);
    expect((await api('GET', `/payment-intents/${intentId}`)).json.status).toBe('paid');
    await checked(page, 'payment');
    await page.getByRole('link', { name: 'Developers' }).click();
    await page.getByLabel('Type', { exact: true }).selectOption('restricted');
    await page.getByLabel('payments:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = (await page.locator('#shown-secret').textContent()) ?? '';
    expect(shown).toMatch(/^cwk_test_rk_/);
    const verified = await s.call('test', 'GET', '/auth/verify', { key: shown });
    expect(verified.json).toMatchObject({ key_type: 'restricted', scopes: ['payments:read'] });
    await checked(page, 'developers');
    for (const name of ['Refunds', 'Payouts', 'Settlements', 'Payment links', 'Customers', 'Reports', 'Events']) {
      await page.getByRole('link', { name, exact: true }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(name);
      await checked(page, name.toLowerCase().replace(' ', '-'));
    }
    await page.close();
  });

  it('the owner submits the business verification; the status shows in review', async () => {
    const page = await browser.context.newPage();
    await page.goto(s.url('test', '/console/verification'));
    await checked(page, 'verification');
    // A wrong field is announced and the rest kept.
    await page.getByLabel('Legal name').fill('Shop Ltd');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('registration number');
    await expect(page.getByLabel('Legal name').inputValue()).resolves.toBe('Shop Ltd');
    await page.getByLabel('Registration number').fill('PVT-2026-001');
    await page.getByLabel('Country (two-letter code)').fill('KE');
    await page.getByLabel('Address', { exact: true }).fill('1 Moi Avenue, Nairobi');
    await page.getByLabel('Contact name').fill('Ana Wanjiru');
    await page.getByLabel('Contact email').fill('ana@shop.example');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('in review');
    const m = await s.running.database.db
      .selectFrom('merchants')
      .select(['kyb_status', 'kyb_details'])
      .where('id', '=', owner.merchantId)
      .executeTakeFirstOrThrow();
    expect(m.kyb_status).toBe('in_review');
    expect(JSON.parse(m.kyb_details!)).toMatchObject({ legal_name: 'Shop Ltd', country: 'KE', contact_email: 'ana@shop.example' });
    await page.close();
  });

  it('the owner sets the transaction PIN, then refunds a balance payment with it', async () => {
    const pi = await api('POST', '/payment-intents', { amount: '20.00', currency: 'USD' });
    await api('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, { outcome: 'success', payment_method: 'service_balance' });
    const page = await browser.context.newPage();
    await page.goto(s.url('test', '/console/account'));
    await page.locator('#pin-password').fill(owner.password);
    await page.getByLabel('New PIN (6 digits)').fill('246810');
    await page.getByRole('button', { name: 'Set PIN' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('transaction PIN is set');
    await page.goto(s.url('test', `/console/payments/${pi.json.id}?env=test`));
    await checked(page, 'payment-refund');
    await page.getByLabel('Transaction PIN').fill('246810');
    await page.getByRole('button', { name: /^Refund USD 20\.00$/ }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Refunded');
    expect((await api('GET', `/payment-intents/${pi.json.id}`)).json.status).toBe('refunded');
    await page.close();
  });

  it('works at phone width: no sideways scroll, axe clean', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    for (const [path, name] of [
      ['/console', 'home-phone'],
      ['/console/verification', 'verification-phone'],
    ] as const) {
      await page.goto(s.url('test', path));
      const wide = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
      expect(wide, path).toBeLessThanOrEqual(PHONE.width);
      await checked(page, name);
    }
    await page.close();
  });
});
