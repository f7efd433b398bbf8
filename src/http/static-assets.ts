// A page's script and stylesheet, served by the process itself (no CDN): each file of public/<folder>/ at
// <prefix>/<name>.<content hash>.<ext>, so that browsers may keep it for good and a new release is a new
// address.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/**
 * Serves `names` of `public/<folder>/` (at the package root, the same depth from src/ and dist/) under
 * `prefix`; answers each file's address by its name.
 */
export function serveAssets(app: FastifyInstance, folder: string, prefix: string, names: string[]): Record<string, string> {
  const paths: Record<string, string> = {};
  for (const name of names) {
    const body = readFileSync(new URL(`../../public/${folder}/${name}`, import.meta.url));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const [base, ext] = name.split('.') as [string, string];
    const path = `${prefix}/${base}.${hash}.${ext}`;
    paths[name] = path;
    app.get(path, { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .type(TYPES[ext] ?? 'application/octet-stream')
        .send(body),
    );
  }
  return paths;
}
