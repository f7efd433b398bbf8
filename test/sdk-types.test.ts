// The SDK as a package: its committed types (packages/sdk/src/openapi.ts) are what openapi-typescript
// makes of the server's OpenAPI document today (a route schema changed without `npm run sdk:types` fails
// here), and a plain Node.js process in the checkout imports the built package by its name. Engine-free:
// run once, in the SQLite project.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_FILE, generateSdkTypes } from '../scripts/generate-sdk-types.js';
import { ENGINE } from './helpers/harness.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe.skipIf(ENGINE !== 'sqlite')('@cowrie/sdk package', () => {
  it('types match the OpenAPI document (run `npm run sdk:types` when this fails)', async () => {
    const committed = readFileSync(SDK_TYPES_FILE, 'utf8');
    const fresh = await generateSdkTypes();
    expect(committed.length).toBeGreaterThan(10_000);
    // A short message first: the whole files differ by pages when they drift.
    expect(committed === fresh, 'packages/sdk/src/openapi.ts is stale: run `npm run sdk:types`').toBe(true);
  }, 120_000);

  it('imports by name from the checkout after npm install (ESM with its type declarations)', () => {
    const pkg = JSON.parse(readFileSync(new URL('../packages/sdk/package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>;
      dependencies?: Record<string, string>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(existsSync(new URL(`../packages/sdk/${pkg.exports['.']!.types}`, import.meta.url))).toBe(true);
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@cowrie/sdk'); console.log(typeof m.Cowrie, typeof m.constructEvent, m.DEFAULT_TOLERANCE_SECONDS)",
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function function 300');
  });
});
