// /docs/api over HTTP: an HTML page under a CSP that allows no inline or foreign script and no eval, its
// Redoc bundle and init script served by the process at hashed addresses browsers may keep for good, and
// links to the other docs pages (and theirs back to it); the OpenAPI document it renders gives every
// operation a description and every error code of every error response as a link to its row of /docs/errors.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDOCLY_LOGO } from '../src/modules/docs/api-page.js';
import { ERROR_CODES } from '../src/shared/errors.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

type Json = Record<string, any>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function operations(doc: Json): Array<{ label: string; op: Json }> {
  const out: Array<{ label: string; op: Json }> = [];
  for (const [path, item] of Object.entries<Json>(doc['paths'] ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) out.push({ label: `${method.toUpperCase()} ${path}`, op: item[method] });
  }
  return out;
}

/** Resolves a local `$ref` (`#/components/...`). */
function deref(doc: Json, node: Json): Json {
  let cur = node;
  for (let i = 0; i < 10 && typeof cur?.['$ref'] === 'string'; i++) {
    cur = (cur['$ref'] as string)
      .slice(2)
      .split('/')
      .reduce<Json>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return cur;
}

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

describe(`/docs/api, the OpenAPI document rendered by Redoc (${ENGINE})`, () => {
  let s: TestServer;
  let doc: Json;
  let page: { status: number; html: string; headers: Headers };
  beforeAll(async () => {
    s = await startTestServer();
    doc = (await s.call('test', 'GET', '/v1/openapi.json')).json;
    const r = await s.call('test', 'GET', '/docs/api');
    page = { status: r.status, html: r.text, headers: r.headers };
  });
  afterAll(async () => s?.stop());

  it('answers HTML with a title, a language and links back to /docs and /docs/errors, without a key', () => {
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.html).toMatch(/^<!doctype html><html lang="en">/);
    expect(/<title>([^<]+)<\/title>/.exec(page.html)?.[1]).toMatch(/API reference/);
    expect(page.html).toContain('<a href="/docs">');
    expect(page.html).toContain('<a href="/docs/errors">');
    expect(page.html).toMatch(/<div id="redoc" data-spec="\/v1\/openapi\.json">/);
    expect(page.html.match(/<main[\s>]/g)).toHaveLength(1);
  });

  it('is served under a strict CSP: scripts from this server only, no eval, nothing from elsewhere', () => {
    const csp = page.headers.get('content-security-policy')!;
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name!, values.join(' ')];
      }),
    );
    expect(directives.get('default-src')).toBe("'none'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(directives.get('img-src')).toBe("'self' data:");
    expect(directives.get('connect-src')).toBe("'self'");
    expect(directives.get('worker-src')).toBe('blob:');
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('base-uri')).toBe("'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it('loads Redoc and its init script from this server, never inline, at immutable hashed addresses', async () => {
    const scripts = [...page.html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    const srcs = scripts.map((m) => {
      expect(m[2], 'no inline script').toBe('');
      return attr(m[1]!, 'src')!;
    });
    expect(srcs[0]).toMatch(/^\/docs\/redoc\.[0-9a-f]{12}\.js$/);
    expect(srcs[1]).toMatch(/^\/docs\/api\.[0-9a-f]{12}\.js$/);
    const style = /<link rel="stylesheet" href="([^"]+)">/.exec(page.html)?.[1];
    expect(style).toMatch(/^\/docs\/api\.[0-9a-f]{12}\.css$/);
    expect(page.html).not.toMatch(/\s(src|href)="(https?:)?\/\//);

    for (const path of [...srcs, style!]) {
      const r = await s.call('test', 'GET', path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type'), path).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(r.headers.get('cache-control'), path).toBe('public, max-age=31536000, immutable');
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    const redoc = await s.call('test', 'GET', srcs[0]!);
    // Redoc as published, but for the one address it would fetch from elsewhere (Redocly's logo).
    expect(bundle).toContain(REDOCLY_LOGO);
    expect(redoc.text).toBe(bundle.replaceAll(`"${REDOCLY_LOGO}"`, '""'));
    expect(redoc.text).not.toContain('cdn.redoc.ly');
    expect((await s.call('test', 'GET', srcs[1]!)).text).toContain('Redoc.init');
    // The bundle's first comment points at its licence notice, served next to it.
    const license = await s.call('test', 'GET', '/docs/redoc.standalone.js.LICENSE.txt');
    expect(license.status).toBe(200);
    expect(license.text.length).toBeGreaterThan(100);
    // The live listener serves the same page.
    const live = await s.call('live', 'GET', '/docs/api');
    expect(live.status).toBe(200);
    expect(live.text).toBe(page.html);
  });

  it('is linked from /docs and /docs/errors', async () => {
    for (const path of ['/docs', '/docs/errors']) {
      const r = await s.call('test', 'GET', path);
      expect(r.text, path).toMatch(/<a href="\/docs\/api">[^<]+<\/a>/);
    }
  });

  it('renders a document in which every operation has a description', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThanOrEqual(30);
    const missing = ops.filter(({ op }) => typeof op['description'] !== 'string' || op['description'].trim().length < 10);
    expect(
      missing.map((o) => o.label),
      'give each a description in src/http/openapi-operations.ts',
    ).toEqual([]);
  });

  it('every error code of every error response is a link to its row of /docs/errors', async () => {
    const errors = (await s.call('test', 'GET', '/docs/errors')).text;
    const rows = new Set([...errors.matchAll(/<tr id="([^"]+)">/g)].map((m) => m[1]!));
    expect(rows.size).toBe(Object.keys(ERROR_CODES).length);
    let checked = 0;
    for (const { label, op } of operations(doc)) {
      for (const [status, response] of Object.entries<Json>(op['responses'] ?? {})) {
        if (!/^[45]/.test(status)) continue;
        const description = String(deref(doc, response)['description'] ?? '');
        const where = `${label} ${status}: ${description}`;
        // Every code in backticks, linked or not, and every link to /docs/errors.
        const mentioned = [...description.matchAll(/`([a-z][a-z0-9_]*)`/g)].map((m) => m[1]!);
        const links = [...description.matchAll(/\[`([a-z][a-z0-9_]*)`\]\(\/docs\/errors#([^)]*)\)/g)].map((m) => ({
          code: m[1]!,
          anchor: m[2]!,
        }));
        expect(mentioned.length, where).toBeGreaterThan(0);
        expect(
          links.map((l) => l.code),
          where,
        ).toEqual(mentioned);
        for (const { code, anchor } of links) {
          expect(anchor, where).toBe(code);
          expect(Object.keys(ERROR_CODES), where).toContain(code);
          expect(rows.has(anchor), `${where}: /docs/errors has no row ${anchor}`).toBe(true);
          checked++;
        }
        expect(description.match(/\]\(/g)?.length ?? 0, `${where}: only links to /docs/errors`).toBe(links.length);
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
