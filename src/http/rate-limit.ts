// Per-key request budgets through rate-limiter-flexible. Each key has a bucket of N tokens (100 live,
// 25 sandbox by default) refilled every second. The buckets live in a shared store, so that the limit holds
// across every server process sharing it (each process leasing tokens from it ahead of need:
// rate-limit-leases.ts): Redis when COWRIE_REDIS_URL is set, else PostgreSQL when that is the database;
// with SQLite and no Redis (one process) they live in memory.
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClientType } from 'redis';
import type { Environment } from '../shared/scope.js';
import { leasedLimiter, resetSecondsIn, type RateDecision } from './rate-limit-leases.js';

export type { RateDecision } from './rate-limit-leases.js';

export interface RateLimiter {
  consume(environment: Environment, keyId: string): Promise<RateDecision>;
}

/** Where the buckets are kept: one process's memory, or a store every process shares. */
export type BucketStore = { kind: 'memory' } | { kind: 'postgres'; pool: pg.Pool } | { kind: 'redis'; client: RedisClientType };

/** The store of a deployment: Redis when configured, else PostgreSQL when that is the database, else memory. */
export function bucketStoreOf(pool: pg.Pool | null, redis: RedisClientType | null): BucketStore {
  if (redis) return { kind: 'redis', client: redis };
  return pool ? { kind: 'postgres', pool } : { kind: 'memory' };
}

function limiterIn(store: BucketStore, points: number, prefix: string, duration = 1): RateLimiterAbstract {
  // If a shared store cannot answer, each process keeps limiting on its own rather than failing open.
  const insuranceLimiter = new RateLimiterMemory({ points, duration, keyPrefix: prefix });
  switch (store.kind) {
    case 'memory':
      return insuranceLimiter;
    case 'postgres':
      return new RateLimiterPostgres({
        storeClient: store.pool,
        storeType: 'pool',
        tableName: 'rate_limit_buckets',
        // Created by migration 0006: two processes starting at once would race on the limiter's own CREATE.
        tableCreated: true,
        keyPrefix: prefix,
        points,
        duration,
        clearExpiredByTimeout: true,
        insuranceLimiter,
      });
    case 'redis':
      return new RateLimiterRedis({
        storeClient: store.client,
        useRedisPackage: true,
        keyPrefix: `cowrie:${prefix}`,
        points,
        duration,
        insuranceLimiter,
      });
  }
}

/** One request's decision: the store's count after it consumed one point, against the limit. */
async function consumeOne(limiter: RateLimiterAbstract, limit: number, keyId: string): Promise<RateDecision> {
  const res = await consumePoints(limiter, keyId, 1);
  const consumed = res.consumedPoints;
  return { allowed: consumed <= limit, limit, remaining: Math.max(0, limit - consumed), resetSeconds: resetSecondsIn(res.msBeforeNext) };
}

export function createRateLimiter(limits: { live: number; test: number }, store: BucketStore): RateLimiter {
  const byEnv: Record<Environment, RateLimiterAbstract> = {
    live: limiterIn(store, limits.live, 'live'),
    test: limiterIn(store, limits.test, 'test'),
  };
  // Each process leases tokens ahead of need and spends them locally (rate-limit-leases.ts says how, and
  // what it bounds): in a shared store every consume is a round trip, and in memory each one allocated
  // about 1.9 KB (its key, promises and result). One process alone admits exactly the limit either way.
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

/** Kept where the API's buckets are: shared by every process in Redis or PostgreSQL, else in memory. */
export function createWindowLimiter(opts: { points: number; durationS: number; prefix: string }, store: BucketStore): WindowLimiter {
  const limiter = limiterIn(store, opts.points, opts.prefix, opts.durationS);
  return { consume: (key) => consumeOne(limiter, opts.points, key) };
}
