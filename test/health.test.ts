// Health, roles' configuration and logs: `/healthz` and `/readyz` on every listener without a key and outside
// the rate limit, `/readyz` 503 with the reason when a migration is missing; SQLite refuses a split at start;
// every log line of a request carries its request id, and every line the process's role and pid. Runs on
// SQLite and PostgreSQL.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`health and logs (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ env: { COWRIE_RATE_LIMIT_TEST: '2', COWRIE_RATE_LIMIT_LIVE: '2' } });
  });
  afterAll(async () => s?.stop());

  it('/healthz and /readyz answer on every listener, without a key, never rate-limited, no-store', async () => {
    for (const env of ['live', 'test'] as const) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(s.url(env, i % 2 === 0 ? '/healthz' : '/readyz')).then(async (r) => ({ r, body: await r.json() })),
        ),
      );
      for (const { r, body } of results) {
        expect(r.status).toBe(200);
        expect(r.headers.get('cache-control')).toBe('no-store');
        expect(r.headers.get('service-ratelimit-limit')).toBeNull();
        expect(['ok', 'ready']).toContain((body as { status: string }).status);
      }
    }
    expect(await (await fetch(s.url('test', '/healthz'))).json()).toEqual({ status: 'ok' });
  });

  it('/readyz is 503 with the reason while a migration is not applied, and writes nothing', async () => {
    const db = s.running.database.db;
    const last = await db
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .orderBy('name' as never, 'desc')
      .executeTakeFirstOrThrow();
    const name = (last as { name: string }).name;
    const before = await db
      .selectFrom('kysely_migration' as never)
      .selectAll()
      .where('name' as never, '=', name as never)
      .executeTakeFirstOrThrow();
    await sql`delete from kysely_migration where name = ${name}`.execute(db);
    try {
      const r = await fetch(s.url('test', '/readyz'));
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ status: 'not_ready', reason: `migrations not applied: ${name}` });
      expect((await fetch(s.url('test', '/healthz'))).status).toBe(200);
    } finally {
      const row = before as { name: string; timestamp: string };
      await sql`insert into kysely_migration (name, timestamp) values (${row.name}, ${row.timestamp})`.execute(db);
    }
    expect((await fetch(s.url('test', '/readyz'))).status).toBe(200);
  });

  it('SQLite refuses a split or several processes at start, naming the variables', () => {
    for (const env of [{ COWRIE_ROLE: 'api' }, { COWRIE_ROLE: 'worker' }, { COWRIE_PROCESSES: '2' }]) {
      expect(() => loadConfig({ COWRIE_DATABASE_URL: 'sqlite:/tmp/x.db', ...env })).toThrow(ConfigError);
      expect(() => loadConfig({ COWRIE_DATABASE_URL: 'sqlite:/tmp/x.db', ...env })).toThrow(
        /COWRIE_ROLE and COWRIE_PROCESSES.*PostgreSQL/s,
      );
    }
    expect(loadConfig({ COWRIE_DATABASE_URL: 'postgres://x@y/z', COWRIE_ROLE: 'worker', COWRIE_PROCESSES: '3' })).toMatchObject({
      role: 'worker',
      processes: 3,
    });
    expect(() => loadConfig({ COWRIE_ROLE: 'both' })).toThrow(/COWRIE_ROLE/);
  });

  it('every log line of a request carries its request id; every line the role and pid', async () => {
    const r = await s.sandbox('POST', '/customers', { body: { name: 'Logged' } });
    expect(r.status).toBe(201);
    const id = r.json.request_id as string;
    const mine = s.logs.filter((l) => l['request_id'] === id);
    // One line at info per request, written when it is answered: method, URL, status and time.
    const completed = mine.filter((l) => l['req'] !== undefined || l['res'] !== undefined);
    expect(completed.map((l) => l['msg'])).toEqual(['request completed']);
    expect(completed[0]!['req']).toEqual({ method: 'POST', url: '/v1/customers' });
    expect(completed[0]!['res']).toEqual({ statusCode: 201 });
    expect(typeof completed[0]!['responseTime']).toBe('number');
    // Fastify's lines of every request carry the id of that request
    for (const l of s.logs.filter((x) => x['req'] !== undefined || x['res'] !== undefined)) expect(l['request_id']).toMatch(/^req_/);
    for (const l of s.logs) {
      expect(l['role']).toBe('all');
      expect(l['pid']).toBe(process.pid);
    }
  });
});
