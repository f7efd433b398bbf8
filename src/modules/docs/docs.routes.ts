// Human documentation served by the server itself: /docs (the API reference), /docs/errors (every error
// code, each `docs_url` lands on its entry) and /v1/openapi.json.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../../shared/errors.js';

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>
body{font:16px/1.55 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}pre{background:#f2f2f2;padding:1rem;overflow:auto}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.4rem .6rem;text-align:left;vertical-align:top}
tr:target{background:#fff6c8}a{color:#0645ad}
</style></head><body>${body}</body></html>`;
}

export async function errorsPage(): Promise<string> {
  const { Marked } = await import('marked');
  const rows = Object.entries(ERROR_CODES)
    .map(
      ([code, info]) =>
        `<tr id="${code}"><td><a href="#${code}"><code>${code}</code></a></td><td>${info.status}</td><td><code>${info.type}</code></td><td>${
          new Marked().parseInline(info.meaning) as string
        }</td></tr>`,
    )
    .join('\n');
  return page(
    'Cowrie API errors',
    `<h1>Errors</h1><p>Every error answers with one envelope: <code>{"error": {"type", "code", "message", "param", "request_id", "docs_url"}, "request_id", "environment", "livemode"}</code>. Branch on <code>code</code>; <code>message</code> is for people.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>Type</th><th>Meaning</th></tr></thead><tbody>
${rows}
</tbody></table>`,
  );
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  // Both pages are rendered on first request (marked is loaded only then).
  let errors: string | null = null;
  const referencePath = new URL('../../../docs/api-reference.md', import.meta.url);
  let reference: string | null = null;

  const html = { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP };
  const hide = { hide: true };

  app.get('/docs/errors', { config: { access: 'public' }, schema: hide }, async (_req, reply) =>
    reply.headers(html).send((errors ??= await errorsPage())),
  );
  app.get('/docs', { config: { access: 'public' }, schema: hide }, async (_req, reply) => {
    const { Marked } = await import('marked');
    reference ??= page('Cowrie API reference', await new Marked({ gfm: true }).parse(readFileSync(referencePath, 'utf8')));
    return reply.headers(html).send(reference);
  });
  app.get('/v1/openapi.json', { config: { access: 'public' }, schema: hide }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
  );
}
