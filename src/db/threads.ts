// Worker threads of the database layer (SQLite's writer, its checkpointer). A thread runs a module beside
// this one: the compiled .js in production (dist/); the .ts source when the process itself runs from
// source (tsx, vitest), loaded through tsx's API, since a worker thread inherits
// no loader from vitest.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const fromSource = import.meta.url.endsWith('.ts');

/** Starts a worker thread running `./<name>` (a module of src/db, or of dist/db). */
export function startThread(name: string, options: WorkerOptions): Worker {
  if (!fromSource) return new Worker(new URL(`./${name}.js`, import.meta.url), options);
  const api = tsxApiUrl();
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The ESM entry of tsx's API (`tsx/esm/api` under the `import` condition), read from tsx's exports. */
function tsxApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
}
