// Per-key request budgets through rate-limiter-flexible. Each key has a bucket of N tokens (100 live,
// 25 sandbox by default) refilled every second. With PostgreSQL the buckets live in the database, so the
// limit holds across every server process sharing it (each process leasing tokens from it ahead of need:
// rate-limit-leases.ts); with SQLite (one process) they live in memory.
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Environment } from '../shared/scope.js';
import { leasedLimiter, type RateDecision } from './rate-limit-leases.js';

export type { RateDecision } from './rate-limit-leases.js';

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
  return decisionsOf(limit, await consumePoints(limiter, keyId, count), count);
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
  // In the database every consume is a round trip: each process leases tokens ahead of need and spends
  // them locally (rate-limit-leases.ts says how, and what it bounds).
  const consume = leasedLimiter(
    (key) => limits[key.startsWith('live:') ? 'live' : 'test'],
    async (key, points) => {
      const environment: Environment = key.startsWith('live:') ? 'live' : 'test';
      const res = await consumePoints(byEnv[environment], key.slice(environment.length + 1), points);
      return { consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext };
    },
  );
  return { consume: (environment, keyId) => consume(`${environment}:${keyId}`) };
}

/** A consume of `points`, answering the store's count whether or not it went over the limit. */
async function consumePoints(limiter: RateLimiterAbstract, key: string, points: number): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, points);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return rejection;
    throw rejection;
  }
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
