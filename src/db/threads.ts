// Worker threads of the database layer (SQLite's writer, its checkpointer). A thread runs a module beside
// this one: the compiled .js in production (dist/). When the process itself runs from source (tsx, vitest),
// a worker thread inherits no loader, so it runs the compiled twin in dist/db when that was built from the
// source as it is now (the thread modules import nothing but types, so the twin is the whole thread), and
// otherwise the .ts source through tsx's API, which costs the thread a second or two of compiling.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const fromSource = import.meta.url.endsWith('.ts');

/** Starts a worker thread running `./<name>` (a module of src/db, or of dist/db). */
export function startThread(name: string, options: WorkerOptions): Worker {
  if (!fromSource) return new Worker(new URL(`./${name}.js`, import.meta.url), options);
  const compiled = compiledTwin(name);
  if (compiled) return new Worker(compiled, options);
  const api = tsxApiUrl();
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** dist/db/<name>.js of this checkout, when it is at least as new as src/db/<name>.ts; else null. */
function compiledTwin(name: string): URL | null {
  const source = new URL(`./${name}.ts`, import.meta.url);
  const twin = new URL(`../../dist/db/${name}.js`, import.meta.url);
  try {
    return statSync(twin).mtimeMs >= statSync(source).mtimeMs ? twin : null;
  } catch {
    return null;
  }
}

/** The ESM entry of tsx's API (`tsx/esm/api` under the `import` condition), read from tsx's exports. */
function tsxApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
  return pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
}
