// Per-key request budgets through rate-limiter-flexible. Each key has a bucket of N tokens (100 live,
// 25 sandbox by default) refilled every second. With PostgreSQL the buckets live in the database, so the
// limit holds across every server process sharing it; with SQLite (one process) they live in memory.
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { batcher } from '../db/batcher.js';
import type { Environment } from '../shared/scope.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket refills. */
  resetSeconds: number;
}

export interface RateLimiter {
  consume(environment: Environment, keyId: string): Promise<RateDecision>;
}

function postgresLimiter(pool: pg.Pool, points: number, prefix: string, duration = 1): RateLimiterAbstract {
  return new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limit_buckets',
    // Created by migration 0006: two processes starting at once would race on the limiter's own CREATE.
    tableCreated: true,
    keyPrefix: prefix,
    points,
    duration,
    clearExpiredByTimeout: true,
    // If the database cannot answer, each process keeps limiting on its own rather than failing open.
    insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: prefix }),
  });
}

/**
 * The decisions for `count` requests of one key consumed together as one consume of `count` points: the
 * store counts them exactly as `count` single consumes, so the i-th request (1-based) is allowed when the
 * points consumed before the batch plus i are within the limit, as if the requests had come one by one.
 */
function decisionsOf(limit: number, res: RateLimiterRes, count: number): RateDecision[] {
  const before = res.consumedPoints - count;
  const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return Array.from({ length: count }, (_, i) => {
    const consumed = before + i + 1;
    return { allowed: consumed <= limit, limit, remaining: Math.max(0, limit - consumed), resetSeconds };
  });
}

async function consumeMany(limiter: RateLimiterAbstract, limit: number, keyId: string, count: number): Promise<RateDecision[]> {
  try {
    return decisionsOf(limit, await limiter.consume(keyId, count), count);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return decisionsOf(limit, rejection, count);
    throw rejection;
  }
}

export async function createRateLimiter(limits: { live: number; test: number }, pool: pg.Pool | null): Promise<RateLimiter> {
  const make = (points: number, prefix: string) =>
    pool ? postgresLimiter(pool, points, prefix) : new RateLimiterMemory({ points, duration: 1, keyPrefix: prefix });
  const byEnv: Record<Environment, RateLimiterAbstract> = {
    live: make(limits.live, 'live'),
    test: make(limits.test, 'test'),
  };
  if (!pool) {
    return {
      consume: async (environment, keyId) => (await consumeMany(byEnv[environment], limits[environment], keyId, 1))[0]!,
    };
  }
  // In the database every consume is a round trip: the requests of one key that arrive together are
  // consumed by one statement.
  const consume = batcher<{ environment: Environment; keyId: string }, RateDecision>(
    async (calls) => {
      const byKey = new Map<string, { environment: Environment; keyId: string; at: number[] }>();
      calls.forEach((c, i) => {
        const id = `${c.environment}:${c.keyId}`;
        const group = byKey.get(id) ?? { environment: c.environment, keyId: c.keyId, at: [] };
        group.at.push(i);
        byKey.set(id, group);
      });
      const out = new Array<RateDecision | Error>(calls.length);
      await Promise.all(
        [...byKey.values()].map(async (g) => {
          try {
            const decisions = await consumeMany(byEnv[g.environment], limits[g.environment], g.keyId, g.at.length);
            g.at.forEach((index, n) => (out[index] = decisions[n]!));
          } catch (err) {
            for (const index of g.at) out[index] = err as Error;
          }
        }),
      );
      return out;
    },
    { maxBatchSize: 1000 },
  );
  return { consume: (environment, keyId) => consume({ environment, keyId }) };
}

/** A budget of `points` per `durationS` seconds per key (the console's logins per client address). */
export interface WindowLimiter {
  consume(key: string): Promise<RateDecision>;
}

/** Shared by every process on PostgreSQL (the same table as the API's buckets), in memory on SQLite. */
export function createWindowLimiter(opts: { points: number; durationS: number; prefix: string }, pool: pg.Pool | null): WindowLimiter {
  const limiter = pool
    ? postgresLimiter(pool, opts.points, opts.prefix, opts.durationS)
    : new RateLimiterMemory({ points: opts.points, duration: opts.durationS, keyPrefix: opts.prefix });
  return { consume: async (key) => (await consumeMany(limiter, opts.points, key, 1))[0]! };
}
