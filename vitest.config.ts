import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The suite runs once per engine: always on SQLite files, and on PostgreSQL when
// COWRIE_TEST_DATABASE_URL names a server (each test file gets a database of its own, cloned from a migrated
// template that test/global-setup.ts makes once, and dropped afterwards).
const pgUrl = process.env['COWRIE_TEST_DATABASE_URL'];
if (!pgUrl && !process.env['VITEST_WORKER_ID']) {
  process.stdout.write('\nPostgreSQL suite SKIPPED: set COWRIE_TEST_DATABASE_URL=postgres://… to run every test on PostgreSQL too.\n\n');
}

const shared = {
  include: ['test/**/*.test.ts'],
  globalSetup: ['test/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

// Files run side by side: each has databases, ports and servers of its own, and most of a file's time is
// spent waiting on sockets, timers and the database rather than on the CPU, so more files than cores keep
// the cores busy. COWRIE_TEST_WORKERS overrides it.
const workers = Number(process.env['COWRIE_TEST_WORKERS'] ?? Math.max(2, availableParallelism() * 2));

// The release package's test (an npm install of the packed tarball, about 20 s, mostly waiting) starts first:
// vitest's own order puts the PostgreSQL project first and small files late, and it ran as the suite's last
// file with a core idle. First, it overlaps with the rest.
const FIRST = ['test/release-install.test.ts'];
class ReleaseInstallFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (f: TestSpecification) => FIRST.some((name) => f.moduleId.endsWith(name));
    return [...sorted.filter(first), ...sorted.filter((f) => !first(f))];
  }
}

export default defineConfig({
  // Tests, and the server's own commands run in-process (`#sdk`), use the SDK's source, not its dist/.
  resolve: {
    alias: {
      '@cowrie/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)),
      '#sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)),
    },
  },
  test: {
    reporters: ['default'],
    maxWorkers: workers,
    // A worker loads the server's modules once and runs file after file with them (about half the suite's
    // CPU was each file importing them anew). Each file still has its own databases, servers and ports; no
    // test mocks a module, and state the modules keep (metrics counters) is never asserted absolutely.
    isolate: false,
    sequence: { sequencer: ReleaseInstallFirst },
    projects: [
      { extends: true as const, test: { ...shared, name: 'sqlite', env: { COWRIE_TEST_ENGINE: 'sqlite' } } },
      ...(pgUrl ? [{ extends: true as const, test: { ...shared, name: 'postgres', env: { COWRIE_TEST_ENGINE: 'postgres' } } }] : []),
    ],
  },
});
