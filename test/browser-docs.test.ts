// /docs and /docs/errors in a real browser (Debian's chromium driven by playwright-core): no sideways
// scroll of the page at phone width (390 px), the search box hides the sections that do not match, every
// heading's "#" link and every contents link lands on its heading, the wide boxes are reachable by
// keyboard, no CSP violation, an axe-core check with no serious or critical violation, and screenshots for
// docs/screenshots. Skipped, saying so, only where /usr/bin/chromium is absent.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { CHROMIUM, HAVE_CHROMIUM, axeSeriousViolations, launchChromium, type Browser } from './helpers/browser.js';

if (!HAVE_CHROMIUM) {
  process.stdout.write(`\nBrowser docs tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it).\n\n`);
}
// The committed screenshots are refreshed with COWRIE_UPDATE_SCREENSHOTS=1; other runs write them to a
// temporary folder, so a test run leaves the work tree as it was.
const SCREENSHOTS = process.env['COWRIE_UPDATE_SCREENSHOTS']
  ? new URL('../docs/screenshots/', import.meta.url)
  : new URL(`file://${mkdtempSync(join(tmpdir(), 'cowrie-screens-'))}/`);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

// A page in a browser takes seconds on a busy machine: each test may take 90.
describe.skipIf(!HAVE_CHROMIUM)(`docs in a browser (${ENGINE})`, { timeout: 90_000 }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  const cspViolations = () => browser.cspViolations;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    s = await startTestServer();
    browser = await launchChromium(DESKTOP);
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function open(path: string, viewport = DESKTOP): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${path}: ${e.message}`));
    await page.setViewportSize(viewport);
    await page.goto(s.url('test', path));
    if (path.startsWith('/docs') && !path.startsWith('/docs/errors')) {
      // The script reveals the search box once it runs.
      await page.locator('#docs-search').waitFor({ state: 'visible' });
    }
    return page;
  }

  const scrollWidth = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);

  it('at phone width (390 px) neither page scrolls sideways; wide boxes scroll inside and take keyboard focus', async () => {
    for (const path of ['/docs', '/docs/errors']) {
      const page = await open(path, PHONE);
      expect(await scrollWidth(page), path).toBeLessThanOrEqual(PHONE.width);
      // Some boxes really are wider than the phone, scroll by themselves, and are reachable by keyboard.
      const boxes = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('.scroll')].map((el: any) => ({
          wide: el.scrollWidth > el.clientWidth,
          tabIndex: el.tabIndex,
          name: el.getAttribute('aria-label'),
        })),
      );
      expect(boxes.length, path).toBeGreaterThan(0);
      expect(
        boxes.some((b) => b.wide),
        path,
      ).toBe(true);
      for (const b of boxes) {
        expect(b.tabIndex).toBe(0);
        expect(b.name).toBeTruthy();
      }
      // Tab from the page's top reaches a box (here: the first one after the links before it).
      const first = page.locator('.scroll').first();
      await first.focus();
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => (globalThis as any).document.activeElement?.classList.contains('scroll'))).toBe(true);
      await page.close();
    }
    // On a phone the contents start folded, so the reference is on the first screen.
    const page = await open('/docs', PHONE);
    expect(await page.locator('nav.toc details').evaluate((d: any) => d.open)).toBe(false);
    await page.locator('nav.toc summary').click();
    expect(await page.locator('nav.toc details').evaluate((d: any) => d.open)).toBe(true);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  });

  it('typing in the search box hides the sections that do not match, and the contents follow', async () => {
    const page = await open('/docs');
    const state = () =>
      page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('main .doc-section, main .doc-subsection')].map((el: any) => ({
          id: el.getAttribute('data-heading') as string,
          hidden: el.hidden as boolean,
          visible: el.getClientRects().length > 0,
          text: (el.textContent as string).toLowerCase(),
          tocHidden: (globalThis as any).document.querySelector(`nav.toc li[data-toc="${el.getAttribute('data-heading')}"]`)
            ?.hidden as boolean,
        })),
      );
    const before = await state();
    expect(before.length).toBeGreaterThan(20);
    expect(before.every((x) => x.visible && !x.hidden)).toBe(true);

    const search = page.getByRole('searchbox', { name: 'Search the reference' });
    await search.fill('idempotent-replayed');
    const after = await state();
    const shown = after.filter((x) => x.visible);
    const hidden = after.filter((x) => !x.visible);
    expect(shown.length).toBeGreaterThan(0);
    expect(hidden.length).toBeGreaterThan(10);
    for (const x of shown) expect(x.text, x.id).toContain('idempotent-replayed');
    for (const x of after.filter((y) => y.hidden)) {
      expect(x.text, x.id).not.toContain('idempotent-replayed');
      expect(x.tocHidden, `contents entry of ${x.id}`).toBe(true);
    }
    expect(shown.map((x) => x.id)).toContain('idempotency');
    await expect.poll(() => page.locator('#docs-search-status').textContent()).toMatch(/^\d+ sections? match/);

    // A section whose heading matches shows whole, its subsections included.
    await search.fill('webhooks and events');
    const webhooks = (await state()).filter((x) => x.visible).map((x) => x.id);
    expect(webhooks).toEqual(expect.arrayContaining(['webhooks-and-events', 'webhook-endpoints', 'deliveries', 'event-feed']));

    await search.fill('zzzznothing');
    expect((await state()).every((x) => !x.visible)).toBe(true);
    await expect.poll(() => page.locator('#docs-search-status').textContent()).toBe('No section matches.');

    // Escape clears the search and shows everything again.
    await search.press('Escape');
    expect(await search.inputValue()).toBe('');
    expect((await state()).every((x) => x.visible)).toBe(true);
    await page.close();
  });

  it('every heading\'s "#" link and every contents link lands on its heading', async () => {
    const page = await open('/docs');
    const ids: string[] = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('main :is(h1,h2,h3,h4,h5,h6)')].map((h: any) => h.id),
    );
    expect(ids.length).toBeGreaterThan(20);
    expect(new Set(ids).size).toBe(ids.length);
    const inView = (id: string) =>
      page.evaluate((target) => {
        const r = (globalThis as any).document.getElementById(target).getBoundingClientRect();
        return r.top >= -1 && r.bottom <= (globalThis as any).innerHeight + 1;
      }, id);
    for (const id of ids) {
      const link = page.locator(`main a.anchor[href="#${id}"]`);
      expect(await link.count(), id).toBe(1);
      expect(await link.textContent(), id).toMatch(/^#/);
      await link.click();
      expect(await page.evaluate(() => (globalThis as any).location.hash)).toBe(`#${id}`);
      expect(await inView(id), id).toBe(true);
    }
    const contents = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('nav.toc a')].map((a: any) => a.getAttribute('href')),
    );
    expect(contents.length).toBeGreaterThan(20);
    for (const href of contents) {
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
      await page.locator(`nav.toc a[href="${href}"]`).click();
      expect(await page.evaluate(() => (globalThis as any).location.hash)).toBe(href);
      expect(await inView(href.slice(1)), href).toBe(true);
    }
    // A fresh load of a heading's address lands on it too.
    const direct = await open(`/docs#${ids[ids.length - 3]}`);
    expect(
      await direct.evaluate(
        (id) => (globalThis as any).document.getElementById(id).getBoundingClientRect().top < (globalThis as any).innerHeight,
        ids[ids.length - 3],
      ),
    ).toBe(true);
    await direct.close();
    await page.close();
  });

  it('an error code anchor of /docs/errors still lands on its row', async () => {
    const page = await open('/docs/errors#idempotency_conflict');
    const row = page.locator('tr#idempotency_conflict');
    expect(await row.count()).toBe(1);
    expect(await row.evaluate((r: any) => r.matches(':target'))).toBe(true);
    await page.close();
  });

  it('axe finds no serious or critical violation on /docs and /docs/errors, desktop and phone; no CSP violation; screenshots', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      for (const path of ['/docs', '/docs/errors']) {
        const page = await open(path, viewport);
        expect(await axeSeriousViolations(page), `${path} at ${viewport.width}px`).toEqual([]);
        if (path === '/docs') {
          const name = viewport === DESKTOP ? 'docs-desktop.png' : 'docs-phone.png';
          await page.screenshot({ path: new URL(name, SCREENSHOTS).pathname });
          // With a search applied too (hidden sections, a status message).
          await page.getByRole('searchbox', { name: 'Search the reference' }).fill('refund');
          expect(await axeSeriousViolations(page), `${path} searched at ${viewport.width}px`).toEqual([]);
        }
        await page.close();
      }
    }
    expect(cspViolations()).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
