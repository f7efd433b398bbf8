// What the browser tests share: Debian's chromium launched by playwright-core with the flags this machine
// needs (a fresh profile, no background networking), CSP violations collected from the console, and an
// axe-core check that answers the serious and critical violations of a page.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Browser {
  context: BrowserContext;
  /** Console messages about the Content-Security-Policy (there should be none). */
  cspViolations: string[];
  close(): Promise<void>;
}

export async function launchChromium(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'cowrie-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport,
  });
  const cspViolations: string[] = [];
  context.on('console', (msg) => {
    if (/Content[- ]Security[- ]Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  return {
    context,
    cspViolations,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** axe-core's serious and critical violations of the page, one line each (id, impact, count, an example, help). */
export async function axeSeriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const r = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.length,
      help: v.help,
      target: v.nodes[0]?.target?.join(' '),
    }));
  });
  return result
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => `${v.id} (${v.impact}, ${v.nodes}, e.g. ${v.target}): ${v.help}`);
}
