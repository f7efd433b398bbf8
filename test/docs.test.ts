// The served documentation, read over HTTP: /docs has a main landmark, contents made of its h2/h3
// headings, an id and a "#" link on every heading (GitHub-style slugs, unique), every table and code block
// in a named, focusable scroll box, and a search script served as a file under a CSP without inline
// script; every OpenAPI operation has a unique camelCase operationId, a description and examples (the
// request body's, the success response's) that are valid against its schemas, all from the one table in
// src/http/openapi-operations.ts.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, operationKey } from '../src/http/openapi-operations.js';
import { slugify } from '../src/modules/docs/render.js';
import { ERROR_CODES } from '../src/shared/errors.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

type Json = Record<string, any>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operations(doc: Json): Array<{ key: string; op: Json }> {
  const out: Array<{ key: string; op: Json }> = [];
  for (const [path, item] of Object.entries<Json>(doc['paths'] ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) out.push({ key: operationKey(method, path), op: item[method] });
  }
  return out;
}

function successJson(op: Json): Json | undefined {
  const success = Object.entries<Json>(op['responses'] ?? {}).find(([status]) => status.startsWith('2'))?.[1];
  return success?.['content']?.['application/json'];
}

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

describe(`docs and OpenAPI operations (${ENGINE})`, () => {
  let s: TestServer;
  let doc: Json;
  let docs: { html: string; headers: Headers };
  beforeAll(async () => {
    s = await startTestServer();
    doc = (await s.call('test', 'GET', '/v1/openapi.json')).json;
    const r = await s.call('test', 'GET', '/docs');
    expect(r.status).toBe(200);
    docs = { html: r.text, headers: r.headers };
  });
  afterAll(async () => s?.stop());

  describe('OpenAPI operations', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    const validator = (schema: Json): ValidateFunction => ajv.compile(structuredClone(schema));

    it('every documented operation has a row in src/http/openapi-operations.ts', () => {
      const missing = operations(doc)
        .map((o) => o.key)
        .filter((key) => !OPERATIONS[key]);
      expect(missing, 'add a row for each to OPERATIONS').toEqual([]);
      expect(operations(doc).length).toBeGreaterThanOrEqual(30);
    });

    it('every operation has a unique camelCase operationId, the one of its row', () => {
      const ids = operations(doc).map(({ key, op }) => {
        expect(op['operationId'], key).toBe(OPERATIONS[key]?.operationId);
        expect(op['operationId'], key).toMatch(/^[a-z][a-zA-Z0-9]*$/);
        return op['operationId'] as string;
      });
      expect(new Set(ids).size).toBe(ids.length);
      // The table's own ids are unique too, those of routes still to come included.
      const all = Object.values(OPERATIONS).map((o) => o.operationId);
      expect(new Set(all).size).toBe(all.length);
      for (const id of all) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    });

    it('every operation has a description of its own, and an authenticated one still names its scopes', () => {
      for (const { key, op } of operations(doc)) {
        const description = String(op['description'] ?? '');
        const own = description
          .replace(/Scope: any one of [^.]*\./, '')
          .replace('Any valid key, publishable keys included.', '')
          .trim();
        expect(own.length, `${key}: "${description}"`).toBeGreaterThan(15);
        if ((op['security'] as Json[]).length > 0) expect(description, key).toMatch(/Scope: any one of `|Any valid key/);
      }
    });

    it('the table keys are "METHOD /path" as the document spells them', () => {
      for (const key of Object.keys(OPERATIONS)) {
        expect(key).toMatch(/^(GET|POST|DELETE|PUT|PATCH) \/[a-z0-9_\-/{}]*$/);
        expect(key).not.toMatch(/ \/v1\/|:/);
      }
    });

    describe.each(Object.entries(OPERATIONS))('%s', (key, entry) => {
      const find = () => operations(doc).find((o) => o.key === key)?.op;
      // A row whose route has not landed yet is skipped, not failed.
      it('has examples valid against its schemas', (ctx) => {
        const op = find();
        if (!op) {
          ctx.skip(`${key} is not in the document (yet)`);
          return;
        }
        const body = op['requestBody']?.['content']?.['application/json'];
        if (body?.['schema']) {
          expect(entry.requestExample, `${key}: the body needs an example`).toBeDefined();
          expect(body['example']).toEqual(entry.requestExample);
          const validate = validator(body['schema']);
          expect(validate(entry.requestExample), `${key} request: ${ajv.errorsText(validate.errors)}`).toBe(true);
        } else {
          expect(entry.requestExample, `${key} takes no body`).toBeUndefined();
        }
        const success = successJson(op);
        expect(success?.['schema'], `${key}: no JSON success response`).toBeDefined();
        expect(success!['example']).toEqual(entry.responseExample);
        const validate = validator(success!['schema']);
        expect(validate(entry.responseExample), `${key} response: ${ajv.errorsText(validate.errors)}`).toBe(true);
      });
    });

    it('a request example is accepted by the server itself', async () => {
      const entry = OPERATIONS['POST /payment-intents']!;
      const r = await s.sandbox('POST', '/payment-intents', { body: entry.requestExample });
      expect(r.status, r.text).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual(Object.keys(entry.responseExample).sort());
      const customer = await s.sandbox('POST', '/customers', { body: OPERATIONS['POST /customers']!.requestExample });
      expect(customer.status, customer.text).toBe(201);
    });
  });

  describe('/docs', () => {
    const headings = () => [...docs.html.matchAll(/<h([1-6])(\s[^>]*)?>([\s\S]*?)<\/h\1>/g)];

    it('slugs headings as GitHub does, unique with -1, -2 …', () => {
      const seen = new Map<string, number>();
      expect(slugify('Amounts, currencies and rates', seen)).toBe('amounts-currencies-and-rates');
      expect(slugify('GET /auth/verify', seen)).toBe('get-authverify');
      expect(slugify('POST /quotes (scope payments:read)', seen)).toBe('post-quotes-scope-paymentsread');
      expect(slugify('Deliveries', seen)).toBe('deliveries');
      expect(slugify('Deliveries', seen)).toBe('deliveries-1');
      expect(slugify('Deliveries', seen)).toBe('deliveries-2');
      expect(slugify('webhook_events', seen)).toBe('webhook_events');
    });

    it('has one main landmark, after the contents and a skip link to it', () => {
      expect(docs.html.match(/<main[\s>]/g)).toHaveLength(1);
      expect(docs.html).toMatch(/<main id="content">/);
      expect(docs.html).toMatch(/<a class="skip" href="#content">/);
      expect(docs.html).toMatch(/<html lang="en">/);
    });

    it('every heading has a unique id and a "#" link to it', () => {
      const found = headings();
      expect(found.length).toBeGreaterThan(20);
      const ids = found.map((m) => {
        const id = attr(m[2] ?? '', 'id');
        expect(id, m[0]).toMatch(/^[\p{L}\p{N}_-]+$/u);
        expect(m[3], id).toContain(`<a class="anchor" href="#${id}"><span aria-hidden="true">#</span>`);
        return id!;
      });
      expect(new Set(ids).size).toBe(ids.length);
      const all = [...docs.html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
      expect(new Set(all).size, 'ids unique on the page').toBe(all.length);
    });

    it('the contents link to every h2 and h3, in order, and nothing else', () => {
      const nav = /<nav class="toc" aria-label="Contents">([\s\S]*?)<\/nav>/.exec(docs.html)?.[1];
      expect(nav).toBeDefined();
      const links = [...nav!.matchAll(/<a href="#([^"]+)">/g)].map((m) => m[1]);
      const h23 = headings()
        .filter((m) => m[1] === '2' || m[1] === '3')
        .map((m) => attr(m[2] ?? '', 'id'));
      expect(links).toEqual(h23);
      for (const id of ['authentication', 'idempotency', 'payment-intents', 'refunds', 'webhooks-and-events']) expect(links).toContain(id);
    });

    it('wraps every table and code block in a focusable, named scroll box', () => {
      const boxes = [...docs.html.matchAll(/<div class="scroll"([^>]*)>/g)];
      const tables = docs.html.match(/<table[\s>]/g) ?? [];
      const pres = docs.html.match(/<pre[\s>]/g) ?? [];
      expect(tables.length).toBeGreaterThan(3);
      expect(pres.length).toBeGreaterThan(3);
      expect(boxes.length).toBe(tables.length + pres.length);
      expect(docs.html.match(/<div class="scroll"[^>]*>(<table|<pre)/g)).toHaveLength(boxes.length);
      const names = boxes.map((m) => {
        expect(attr(m[1]!, 'tabindex'), m[0]).toBe('0');
        expect(attr(m[1]!, 'role'), m[0]).toBe('region');
        expect(attr(m[1]!, 'aria-label')?.length, m[0]).toBeGreaterThan(5);
        return attr(m[1]!, 'aria-label');
      });
      expect(new Set(names).size, 'region names unique').toBe(names.length);
    });

    it('has a search box the script reveals, served as a file under a CSP without inline script', async () => {
      expect(docs.html).toMatch(/<form id="docs-search" class="search" role="search"[^>]*hidden>/);
      expect(docs.html).toMatch(/<label for="docs-search-input">/);
      const csp = docs.headers.get('content-security-policy')!;
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toMatch(/https?:/);
      const scripts = [...docs.html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts).toHaveLength(1);
      expect(scripts[0]![2]).toBe('');
      const src = attr(scripts[0]![1]!, 'src')!;
      expect(src).toMatch(/^\/docs\/docs\.[0-9a-f]{12}\.js$/);
      const js = await s.call('test', 'GET', src);
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(js.text).toContain('docs-search-input');
      const css = await s.call('test', 'GET', /<link rel="stylesheet" href="([^"]+)">/.exec(docs.html)![1]!);
      expect(css.status).toBe(200);
      expect(css.headers.get('content-type')).toMatch(/^text\/css/);
      expect(docs.html).not.toMatch(/<style[\s>]|\sstyle="/);
    });
  });

  describe('/docs/sdk', () => {
    it('serves the SDK README, and every same-origin link of /docs and /docs/sdk answers 200', async () => {
      const sdk = await s.call('test', 'GET', '/docs/sdk');
      expect(sdk.status).toBe(200);
      expect(sdk.headers.get('content-type')).toMatch(/^text\/html/);
      expect(sdk.text).toContain('@cowrie/sdk');
      expect(sdk.text).toContain('constructEvent');
      expect(docs.html).toMatch(/<a href="\/docs\/sdk">/);
      for (const html of [docs.html, sdk.text]) {
        const paths = new Set([...html.matchAll(/\shref="(\/[^"#]*)/g)].map((m) => m[1]!));
        expect(paths.size).toBeGreaterThan(1);
        for (const path of paths) expect((await s.call('test', 'GET', path)).status, path).toBe(200);
      }
    });
  });

  describe('/docs/errors', () => {
    it('keeps one row per error code with its id, inside a main landmark and a named scroll box', async () => {
      const r = await s.call('test', 'GET', '/docs/errors');
      expect(r.status).toBe(200);
      expect(r.text.match(/<main[\s>]/g)).toHaveLength(1);
      expect(r.text).toMatch(/<div class="scroll" tabindex="0" role="region" aria-label="[^"]+"><table>/);
      for (const code of Object.keys(ERROR_CODES)) expect(r.text).toContain(`<tr id="${code}">`);
      expect(r.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    });
  });
});
