// The production install of README "Running in production", as an operator does it: the package that `npm
// pack` makes, installed with `npm install --omit=dev` into an empty folder, with nothing of the checkout
// beside it; then `npx cowrie migrate`, `merchants create` and `serve` (ready, then stopped by SIGTERM).
// The tarball is packed from the dist/ that test/global-setup.ts built (`--ignore-scripts`: the build step
// would rewrite dist/ under the feet of the other files' servers). better-sqlite3's native addon comes from
// a local prebuild (prebuild-install's `local-prebuilds`, as an operator installs offline) packed from the
// one this checkout's `npm ci` compiled from source: compiling it again took a core for a minute or two of
// the suite, and proved nothing about the package. Engine-free: run once, in the SQLite project.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { TEST_SERVER_ENV } from './helpers/test-env.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');

/** The environment of an operator's shell: nothing of this test run's own COWRIE_ variables. */
function operatorEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('COWRIE_') && !k.startsWith('VITEST')) env[k] = v;
  return { ...env, ...TEST_SERVER_ENV, ...extra };
}

describe.skipIf(ENGINE !== 'sqlite')('the release package, installed outside the checkout', () => {
  let work: string;
  let app: string;
  let tarball: string;
  let files: string[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cowrie-release-'));
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, maxBuffer: 64 << 20 });
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(work, info!.filename);
    files = info!.files.map((f) => f.path);
    app = join(work, 'app');
    mkdirSync(app);
    const prebuilds = join(work, 'prebuilds');
    mkdirSync(prebuilds);
    // prebuild-install's name for it (`{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz`); a
    // name that does not match makes the install compile instead, as it would without one.
    const sqlite = join(ROOT, 'node_modules', 'better-sqlite3');
    const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string };
    const prebuilt = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
    await run('tar', ['-czf', join(prebuilds, prebuilt), '-C', sqlite, 'build/Release/better_sqlite3.node']);
    await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: app,
      env: operatorEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
      maxBuffer: 64 << 20,
    });
  }, 600_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('carries the compiled server, its config, docs and the SDK it uses, and no source, test or fake provider', () => {
    for (const f of ['bin/cowrie.js', 'dist/cli/main.js', 'config/rates.json', 'docs/api-reference.md', 'packages/sdk/dist/index.js']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(src|test|peers|bench|scripts\/(?!prepare\.mjs))\//.test(f))).toEqual([]);
    expect(files.filter((f) => /peer/i.test(f))).toEqual([]);
    // The SDK is inside the package, not a dependency the registry would have to provide.
    expect(readdirSync(join(app, 'node_modules')).includes('@cowrie')).toBe(false);
  });

  it('npx cowrie migrate, merchants create and serve work with nothing else present', async () => {
    const [live, sandbox] = await freePorts(2);
    const env = operatorEnv({
      COWRIE_DATABASE_URL: 'sqlite:./data/cowrie.db',
      COWRIE_HOST: '127.0.0.1',
      COWRIE_LIVE_PORT: String(live),
      COWRIE_SANDBOX_PORT: String(sandbox),
      COWRIE_METRICS_PORT: '0',
    });
    const migrated = await run('npx', ['cowrie', 'migrate', '--json'], { cwd: app, env });
    expect(JSON.parse(migrated.stdout)).toMatchObject({ applied: expect.arrayContaining(['0001-foundation']) });
    const created = await run('npx', ['cowrie', 'merchants', 'create', '--name', 'Release shop', '--verified', '--json'], {
      cwd: app,
      env,
    });
    const merchant = JSON.parse(created.stdout) as { merchant: { id: string }; keys: { test_secret: string; live_secret: string } };
    expect(merchant.merchant.id).toMatch(/^mer_/);
    expect(merchant.keys.live_secret).toMatch(/^cwk_live_sk_/);

    // The installed bin itself (as a process manager runs it), so that SIGTERM reaches the server, not npx.
    const server = spawn(join(app, 'node_modules', '.bin', 'cowrie'), ['serve'], { cwd: app, env, stdio: 'pipe' });
    let output = '';
    server.stdout.on('data', (d: Buffer) => (output += String(d)));
    server.stderr.on('data', (d: Buffer) => (output += String(d)));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(
        async () => {
          const ready = await fetch(`http://127.0.0.1:${sandbox}/readyz`).catch(() => null);
          expect(ready?.status, `the installed server's /readyz\n${output}`).toBe(200);
        },
        { timeout: 30_000, interval: 100 },
      );
      const verify = await fetch(`http://127.0.0.1:${sandbox}/v1/auth/verify`, {
        headers: { authorization: `Bearer ${merchant.keys.test_secret}` },
      });
      expect(verify.status).toBe(200);
      expect(((await verify.json()) as { merchant_id: string }).merchant_id).toBe(merchant.merchant.id);
      // The docs it serves come from inside the package.
      expect((await fetch(`http://127.0.0.1:${sandbox}/docs/sdk`)).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
  }, 120_000);
});
