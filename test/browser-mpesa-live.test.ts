// The live checkout paying by M-Pesa end to end in a real browser: Debian's chromium driven by
// playwright-core against a server whose live M-Pesa rail talks to the Daraja peer. The
// customer picks M-Pesa, enters a phone, sees "Check your phone", then "Paid" once the peer's callback
// arrives; a cancelled push shows the failure and lets the customer pay again. axe: no serious or critical
// violation. Skipped, saying so, only where /usr/bin/chromium is absent (.ci/run installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';
import { MPESA_TEST_CREDENTIALS as CREDS, mpesaEnv } from './helpers/mpesa.js';

if (!HAVE_CHROMIUM) process.stdout.write(`\nLive M-Pesa browser test SKIPPED: ${CHROMIUM} is missing.\n\n`);

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`live checkout by M-Pesa in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let peer: DarajaPeer;
  let browser: Browser;
  let livePort: number;

  beforeAll(async () => {
    peer = await startDarajaPeer(CREDS);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    s = await startTestServer({ noLiveRails: true, env: mpesaEnv(peer, live, sandbox) });
    browser = await launchChromium({ width: 390, height: 844 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await peer?.close();
  });

  it('pays by M-Pesa: a cancelled push first, then the phone approves', async () => {
    const created = await s.call('live', 'POST', '/payment-intents', {
      key: s.merchant.keys.live_secret!,
      body: { amount: '1250.00', currency: 'KES', description: 'Two baskets' },
    });
    expect(created.status, created.text).toBe(201);
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${livePort}${new URL(created.json.checkout_url).pathname}`);
    expect(await page.locator('.sandbox-banner').count()).toBe(0);
    await page.getByLabel('M-Pesa', { exact: true }).check();
    // The first push is cancelled on the phone: the failure in plain words, the methods again.
    await page.getByLabel('M-Pesa phone number').fill('0700000002');
    await page.getByRole('button', { name: 'Send payment request' }).click();
    await page.locator('#status-headline', { hasText: 'That payment did not go through' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#status-detail').textContent()).toMatch(/cancelled.*Try again/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    // Then the phone approves.
    await page.getByLabel('M-Pesa phone number').fill('0712345678');
    await page.getByRole('button', { name: 'Send payment request' }).click();
    await page.locator('#status-headline', { hasText: 'Check your phone' }).waitFor();
    await page.locator('#status-headline', { hasText: 'Paid' }).waitFor({ timeout: 15_000 });
    const intent = await s.call('live', 'GET', `/payment-intents/${created.json.id}`, { key: s.merchant.keys.live_secret! });
    expect(intent.json).toMatchObject({ status: 'paid', payment_method: 'mpesa', livemode: true });
    expect(intent.json.provider_reference).toBe(peer.pushes.at(-1)!.receipt);
    expect(peer.pushes.map((p) => p.body['Amount'])).toEqual([1250, 1250]);
    await page.close();
  });
});
