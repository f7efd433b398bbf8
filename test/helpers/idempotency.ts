// What the idempotency tests share: fresh keys, the 409 envelopes of the idempotency codes, and test-only
// routes that count how many times their handler really ran.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { AppError } from '../../src/shared/errors.js';
import { type ApiResponse, type TestServer } from './harness.js';

export let seq = 0;
/** A key no other test uses. */
export function newKey(label: string): string {
  seq += 1;
  return `idem-${label}-${seq}-${Math.random().toString(36).slice(2, 10)}`;
}

export function expectIdempotencyError(r: ApiResponse, code: 'idempotency_conflict' | 'idempotency_in_progress'): void {
  expect(r.status, r.text).toBe(409);
  expect(r.json.error.code).toBe(code);
  expect(r.json.error.type).toBe('idempotency_error');
  expect(r.headers.get('idempotent-replayed')).toBeNull();
}

export async function countCustomers(
  s: TestServer,
  where: { merchantId?: string; reference?: string; environment?: 'test' | 'live' },
): Promise<number> {
  let q = s.running.database.db.selectFrom('customers').select((eb) => eb.fn.countAll().as('n'));
  q = q.where('merchant_id', '=', where.merchantId ?? s.merchant.merchant.id);
  if (where.reference !== undefined) q = q.where('reference', '=', where.reference);
  if (where.environment !== undefined) q = q.where('environment', '=', where.environment);
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Test-only routes: how many times each ran, per Idempotency-Key. */
export const runs = new Map<string, number>();
export function bump(route: string, key: string | string[] | undefined): number {
  const k = `${route}:${String(key)}`;
  const n = (runs.get(k) ?? 0) + 1;
  runs.set(k, n);
  return n;
}
export function runCount(route: string, key: string): number {
  return runs.get(`${route}:${key}`) ?? 0;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function testRoutes(app: FastifyInstance): void {
  const config = { scopes: ['customers:write' as const] };
  // Fails with a plain Error (a 500) the first time for a key, succeeds afterwards.
  app.post('/v1/test/flaky', { config }, async (request, reply) => {
    const n = bump('flaky', request.headers['idempotency-key']);
    if (n === 1) throw new Error('flaky failure');
    return reply.code(201).send({ object: 'flaky', run: n });
  });
  // Answers 404 (an outcome decided after the request ran) the first time, 201 afterwards.
  app.post('/v1/test/missing-once', { config }, async (request, reply) => {
    const n = bump('missing-once', request.headers['idempotency-key']);
    if (n === 1) throw new AppError('resource_missing', 'No such thing', { param: 'id' });
    return reply.code(201).send({ object: 'thing', run: n });
  });
  // Takes about 500 ms.
  app.post('/v1/test/slow', { config }, async (request, reply) => {
    const n = bump('slow', request.headers['idempotency-key']);
    await sleep(500);
    return reply.code(201).send({ object: 'slow', run: n });
  });
  // Requests that carry `x-test-jitter` wait a random few milliseconds before the idempotency claim
  // and again after it (as a handler awaiting slow I/O would), so concurrent requests really overlap
  // even on SQLite, whose driver is synchronous.
  const jitter = () => sleep(Math.floor(Math.random() * 15));
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-test-jitter']) await jitter();
  });
  app.addHook('preHandler', async (request) => {
    if (request.headers['x-test-jitter']) await jitter();
  });
  app.post('/v1/test/echo', { config }, async (request, reply) => {
    const n = bump('echo', request.headers['idempotency-key']);
    return reply.code(200).send({ object: 'echo', run: n });
  });
}
