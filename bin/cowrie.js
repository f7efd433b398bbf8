#!/usr/bin/env -S node --max-semi-space-size=4
// The operator's command line. It runs the compiled dist/ (built by `npm install` through the `prepare`
// script, or by `npm run build`); in a checkout where dist/ is missing it runs the TypeScript source
// through tsx, a development dependency. Node.js starts with young-generation semi-spaces of at most 4 MB
// (src/cli/heap.ts says why): V8 sizes them when it starts, so the flag belongs on node's command line.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport('../src/cli/main.ts', import.meta.url);
}
