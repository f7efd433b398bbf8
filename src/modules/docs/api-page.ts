// /docs/api: the server's own OpenAPI document (/v1/openapi.json) rendered by Redoc, every operation
// browsable and searchable, with nothing fetched from anywhere but this process: Redoc's standalone bundle
// comes from node_modules at a hashed, immutable address, its init script and style sheet from
// public/docs/ like the other docs pages' files.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from './render.js';

/**
 * The other docs pages' policy, relaxed only where Redoc needs it: styled-components writes its rules into
 * <style> elements and React sets `style` attributes ('unsafe-inline' styles, never scripts), the heading
 * links' icon is a data: image in that CSS, Redoc fetches the document (connect-src 'self') and builds its
 * search index in a Worker made from a blob: URL. No 'unsafe-eval': nothing Redoc runs here needs it.
 */
export const API_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const SPEC_PATH = '/v1/openapi.json';

export interface ApiPageAssets {
  redoc: string;
  script: string;
  style: string;
}

/** The one address Redoc's bundle would fetch from elsewhere. */
export const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves Redoc's standalone bundle, read once here, at /docs/redoc.<content hash>.js (a new Redoc is a new
 * address), and its licence notice where the bundle's first comment points; answers the bundle's address.
 */
export function serveRedoc(app: FastifyInstance): string {
  // Resolved as a package, so the same code finds it from src/ (tsx) and from dist/.
  const file = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  // Redoc's menu always shows Redocly's logo from their CDN (no option turns it off); an empty src asks
  // nothing of anyone, and the image's own error handler then drops it.
  const body = readFileSync(file, 'utf8').replaceAll(`"${REDOCLY_LOGO}"`, '""');
  const license = readFileSync(`${file}.LICENSE.txt`);
  const path = `/docs/redoc.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.js`;
  const route = { config: { access: 'public' as const }, schema: { hide: true } };
  app.get(path, route, async (_req, reply) =>
    reply.header('cache-control', IMMUTABLE).header('x-content-type-options', 'nosniff').type('text/javascript; charset=utf-8').send(body),
  );
  app.get('/docs/redoc.standalone.js.LICENSE.txt', route, async (_req, reply) =>
    reply.header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send(license),
  );
  return path;
}

export function apiPage(assets: ApiPageAssets): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cowrie API reference: every operation</title><link rel="stylesheet" href="${assets.style}">
<script src="${assets.redoc}" defer></script><script src="${assets.script}" defer></script>
</head><body><a class="skip" href="#content">Skip to the reference</a>
<header class="api-bar"><span class="api-title">Cowrie API reference</span>
<nav aria-label="Documentation"><ul><li><a href="/docs">Guide</a></li><li><a href="/docs/errors">Error codes</a></li><li><a href="${SPEC_PATH}">OpenAPI document (JSON)</a></li></ul></nav></header>
<main id="content" tabindex="-1"><div id="redoc" data-spec="${escapeHtml(SPEC_PATH)}"><noscript><p>This page needs JavaScript. The same operations are described in <a href="/docs">the guide</a> and in <a href="${SPEC_PATH}">the OpenAPI document</a>.</p></noscript></div></main>
</body></html>`;
}
