// Runs once per project before any test file: builds dist/ (the servers that tests start as child processes,
// and the SQLite threads, run the compiled code), then makes one migrated database of the project's engine.
// Each test file clones that template (a file copy on SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL)
// instead of running every migration again.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

const ROOT = join(import.meta.dirname, '..');

declare module 'vitest' {
  export interface ProvidedContext {
    /** A migrated database of the project's engine (`sqlite:PATH` or `postgres://…/<template>`), never opened by tests. */
    migratedTemplate: string;
  }
}

/** dist/ (server) and packages/sdk/dist/ (the SDK the compiled `cowrie listen` imports), built incrementally. */
function buildOnce(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const project of ['packages/sdk/tsconfig.json', 'tsconfig.build.json']) {
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { cwd: ROOT, stdio: 'inherit' });
    } catch (err) {
      // Exit status 2: type errors, but every file was emitted (`npm run typecheck` is what judges types).
      if ((err as { status?: number }).status !== 2) throw err;
      process.stderr.write(`\n${project}: type errors (above); the tests run the emitted code.\n`);
    }
  }
}

let built = false;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!built) {
    buildOnce();
    built = true;
  }
  const engine = project.config.env?.['COWRIE_TEST_ENGINE'] === 'postgres' ? 'postgres' : 'sqlite';
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cowrie-template-'));
    const url = `sqlite:${join(dir, 'template.db')}`;
    const database = openDatabase(url);
    await migrateToLatest(database);
    await database.close(); // the checkpointer folds the write-ahead log into the file, so one file is the whole database
    project.provide('migratedTemplate', url);
    return async () => rmSync(dir, { recursive: true, force: true });
  }
  const admin = process.env['COWRIE_TEST_DATABASE_URL']!;
  const name = `cowrie_template_${process.pid}_${Date.now().toString(36)}`;
  await adminQuery(admin, `CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = openDatabase(url.toString(), { poolSize: 1 });
  await migrateToLatest(database);
  await database.close();
  project.provide('migratedTemplate', url.toString());
  return async () => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function adminQuery(admin: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
