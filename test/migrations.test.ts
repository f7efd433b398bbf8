// `cowrie migrate`: applies every migration once, in order, on the engine under test; a second run
// applies nothing; several processes migrating one fresh database at once apply each migration once.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface CliResult {
  code: number;
  out: string;
  err: string;
}

async function cli(url: string, argv: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (s) => {
      out += s;
    },
    err: (s) => {
      err += s;
    },
    env: { COWRIE_DATABASE_URL: url },
  });
  return { code, out, err };
}

/** The tables of the foundation migration and the columns each must have, whatever later migrations add. */
const FOUNDATION: Record<string, string[]> = {
  merchants: ['id', 'name', 'kyb_status', 'status', 'limit_per_payment', 'limit_daily', 'limit_monthly', 'created_at'],
  apps: ['id', 'merchant_id', 'name', 'is_default', 'created_at'],
  api_keys: [
    'id',
    'merchant_id',
    'app_id',
    'environment',
    'type',
    'key_hash',
    'key_hint',
    'scopes',
    'allowed_ips',
    'created_at',
    'expires_at',
    'revoked_at',
    'replaced_by',
  ],
  customers: ['id', 'merchant_id', 'environment', 'email', 'phone', 'name', 'reference', 'metadata', 'created_at'],
  idempotency_keys: [
    'merchant_id',
    'idem_key',
    'environment',
    'method',
    'path',
    'request_hash',
    'state',
    'status_code',
    'content_type',
    'response_body',
    'created_at',
    'expires_at',
  ],
  system_flags: ['name', 'created_at'],
};

async function withDatabase<T>(url: string, fn: (d: Database) => Promise<T>): Promise<T> {
  const d = openDatabase(url);
  try {
    return await fn(d);
  } finally {
    await d.close();
  }
}

/** Migration names recorded in the database, in the order they were applied. */
async function recordedMigrations(url: string): Promise<string[]> {
  return withDatabase(url, async (d) => {
    const rows = await (d.db as unknown as Kysely<{ kysely_migration: { name: string; timestamp: string } }>)
      .selectFrom('kysely_migration')
      .select(['name', 'timestamp'])
      .execute();
    return rows.map((r) => r.name).sort();
  });
}

