// SQLite's write-ahead log stays small: under sustained writes its file stays under 64 MB, it is emptied
// within 10 s of the last write, and at every start, also after a kill -9 left a big one behind. The
// sustained writes are large rows written through the server's own writing connection, one after another
// with no pause, so that a big log takes a second, not minutes of API calls. SQLite only.
import { statSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLite } from '../src/db/sqlite-driver.js';
import { sqlitePath } from '../src/db/database.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase } from './helpers/harness.js';
import { killHard, spawnServer } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

const MB = 1024 * 1024;

function walBytes(dbPath: string): number {
  try {
    return statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}

describe.skipIf(ENGINE !== 'sqlite')('SQLite write-ahead log', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  it('stays under 64 MB under sustained writes and is emptied within 10 s of the last write', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const s = await startTestServer({ databaseUrl: database.url });
    try {
      const path = sqlitePath(database.url);
      const db = s.running.database.db;
      await sql`CREATE TABLE wal_test_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(db);
      let peak = 0;
      // 200 MB in rows of 256 KB, the log's size read after every row.
      const body = 'x'.repeat(256 * 1024);
      for (let i = 0; i < 800; i++) {
        await sql`INSERT INTO wal_test_rows (body) VALUES (${body})`.execute(db);
        peak = Math.max(peak, walBytes(path));
      }
      expect(peak, `peak ${(peak / MB).toFixed(1)} MB`).toBeGreaterThan(0);
      expect(peak, `peak ${(peak / MB).toFixed(1)} MB`).toBeLessThan(64 * MB);
      const started = Date.now();
      await waitFor(
        'the log emptied',
        () => walBytes(path),
        (bytes) => bytes === 0,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await s.stop();
    }
  }, 120_000);

  it('is emptied at start after a kill -9 left a big one behind', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const path = sqlitePath(database.url);
    const first = await spawnServer(database.url);
    await first.ready;
    await killHard(first);
    // What the dead server's writer left: a big log, never checkpointed (this connection never checkpoints,
    // as the server's writer, and stays open, idle, until the end: closing the last connection would
    // checkpoint and remove the log itself).
    const db = new SQLite(path);
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE IF NOT EXISTS wal_test_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO wal_test_rows (body) VALUES (?)');
    const body = 'y'.repeat(256 * 1024);
    db.transaction(() => {
      for (let i = 0; i < 120; i++) insert.run(body);
    })();
    expect(walBytes(path)).toBeGreaterThan(16 * MB);
    const second = await spawnServer(database.url);
    try {
      await second.ready;
      await waitFor(
        'the log emptied after the restart',
        () => walBytes(path),
        (bytes) => bytes === 0,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    } finally {
      await killHard(second);
      db.close();
    }
  }, 120_000);
});
