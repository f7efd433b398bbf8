// The SDK's retries against a real server behind a real fault-injecting proxy: a POST keeps one
// Idempotency-Key across its retries, so a create whose answer was lost is replayed and never made twice;
// 5xx and cut connections are retried with backoff; a 429 waits at least its Retry-After, both from the
// proxy and from the server's own rate limit.
import { ApiError, Cowrie, RateLimitError } from '@cowrie/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';

describe(`@cowrie/sdk retries (${ENGINE})`, () => {
  let s: TestServer;
  let proxy: FaultProxy;
  let cowrie: Cowrie;

  beforeAll(async () => {
    s = await startTestServer();
    proxy = await startFaultProxy(s.url('test'));
    cowrie = new Cowrie(s.merchant.keys.test_secret, { baseUrl: proxy.baseUrl, maxRetries: 3 });
  });
  afterAll(async () => {
    await proxy?.close();
    await s?.stop();
  });

  const intentsWithReference = async (reference: string) =>
    (await cowrie.paymentIntents.list({ limit: 100 }).toArray()).filter((pi) => pi.merchant_reference === reference);

  it('a create whose answer is lost is retried with the same Idempotency-Key and made once', async () => {
    const start = proxy.requests.length;
    // The first try reaches the server, which creates the intent; the connection is cut before the answer.
    proxy.setFault((_req, i) => (i === start ? 'cut-after-forward' : 'pass'));
    const intent = await cowrie.paymentIntents.create({ amount: '42.00', currency: 'USD', merchant_reference: 'lost-answer' });
    const tries = proxy.requests.slice(start).filter((r) => r.method === 'POST');
    expect(tries).toHaveLength(2);
    const key = tries[0]!.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(tries[1]!.headers['idempotency-key']).toBe(key);
    expect(tries[1]!.body).toBe(tries[0]!.body);
    expect(intent.merchant_reference).toBe('lost-answer');
    proxy.setFault(() => 'pass');
    const made = await intentsWithReference('lost-answer');
    expect(made.map((pi) => pi.id)).toEqual([intent.id]);

    // The replay is what the server answered the first time: the raw answer says so.
    const replay = await cowrie.raw('POST', '/payment-intents', { body: JSON.parse(tries[0]!.body) }, { idempotencyKey: key as string });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.body as { id: string }).id).toBe(intent.id);
  });

  it('20 concurrent creates, each losing its first answer, make exactly 20 intents', async () => {
    const start = proxy.requests.length;
    const cut = new Set<string>();
    proxy.setFault((req) => {
      const key = String(req.headers['idempotency-key']);
      if (req.method !== 'POST' || cut.has(key)) return 'pass';
      cut.add(key);
      return 'cut-after-forward';
    });
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        cowrie.paymentIntents.create({ amount: `${i + 1}.00`, currency: 'USD', merchant_reference: 'burst' }),
      ),
    );
    proxy.setFault(() => 'pass');
    expect(proxy.requests.slice(start).filter((r) => r.method === 'POST')).toHaveLength(40);
    expect(new Set(made.map((pi) => pi.id)).size).toBe(20);
    expect((await intentsWithReference('burst')).map((pi) => pi.id).sort()).toEqual(made.map((pi) => pi.id).sort());
  });

  it('a 503 and a connection cut before the server is reached are retried with growing, jittered waits', async () => {
    const start = proxy.requests.length;
    proxy.setFault((_req, i) => (i === start ? { status: 503, body: '{}' } : i === start + 1 ? 'cut-before-forward' : 'pass'));
    const customer = await cowrie.customers.create({ reference: 'after-503' });
    proxy.setFault(() => 'pass');
    expect(customer.reference).toBe('after-503');
    const tries = proxy.requests.slice(start);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((t) => t.headers['idempotency-key'])).size).toBe(1);
    const firstWait = tries[1]!.at - tries[0]!.at;
    const secondWait = tries[2]!.at - tries[1]!.at;
    // Backoff: 0.5 s then 1 s, each between half and all of it.
    expect(firstWait).toBeGreaterThanOrEqual(240);
    expect(firstWait).toBeLessThan(1_500);
    expect(secondWait).toBeGreaterThanOrEqual(490);
    expect((await cowrie.customers.list({ limit: 100 }).toArray()).filter((c) => c.reference === 'after-503')).toHaveLength(1);
  });

  it('a 429 waits at least its Retry-After; the retries end when maxRetries are spent', async () => {
    const start = proxy.requests.length;
    const limited = {
      status: 429,
      headers: { 'retry-after': '1' },
      body: '{"error":{"type":"rate_limit_error","code":"rate_limit_exceeded","message":"slow down","param":null,"request_id":"req_x"}}',
    };
    proxy.setFault((_req, i) => (i === start ? limited : 'pass'));
    await cowrie.customers.list({ limit: 1 });
    const tries = proxy.requests.slice(start);
    expect(tries).toHaveLength(2);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(990);

    proxy.setFault(() => ({
      status: 500,
      body: '{"error":{"type":"api_error","code":"internal_error","message":"boom","param":null,"request_id":"req_y"}}',
    }));
    const failing = new Cowrie(s.merchant.keys.test_secret, { baseUrl: proxy.baseUrl, maxRetries: 1 });
    const before = proxy.requests.length;
    const err = await failing.customers.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ statusCode: 500, code: 'internal_error', requestId: 'req_y' });
    expect(proxy.requests.length - before).toBe(2);

    // A Retry-After longer than the client will wait ends the retries at once with the RateLimitError.
    proxy.setFault(() => ({ ...limited, headers: { 'retry-after': '3600' } }));
    const atOnce = proxy.requests.length;
    const limitedErr = await cowrie.customers.list().catch((e: unknown) => e);
    expect(limitedErr).toBeInstanceOf(RateLimitError);
    expect((limitedErr as RateLimitError).retryAfter).toBe(3600);
    expect(proxy.requests.length - atOnce).toBe(1);
    proxy.setFault(() => 'pass');
  });

  it("rides out the server's own rate limit: 8 concurrent calls on a budget of 2 a second all succeed", async () => {
    const limited = await startTestServer({ env: { COWRIE_RATE_LIMIT_TEST: '2' } });
    try {
      const answers: Array<{ status: number; at: number }> = [];
      const client = new Cowrie(limited.merchant.keys.test_secret, {
        baseUrl: `${limited.url('test')}/v1`,
        maxRetries: 6,
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          answers.push({ status: res.status, at: performance.now() });
          return res;
        },
      });
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => client.customers.create({ reference: `rl-${i}` })));
      expect(results.map((c) => c.reference).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `rl-${i}`).sort());
      expect(answers.some((a) => a.status === 429)).toBe(true);
      // 8 requests at 2 a second need four budgets: more than two whole seconds, however the first falls.
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
      const customers = await client.customers.list({ limit: 100 }).toArray();
      expect(customers).toHaveLength(8);
    } finally {
      await limited.stop();
    }
  });
});