describe(`migrations (${ENGINE})`, () => {
  const databases: TestDatabase[] = [];
  const fresh = async () => {
    const d = await createTestDatabase({ empty: true });
    databases.push(d);
    return d.url;
  };
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  describe('on a fresh database', () => {
    let url: string;
    let first: CliResult;
    let second: CliResult;
    beforeAll(async () => {
      url = await fresh();
      first = await cli(url, ['migrate', '--json']);
      second = await cli(url, ['migrate', '--json']);
    });

    it('applies 0001-foundation first, every migration once and in order', async () => {
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      const out = JSON.parse(first.out) as { applied: string[] };
      expect(Object.keys(out)).toEqual(['applied']);
      expect(out.applied[0]).toBe('0001-foundation');
      expect(out.applied).toEqual([...out.applied].sort());
      expect(new Set(out.applied).size).toBe(out.applied.length);
      expect(await recordedMigrations(url)).toEqual(out.applied);
    });

    it('a second run applies nothing and records nothing new', async () => {
      expect(second.code).toBe(0);
      expect(JSON.parse(second.out)).toEqual({ applied: [] });
      const applied = (JSON.parse(first.out) as { applied: string[] }).applied;
      expect(await recordedMigrations(url)).toEqual(applied);
    });

    it('creates the foundation tables with their columns', async () => {
      await withDatabase(url, async (d) => {
        expect(d.engine).toBe(ENGINE);
        const tables = await d.db.introspection.getTables();
        const byName = new Map(tables.map((t) => [t.name, t]));
        for (const [table, columns] of Object.entries(FOUNDATION)) {
          const meta = byName.get(table);
          expect(meta, `table ${table}`).toBeDefined();
          expect(meta!.columns.map((c) => c.name)).toEqual(expect.arrayContaining(columns));
        }
        // Times are integer milliseconds: bigint on PostgreSQL, INTEGER on SQLite.
        const createdAt = byName.get('api_keys')!.columns.find((c) => c.name === 'created_at')!;
        expect(createdAt.dataType.toLowerCase()).toBe(ENGINE === 'postgres' ? 'int8' : 'integer');
        expect(createdAt.isNullable).toBe(false);
        const expiresAt = byName.get('api_keys')!.columns.find((c) => c.name === 'expires_at')!;
        expect(expiresAt.isNullable).toBe(true);
      });
    });

    it('enforces the unique key hash', async () => {
      await withDatabase(url, async (d) => {
        const now = Date.now();
        await d.db
          .insertInto('merchants')
          .values({
            id: 'mer_u',
            name: 'U',
            kyb_status: 'pending',
            status: 'active',
            limit_per_payment: null,
            limit_daily: null,
            limit_monthly: null,
            created_at: now,
          })
          .execute();
        await d.db
          .insertInto('apps')
          .values({ id: 'app_u', merchant_id: 'mer_u', name: 'Default app', is_default: 1, created_at: now })
          .execute();
        const row = {
          merchant_id: 'mer_u',
          app_id: 'app_u',
          environment: 'test' as const,
          type: 'secret' as const,
          key_hash: 'same-hash',
          key_hint: 'hint',
          scopes: '[]',
          allowed_ips: '[]',
          created_at: now,
          expires_at: null,
          revoked_at: null,
          replaced_by: null,
        };
        await d.db
          .insertInto('api_keys')
          .values({ id: 'key_u1', ...row })
          .execute();
        await expect(
          d.db
            .insertInto('api_keys')
            .values({ id: 'key_u2', ...row })
            .execute(),
        ).rejects.toThrow();
      });
    });
  });

  it('prints plain text without --json', async () => {
    const url = await fresh();
    const first = await cli(url, ['migrate']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^Applied: 0001-foundation(, [0-9a-z-]+)*\n$/);
    const second = await cli(url, ['migrate']);
    expect(second.code).toBe(0);
    expect(second.out).toBe('Database is up to date.\n');
  });

  it('refuses a database URL of an unknown engine with a JSON error', async () => {
    const r = await cli('mysql://localhost/x', ['migrate', '--json']);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.out) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('config_invalid');
    expect(body.error.message).toContain('COWRIE_DATABASE_URL');
  });

  it('several processes migrating one fresh database at once apply each migration exactly once', async () => {
    // What `cowrie serve` and `cowrie migrate` both do first: open the database and migrate it. Each child
    // loads the code, says "ready", and opens and migrates when told "go", so the runs overlap.
    const url = await fresh();
    const N = 3;
    const moduleUrl = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, p)).href);
    const script = `
      const { openDatabase } = await import(${moduleUrl('dist/db/database.js')});
      const { migrateToLatest } = await import(${moduleUrl('dist/db/migrate.js')});
      process.stdin.once('data', async () => {
        process.stdin.destroy();
        try {
          const database = openDatabase(process.env.COWRIE_DATABASE_URL);
          try {
            process.stdout.write(JSON.stringify(await migrateToLatest(database)) + '\\n');
          } finally {
            await database.close();
          }
        } catch (err) {
          process.stderr.write(String(err && err.stack || err));
          process.exitCode = 1;
        }
      });
      process.stdout.write('ready\\n');
    `;
    const env: NodeJS.ProcessEnv = { ...process.env, COWRIE_DATABASE_URL: url };
    // A file, not `-e`: the database's threads inherit the process's options, and `--input-type` is refused there.
    const scriptFile = join(mkdtempSync(join(tmpdir(), 'cowrie-migrate-')), 'migrate.mjs');
    writeFileSync(scriptFile, script);
    const children = Array.from({ length: N }, () => {
      const child = spawn(process.execPath, [scriptFile], {
        cwd: ROOT,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const ready = new Promise<void>((resolve, reject) => {
        const onData = () => {
          if (stdout.includes('ready\n')) {
            child.stdout.off('data', onData);
            resolve();
          }
        };
        child.stdout.on('data', onData);
        child.once('exit', (code) => reject(new Error(`child exited (${code}) before ready: ${stderr}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, ready, exited, output: () => ({ stdout, stderr }) };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.end('go\n');
    const codes = await Promise.all(children.map((c) => c.exited));
    const results = children.map((c) => c.output());
    expect(codes, JSON.stringify(results)).toEqual(Array(N).fill(0));

    const applied: string[] = [];
    for (const r of results) {
      const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
      expect(line, r.stderr).toBeDefined();
      applied.push(...(JSON.parse(line!) as { applied: string[] }).applied);
    }
    const recorded = await recordedMigrations(url);
    expect(recorded[0]).toBe('0001-foundation');
    expect([...applied].sort()).toEqual(recorded);
  }, 60_000);
});
