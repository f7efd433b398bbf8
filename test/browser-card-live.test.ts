// The live checkout paying by card end to end in a real browser: Debian's chromium driven by playwright-core
// against a server whose live card rail talks to the Paystack peer. The customer picks card, gives an email,
// is sent to the peer's hosted page, declines there, comes back to the checkout to the failure in plain
// words, tries again and pays; the page shows "Paid". axe: no serious or critical violation. Skipped, saying
// so, only where /usr/bin/chromium is absent (.ci/run installs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';

if (!HAVE_CHROMIUM) process.stdout.write(`\nLive card browser test SKIPPED: ${CHROMIUM} is missing.\n\n`);

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`live checkout by card in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let peer: PaystackPeer;
  let browser: Browser;
  let livePort: number;

  beforeAll(async () => {
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET });
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    livePort = live;
    pointWebhooksAt(peer, live);
    s = await startTestServer({
      noLiveRails: true,
      env: { ...cardEnv(peer, live, sandbox), COWRIE_LIVE_URL: `http://127.0.0.1:${live}/v1` },
    });
    browser = await launchChromium({ width: 390, height: 844 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await peer?.close();
  });

  it('pays by card on Paystack’s page: declined first, then paid', async () => {
    const created = await s.call('live', 'POST', '/payment-intents', {
      key: s.merchant.keys.live_secret!,
      body: { amount: '2400.00', currency: 'KES', description: 'A woven basket', customer: { email: 'ama@example.com' } },
    });
    expect(created.status, created.text).toBe(201);
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${livePort}${new URL(created.json.checkout_url).pathname}`);
    expect(await page.locator('.sandbox-banner').count()).toBe(0);
    await page.getByLabel('Card', { exact: true }).check();
    expect(await page.getByLabel('Email for your receipt').inputValue()).toBe('ama@example.com');
    expect(await axeSeriousViolations(page)).toEqual([]);
    // To Paystack's page, where the card is declined; back at the checkout, the failure in plain words.
    await page.getByRole('button', { name: /Continue to pay KES 2,400.00 by card/ }).click();
    await page.waitForURL(`${peer.url}/checkout/**`);
    await page.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL(`**/checkout/${created.json.id}`);
    await page.locator('#status-headline', { hasText: 'That payment did not go through' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('#status-detail').textContent()).toMatch(/declined.*Try again/);
    expect(await axeSeriousViolations(page)).toEqual([]);
    // Again, and this time it pays.
    await page.getByLabel('Card', { exact: true }).check();
    await page.getByRole('button', { name: /Continue to pay/ }).click();
    await page.waitForURL(`${peer.url}/checkout/**`);
    await page.getByRole('button', { name: 'Pay (success)' }).click();
    await page.waitForURL(`**/checkout/${created.json.id}`);
    await page.locator('#status-headline', { hasText: 'Paid' }).waitFor({ timeout: 15_000 });
    const intent = await s.call('live', 'GET', `/payment-intents/${created.json.id}`, { key: s.merchant.keys.live_secret! });
    expect(intent.json).toMatchObject({ status: 'paid', payment_method: 'card', livemode: true });
    const txs = [...peer.transactions.values()];
    expect(txs.map((t) => [t.status, t.amount])).toEqual([
      ['failed', 240000],
      ['success', 240000],
    ]);
    expect(intent.json.provider_reference).toBe(String(txs[1]!.id));
    await page.close();
  });
});
