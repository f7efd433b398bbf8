// Health (DECISIONS "Operating it at scale"): `GET /healthz` answers while the process runs; `GET /readyz`
// answers 200 once the database answers and its migrations are current, else 503 with the reason. Both at
// the origin of every listener, without a key, not rate-limited, and cheap: one read, no write.
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { pendingMigrations } from '../db/migrate.js';
import type { Database } from '../db/database.js';

export type Readiness = { ready: true } | { ready: false; reason: string };

/** Whether the database answers and has every migration this code knows. */
export async function readiness(database: Database, timeoutMs = 2000): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `the database did not answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const check = (async (): Promise<Readiness> => {
    try {
      await sql`select 1`.execute(database.db);
    } catch (err) {
      return { ready: false, reason: `the database does not answer: ${(err as Error).message}` };
    }
    const pending = await pendingMigrations(database).catch((err: Error) => [`(unreadable: ${err.message})`]);
    if (pending.length > 0) return { ready: false, reason: `migrations not applied: ${pending.join(', ')}` };
    return { ready: true };
  })();
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, database: Database): void {
  const route = { config: { access: 'public' as const }, schema: { hide: true }, logLevel: 'warn' as const };
  app.get('/healthz', route, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', route, async (_request, reply) => {
    const r = await readiness(database);
    reply.header('cache-control', 'no-store');
    return r.ready ? reply.send({ status: 'ready' }) : reply.code(503).send({ status: 'not_ready', reason: r.reason });
  });
}
