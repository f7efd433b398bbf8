import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The suite runs once per engine: always on SQLite files, and on PostgreSQL when
// COWRIE_TEST_DATABASE_URL names a server (each test file gets a fresh database, dropped afterwards).
const pgUrl = process.env['COWRIE_TEST_DATABASE_URL'];
if (!pgUrl && !process.env['VITEST_WORKER_ID']) {
  process.stdout.write('\nPostgreSQL suite SKIPPED: set COWRIE_TEST_DATABASE_URL=postgres://… to run every test on PostgreSQL too.\n\n');
}

const shared = {
  include: ['test/**/*.test.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
};

export default defineConfig({
  // Tests use the SDK's source, not the dist/ that `npm install` built from it.
  resolve: { alias: { '@cowrie/sdk': fileURLToPath(new URL('./packages/sdk/src/index.ts', import.meta.url)) } },
  test: {
    reporters: ['default'],
    projects: [
      { extends: true as const, test: { ...shared, name: 'sqlite', env: { COWRIE_TEST_ENGINE: 'sqlite' } } },
      ...(pgUrl ? [{ extends: true as const, test: { ...shared, name: 'postgres', env: { COWRIE_TEST_ENGINE: 'postgres' } } }] : []),
    ],
  },
});
