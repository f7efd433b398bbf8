// Human documentation served by the server itself: /docs (the API reference, with contents, heading
// anchors and a search box), /docs/sdk (the SDK's README, rendered the same way), /docs/errors (every error code, each `docs_url` lands on its entry), /docs/api
// (the OpenAPI document rendered by Redoc), the pages' scripts and style sheets under /docs/, and
// /v1/openapi.json.
import { readFileSync } from 'node:fs';
import { serveAssets } from '../../http/static-assets.js';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../../shared/errors.js';
import { escapeHtml, headingHtml, renderReference, scrollBox, tocHtml } from './render.js';
import { API_PAGE_CSP, apiPage, serveRedoc } from './api-page.js';

/** Scripts and styles only from this server's own files: no inline script, no CDN. */
const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface DocsAssets {
  script: string;
  style: string;
}

function page(assets: DocsAssets, title: string, body: string, withScript: boolean): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${assets.style}">${withScript ? `<script src="${assets.script}" defer></script>` : ''}
</head><body><a class="skip" href="#content">Skip to content</a>
${body}
</body></html>`;
}

export async function errorsPage(assets: DocsAssets): Promise<string> {
  const { Marked } = await import('marked');
  const rows = Object.entries(ERROR_CODES)
    .map(
      ([code, info]) =>
        `<tr id="${code}"><td><a href="#${code}"><code>${code}</code></a></td><td>${info.status}</td><td><code>${info.type}</code></td><td>${
          new Marked().parseInline(info.meaning) as string
        }</td></tr>`,
    )
    .join('\n');
  const table = `<table><thead><tr><th>Code</th><th>HTTP</th><th>Type</th><th>Meaning</th></tr></thead><tbody>
${rows}
</tbody></table>`;
  return page(
    assets,
    'Cowrie API errors',
    `<div class="layout single"><main id="content">
<p><a href="/docs">← API reference</a> · <a href="/docs/api">Every operation (OpenAPI reference)</a></p>
${headingHtml(1, 'errors', 'Errors', 'Errors')}
<p>Every error answers with one envelope: <code>{"error": {"type", "code", "message", "param", "request_id", "docs_url"}, "request_id", "environment", "livemode"}</code>. Branch on <code>code</code>; <code>message</code> is for people.</p>
${scrollBox('Table: error codes (Code, HTTP, Type, Meaning)', table)}
</main></div>`,
    false,
  );
}

export async function referencePage(assets: DocsAssets, markdown: string): Promise<string> {
  const { Marked } = await import('marked');
  const ref = renderReference(new Marked({ gfm: true }), markdown, ['content', 'docs-search', 'docs-search-input', 'docs-search-status']);
  const search = `<form id="docs-search" class="search" role="search" aria-label="Search the reference" hidden>
<label for="docs-search-input">Search the reference</label>
<input id="docs-search-input" type="search" autocomplete="off" spellcheck="false" placeholder="e.g. refund, idempotency, 409">
<p id="docs-search-status" role="status" aria-live="polite"></p>
</form>`;
  return page(
    assets,
    ref.title,
    `<div class="layout">
<nav class="toc" aria-label="Contents"><details open><summary>Contents</summary>${tocHtml(ref.toc)}</details></nav>
<main id="content">
<p class="docs-links"><a href="/docs/api">Every operation, rendered from the OpenAPI document</a> · <a href="/docs/errors">Error codes</a></p>
${ref.intro}
${search}
${ref.sections}
</main>
</div>`,
    true,
  );
}

/**
 * The Markdown files link each other by their paths in the repository (right on GitHub); served, each is a
 * page of its own: the SDK's README at /docs/sdk, the project's README and the reference at /docs.
 */
function servedLinks(markdown: string): string {
  return markdown
    .replaceAll('](../packages/sdk/README.md)', '](/docs/sdk)')
    .replaceAll('](../../README.md)', '](/docs)')
    .replaceAll('](../README.md)', '](/docs)');
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  // Both pages are rendered on first request (marked is loaded only then).
  let errors: string | null = null;
  const referencePath = new URL('../../../docs/api-reference.md', import.meta.url);
  const sdkReadmePath = new URL('../../../packages/sdk/README.md', import.meta.url);
  let reference: string | null = null;
  let sdk: string | null = null;
  const files = serveAssets(app, 'docs', '/docs', ['docs.js', 'docs.css', 'api.js', 'api.css']);
  const assets: DocsAssets = { script: files['docs.js']!, style: files['docs.css']! };
  const api = apiPage({ redoc: serveRedoc(app), script: files['api.js']!, style: files['api.css']! });

  const html = { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'x-content-type-options': 'nosniff' };
  const hide = { hide: true };

  app.get('/docs/errors', { config: { access: 'public' }, schema: hide }, async (_req, reply) =>
    reply.headers(html).send((errors ??= await errorsPage(assets))),
  );
  app.get('/docs', { config: { access: 'public' }, schema: hide }, async (_req, reply) => {
    reference ??= await referencePage(assets, servedLinks(readFileSync(referencePath, 'utf8')));
    return reply.headers(html).send(reference);
  });
  app.get('/docs/sdk', { config: { access: 'public' }, schema: hide }, async (_req, reply) => {
    sdk ??= await referencePage(assets, servedLinks(readFileSync(sdkReadmePath, 'utf8')));
    return reply.headers(html).send(sdk);
  });
  app.get('/docs/api', { config: { access: 'public' }, schema: hide }, async (_req, reply) =>
    reply.headers({ ...html, 'content-security-policy': API_PAGE_CSP }).send(api),
  );
  app.get('/v1/openapi.json', { config: { access: 'public' }, schema: hide }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
}
