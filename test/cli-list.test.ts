// The operator's listings and the version: `cowrie --version`, `cowrie merchants list`
// and `cowrie keys list --merchant` (never a secret), run in-process against a fresh database of the
// engine under test; and the start-up lines naming where the API, checkout, docs and console are.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { serviceUrls } from '../src/cli/program.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { type CreatedJson, type KeyJson, cliRunner } from './helpers/cli.js';

describe(`cowrie command line: listings (${ENGINE})`, () => {
  let database: TestDatabase;
  const printedKeys: string[] = [];
  const { cli, ok, fails } = cliRunner(() => database, printedKeys);

  beforeAll(async () => {
    database = await createTestDatabase();
    expect((await cli('migrate', '--json')).code).toBe(0);
  });
  afterAll(async () => database?.drop());

  it('--version prints the package version', async () => {
    const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r).toMatchObject({ code: 0, out: `${version}\n`, err: '' });
    }
  });

  it('merchants list: every merchant, oldest first, as JSON and as a table', async () => {
    expect((await cli('merchants', 'list')).out).toBe('No merchants yet.\n');
    const a = await ok<CreatedJson>('merchants', 'create', '--name', 'Alpha Ltd', '--json');
    const b = await ok<CreatedJson>('merchants', 'create', '--name', 'Beta Ltd', '--verified', '--json');
    const list = await ok<{ object: string; data: Array<Record<string, unknown>> }>('merchants', 'list', '--json');
    expect(list.object).toBe('list');
    expect(list.data.map((m) => [m['id'], m['name'], m['kyb_status']])).toEqual([
      [a.merchant.id, 'Alpha Ltd', 'pending'],
      [b.merchant.id, 'Beta Ltd', 'verified'],
    ]);
    const table = await cli('merchants', 'list');
    expect(table.code).toBe(0);
    expect(table.out.trim().split('\n')).toHaveLength(2);
    expect(table.out).toContain(a.merchant.id);
    expect(table.out).toContain('Beta Ltd');
  });

  it('keys list: a merchant’s keys with type, status and hint, never the secret', async () => {
    const m = await ok<CreatedJson>('merchants', 'create', '--name', 'Keyed', '--verified', '--json');
    const restricted = await ok<KeyJson>(
      'keys',
      'create',
      '--merchant',
      m.merchant.id,
      '--env',
      'test',
      '--type',
      'restricted',
      '--scopes',
      'payments:read',
      '--json',
    );
    await cli('keys', 'revoke', restricted.id, '--json');
    const list = await ok<{ data: Array<Record<string, any>> }>('keys', 'list', '--merchant', m.merchant.id, '--json');
    expect(list.data.length).toBe(4);
    const row = list.data.find((k) => k['id'] === restricted.id)!;
    expect(row).toMatchObject({ environment: 'test', type: 'restricted', status: 'revoked', scopes: ['payments:read'] });
    expect(Object.keys(row).sort()).toEqual(
      [
        'allowed_ips',
        'created_at',
        'environment',
        'expires_at',
        'hint',
        'id',
        'object',
        'replaced_by',
        'revoked_at',
        'scopes',
        'status',
        'type',
      ].sort(),
    );
    const secrets = [m.keys.test_secret, m.keys.test_publishable, m.keys.live_secret!, restricted.key];
    const table = await cli('keys', 'list', '--merchant', m.merchant.id);
    for (const text of [JSON.stringify(list), table.out]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/cwk_(test|live)_(sk|rk|pk)_[0-9A-Za-z]{20,}/);
    }
    expect(table.out.trim().split('\n')).toHaveLength(4);
    const err = await fails('keys', 'list', '--merchant', 'mer_000000000000000000000000', '--json');
    expect(err).toMatchObject({ code: 'resource_missing' });
    expect((await cli('keys', 'list')).code).not.toBe(0);
  });

  it('names where the API, checkout, docs and console are', () => {
    const config = loadConfig({ PORT: '4000', COWRIE_DATABASE_URL: 'sqlite::memory:' });
    const urls = serviceUrls(config);
    expect(urls.live_api).toBe(config.liveUrl);
    expect(urls.sandbox_api).toBe(config.sandboxUrl);
    const origin = new URL(config.sandboxUrl).origin;
    expect(urls).toMatchObject({
      docs: `${origin}/docs`,
      console: `${origin}/console`,
      sandbox_checkout: `${origin}/checkout/<payment intent id>`,
    });
  });
});
