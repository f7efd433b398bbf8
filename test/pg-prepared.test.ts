// PostgreSQL: the request path's statements (src/db/prepared.ts's cached plans) are prepared on the server
// once per connection and then only bound and run; anything else goes as an unnamed statement.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { findKeysByHashes } from '../src/modules/keys/keys.repo.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';

describe.skipIf(ENGINE !== 'postgres')('statements prepared on the PostgreSQL server', () => {
  let database: TestDatabase;
  let opened: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: what it prepared is what pg_prepared_statements shows to the next query.
    opened = openDatabase(database.url, { poolSize: 1 });
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  const preparedHere = async () =>
    (
      await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where not from_sql`.execute(
        opened.db,
      )
    ).rows;

  it('a key lookup is prepared once under its name and answers the same each time', async () => {
    expect(await preparedHere()).toEqual([]);
    for (let i = 0; i < 3; i++) {
      const found = await findKeysByHashes(opened.db, ['no-such-hash']);
      expect(found.size).toBe(0);
    }
    const statements = await preparedHere();
    const lookups = statements.filter((s) => s.statement.includes('"api_keys"'));
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.name).toMatch(/^cowrie_\d+$/);
    // Another shape (two hashes) is a statement of its own; an ad hoc query is never prepared.
    await findKeysByHashes(opened.db, ['a', 'b']);
    await sql`select 1 as one`.execute(opened.db);
    const after = await preparedHere();
    expect(after.filter((s) => s.statement.includes('"api_keys"'))).toHaveLength(2);
    expect(after.some((s) => s.statement.includes('select 1 as one'))).toBe(false);
  });
});
