// Health: `GET /healthz` answers while the process runs; `GET /readyz` answers 200 once the database answers
// and its migrations are current, else 503 with the reason. Both at the origin of every listener, without a
// key, not rate-limited, and cheap: one read, no write. With live reference prices, /readyz also says whether
// any is stale: still 200 then, since the process is fine and everything but new intents and quotes works (a
// load balancer taking it out would help no one).
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

/**
 * What /readyz needs of the reference prices (the rates module's provider is one): where they come from,
 * and which assets' prices are too old for new payments.
 */
export interface PriceFreshness {
  readonly source: 'file' | 'http';
  freshness(): ReadonlyArray<{ asset: string; stale: boolean }>;
}

/** The answer of /readyz: 200 with `{status: "ready"}` (and the live prices' freshness), or 503 with the reason. */
export async function readyAnswer(database: Database, rates?: PriceFreshness): Promise<{ code: 200 | 503; body: object }> {
  const r = await readiness(database);
  if (!r.ready) return { code: 503, body: { status: 'not_ready', reason: r.reason } };
  if (!rates || rates.source !== 'http') return { code: 200, body: { status: 'ready' } };
  const stale = rates
    .freshness()
    .filter((f) => f.stale)
    .map((f) => f.asset);
  return { code: 200, body: { status: 'ready', rates: { status: stale.length > 0 ? 'stale' : 'fresh', stale_assets: stale } } };
}

export function registerHealth(app: FastifyInstance, database: Database, rates?: PriceFreshness): void {
  const route = { config: { access: 'public' as const }, schema: { hide: true }, logLevel: 'warn' as const };
  app.get('/healthz', route, async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/readyz', route, async (_request, reply) => {
    const { code, body } = await readyAnswer(database, rates);
    return reply.header('cache-control', 'no-store').code(code).send(body);
  });
}
