// The live checkout paying with PayPal end to end in a real browser: Debian's chromium driven by
// playwright-core against a server whose live PayPal rail talks to the PayPal peer. The customer picks
// PayPal, is sent to the peer's buyer page, cancels there, comes back to the checkout to the cancellation in
// plain words, tries again, approves and pays; the page shows "Paid". axe: no serious or critical
// violation. Skipped, saying so, only where /usr/bin/chromium is absent (.ci/run installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaypalPeer, type PaypalPeer } from '../peers/paypal/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';
import { PAYPAL_TEST, paypalEnv, pointPaypalWebhooksAt } from './helpers/paypal.js';

if (!HAVE_CHROMIUM) process.stdout.write(`\nLive PayPal browser test SKIPPED: ${CHROMIUM} is missing.\n\n`);

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`live checkout with PayPal in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let peer: PaypalPeer;
  let browser: Browser;
  let livePort: number;

  beforeAll(async () => {
    peer = await startPaypalPeer(PAYPAL_TEST);
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointPaypalWebhooksAt(peer, live);
    s = await startTestServer({
      noLiveRails: true,
      env: { ...paypalEnv(peer, live, sandbox), COWRIE_LIVE_URL: `http://127.0.0.1:${live}/v1` },
    });
    browser = await launchChromium({ width: 390, height: 844 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await peer?.close();
  });

  async function choosePaypal(page: Awaited<ReturnType<Browser['context']['newPage']>>) {
    const radio = page.getByLabel('PayPal', { exact: true });
    if ((await radio.count()) > 0) await radio.check();
    await page.getByRole('button', { name: 'Continue to PayPal' }).click();
    await page.waitForURL(`${peer.url}/checkoutnow?token=*`);
  }

  it('pays with PayPal on its buyer page: cancelled first, then approved and paid', async () => {
    const created = await s.call('live', 'POST', '/payment-intents', {
      key: s.merchant.keys.live_secret!,
      body: { amount: '48.00', currency: 'USD', description: 'A woven basket' },
    });
    expect(created.status, created.text).toBe(201);
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${livePort}${new URL(created.json.checkout_url).pathname}`);
    expect(await page.locator('.sandbox-banner').count()).toBe(0);
    expect(await axeSeriousViolations(page)).toEqual([]);
    // To PayPal, where the customer cancels; back at the checkout, the cancellation in plain words.
    await choosePaypal(page);
    await page.getByRole('button', { name: 'Cancel and return to the merchant' }).click();
    await page.waitForURL(`**/checkout/${created.json.id}`);
    await page.locator('#status-headline', { hasText: 'That payment did not go through' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#status-detail').textContent()).toMatch(/cancelled on PayPal.*Try again/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    // Again, and this time the customer approves: the return captures and pays.
    await choosePaypal(page);
    await page.getByRole('button', { name: 'Approve and pay' }).click();
    await page.waitForURL(`**/checkout/${created.json.id}`);
    await page.locator('#status-headline', { hasText: 'Paid' }).waitFor({ timeout: 15_000 });
    const intent = await s.call('live', 'GET', `/payment-intents/${created.json.id}`, { key: s.merchant.keys.live_secret! });
    expect(intent.json).toMatchObject({ status: 'paid', payment_method: 'paypal', livemode: true });
    const orders = [...peer.orders.values()];
    expect(orders.map((o) => [o.status, o.value])).toEqual([
      ['PAYER_ACTION_REQUIRED', '48.00'],
      ['COMPLETED', '48.00'],
    ]);
    expect(intent.json.provider_reference).toBe(orders[1]!.capture!.id);
    await page.close();
  });
});
