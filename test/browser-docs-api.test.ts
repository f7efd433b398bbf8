// /docs/api in a real browser (Debian's chromium driven by playwright-core): Redoc renders the server's
// OpenAPI document, its search box finds operations, the error codes link to /docs/errors, and the page
// does so with no request leaving 127.0.0.1, no CSP violation, no page error, no serious axe-core
// violation and, at phone width (390 px), no sideways scroll of the page. Skipped, saying so, only where /usr/bin/chromium is absent.
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';

if (!HAVE_CHROMIUM) {
  process.stdout.write(`\nBrowser /docs/api tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it).\n\n`);
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`/docs/api in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];
  /** Every address the pages asked for, worker and blob: ones included. */
  const requested: string[] = [];
  /** securitypolicyviolation events seen by the pages themselves (the console ones are in browser.cspViolations). */
  const violations: string[] = [];

  beforeAll(async () => {
    s = await startTestServer();
    browser = await launchChromium(DESKTOP);
    browser.context.on('request', (r: Request) => requested.push(r.url()));
    await browser.context.exposeBinding('__cspViolation', (_source, text: string) => violations.push(text));
    await browser.context.addInitScript(() => {
      (globalThis as any).document.addEventListener('securitypolicyviolation', (e: any) =>
        (globalThis as any).__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
      );
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function open(viewport = DESKTOP): Promise<Page> {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.setViewportSize(viewport);
    await page.goto(s.url('test', '/docs/api'));
    await page.locator('#redoc[data-state="ready"]').waitFor({ timeout: 20_000 });
    return page;
  }

  it('renders every operation of the OpenAPI document, with links to the other docs pages', async () => {
    const page = await open();
    await page.getByRole('heading', { name: 'Create a payment intent' }).first().waitFor();
    const doc = (await s.call('test', 'GET', '/v1/openapi.json')).json;
    const count = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    // Redoc gives each operation a section with id "operation/<operationId>".
    expect(await page.locator('[id^="operation/"]').count()).toBe(count);
    expect(await page.locator('#redoc [id="operation/createPaymentIntent"]').count()).toBe(1);
    await expect.poll(() => page.title()).toMatch(/API reference/);
    expect(await page.locator('header a[href="/docs"]').count()).toBe(1);
    expect(await page.locator('header a[href="/docs/errors"]').count()).toBe(1);
    // An error code in a response description is a link to its row of /docs/errors, which lands on it.
    const section = page.locator('[id="operation/createPaymentIntent"]');
    await section.getByRole('button', { name: /^409/ }).first().click();
    const link = section.locator('a[href="/docs/errors#idempotency_conflict"]').first();
    await link.waitFor();
    await link.click();
    await page.waitForURL(/\/docs\/errors#idempotency_conflict$/);
    expect(await page.locator('tr#idempotency_conflict').evaluate((r: any) => r.matches(':target'))).toBe(true);
    await page.close();
  });

  it('its search box finds operations: "refund" lists the refund operations, and choosing one goes there', async () => {
    const page = await open();
    const search = page.getByRole('textbox', { name: 'Search' });
    await search.fill('refund');
    const results = page.locator('[data-role="search:results"] [role="menuitem"]');
    await expect.poll(() => results.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const texts = (await results.allTextContents()).map((t) => t.toLowerCase());
    expect(texts.some((t) => t.includes('refund'))).toBe(true);
    await search.fill('zzzznothing');
    await expect.poll(() => page.locator('[data-role="search:results"]').textContent()).toMatch(/no results/i);
    expect(await results.count()).toBe(0);
    await search.fill('refund');
    await expect.poll(() => results.count()).toBeGreaterThan(0);
    await results.first().click();
    await expect.poll(() => page.evaluate(() => (globalThis as any).location.hash)).toMatch(/^#(operation|tag)\//);
    await page.close();
  });

  it('has no serious or critical accessibility violation (axe-core): no error-code link sits inside a button', async () => {
    const page = await open();
    expect(await axeSeriousViolations(page)).toEqual([]);
    // The 409 response's header is a button showing the short summary; its code links are in its body.
    const header = page.locator('[id="operation/createPaymentIntent"]').getByRole('button', { name: /^409/ }).first();
    expect(await header.locator('a').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('at phone width (390 px) the page does not scroll sideways', async () => {
    const page = await open(PHONE);
    await page.locator('[id="operation/createPaymentIntent"]').waitFor();
    const scrollWidth = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    expect(await scrollWidth()).toBeLessThanOrEqual(PHONE.width);
    // Nor once an operation's request and response samples are in view.
    await page.locator('[id="operation/createPaymentIntent"]').scrollIntoViewIfNeeded();
    expect(await scrollWidth()).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  });

  it('asked nothing of any host but this server, with no CSP violation and no page error', () => {
    expect(requested.length).toBeGreaterThan(3);
    const own = new Set([new URL(s.url('test')).origin]);
    const foreign = requested.filter((url) => {
      const u = new URL(url.startsWith('blob:') ? url.slice(5) : url);
      return url.startsWith('data:') ? false : !own.has(u.origin);
    });
    expect(foreign).toEqual([]);
    expect(requested.some((u) => /\/docs\/redoc\.[0-9a-f]{12}\.js$/.test(u))).toBe(true);
    expect(requested.some((u) => u.endsWith('/v1/openapi.json'))).toBe(true);
    expect(browser.cspViolations).toEqual([]);
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
