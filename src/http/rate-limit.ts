// Per-key request budgets through rate-limiter-flexible. Each key has a bucket of N tokens (100 live,
// 25 sandbox by default) refilled every second. With PostgreSQL the buckets live in the database, so the
// limit holds across every server process sharing it; with SQLite (one process) they live in memory.
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Environment } from '../config.js';

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

function decision(limit: number, res: RateLimiterRes, allowed: boolean): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

function postgresLimiter(pool: pg.Pool, points: number, prefix: string): RateLimiterAbstract {
  return new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limit_buckets',
    // Created by migration 0006: two processes starting at once would race on the limiter's own CREATE.
    tableCreated: true,
    keyPrefix: prefix,
    points,
    duration: 1,
    clearExpiredByTimeout: true,
    // If the database cannot answer, each process keeps limiting on its own rather than failing open.
    insuranceLimiter: new RateLimiterMemory({ points, duration: 1, keyPrefix: prefix }),
  });
}

export async function createRateLimiter(limits: { live: number; test: number }, pool: pg.Pool | null): Promise<RateLimiter> {
  const make = (points: number, prefix: string) =>
    pool ? postgresLimiter(pool, points, prefix) : new RateLimiterMemory({ points, duration: 1, keyPrefix: prefix });
  const byEnv: Record<Environment, RateLimiterAbstract> = {
    live: make(limits.live, 'live'),
    test: make(limits.test, 'test'),
  };
  return {
    async consume(environment, keyId) {
      const limit = limits[environment];
      try {
        return decision(limit, await byEnv[environment].consume(keyId, 1), true);
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return decision(limit, rejection, false);
        throw rejection;
      }
    },
  };
}
