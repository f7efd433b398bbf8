// Idempotency-Key on POST: byte-for-byte replay, conflicts, scoping per merchant and environment, which
// outcomes are remembered, 24-hour retention, and exactly one record under concurrent identical requests.
// Runs once per engine (SQLite, PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { newKey, expectIdempotencyError, countCustomers, runCount, testRoutes } from './helpers/idempotency.js';
import { waitFor } from './helpers/wait.js';

describe(`idempotency (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ configureApp: testRoutes });
  });
  afterAll(async () => s?.stop());

  const post = (
    key: string | null,
    body: unknown,
    opts: { path?: string; env?: 'test' | 'live'; apiKey?: string; headers?: Record<string, string> } = {},
  ) =>
    s.call(opts.env ?? 'test', 'POST', opts.path ?? '/customers', {
      key: opts.apiKey ?? (opts.env === 'live' ? s.merchant.keys.live_secret! : s.merchant.keys.test_secret),
      body,
      headers: { ...opts.headers, ...(key === null ? {} : { 'idempotency-key': key }) },
    });

  it('replays the first response byte for byte, with Idempotent-Replayed: true, and creates one record', async () => {
    const key = newKey('replay');
    const reference = `ref-${key}`;
    const body = { email: 'replay@example.com', name: 'Replay', reference, metadata: { n: 1 } };
    const first = await post(key, body);
    expect(first.status, first.text).toBe(201);
    expect(first.json.id).toMatch(/^cus_/);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const second = await post(key, body);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('service-request-id')).toMatch(/^req_/);

    const third = await post(key, body);
    expect(third.text).toBe(first.text);
    expect(third.headers.get('idempotent-replayed')).toBe('true');

    expect(await countCustomers(s, { reference })).toBe(1);
  });

  it('treats the same JSON with other key order and spacing as the same body', async () => {
    const key = newKey('canonical');
    const reference = `ref-${key}`;
    const first = await s.sandbox('POST', '/customers', {
      raw: JSON.stringify({ name: 'Canon', reference, metadata: { a: 1, b: 'x' } }),
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(first.status, first.text).toBe(201);
    const second = await s.sandbox('POST', '/customers', {
      raw: `{ "metadata": {"b":"x", "a":1},\n  "reference": ${JSON.stringify(reference)}, "name": "Canon" }`,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await countCustomers(s, { reference })).toBe(1);
  });

  it('a trailing slash is still the same path; no body is the same as {}', async () => {
    const key = newKey('same-path');
    const reference = `ref-${key}`;
    const first = await post(key, { reference });
    expect(first.status).toBe(201);
    const again = await post(key, { reference }, { path: '/customers/' });
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    // A query string is not ignored: endpoints refuse query parameters they do not take, before the key.
    const withQuery = await post(key, { reference }, { path: '/customers?expand=x' });
    expect(withQuery.status, withQuery.text).toBe(400);
    expect(withQuery.json.error.code).toBe('parameter_unknown');
    expect(await countCustomers(s, { reference })).toBe(1);

    // A POST without a body reads as {}: the two are one request.
    const key2 = newKey('empty-body');
    const noBody = await s.sandbox('POST', '/customers', { headers: { 'idempotency-key': key2 } });
    expect(noBody.status, noBody.text).toBe(201);
    const emptyObject = await post(key2, {});
    expect(emptyObject.status, emptyObject.text).toBe(201);
    expect(emptyObject.headers.get('idempotent-replayed')).toBe('true');
    expect(emptyObject.text).toBe(noBody.text);
    const key3 = newKey('empty-body2');
    const emptyFirst = await post(key3, {});
    const noBodyAfter = await s.sandbox('POST', '/customers', { headers: { 'idempotency-key': key3 } });
    expect(noBodyAfter.headers.get('idempotent-replayed')).toBe('true');
    expect(noBodyAfter.text).toBe(emptyFirst.text);
  });

  it('without Idempotency-Key every POST runs', async () => {
    const reference = `ref-${newKey('nokey')}`;
    const a = await post(null, { reference });
    const b = await post(null, { reference });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).not.toBe(a.json.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(await countCustomers(s, { reference })).toBe(2);
  });

  it('the same key with a different body is 409 idempotency_conflict and runs nothing', async () => {
    const key = newKey('conflict-body');
    const reference = `ref-${key}`;
    const first = await post(key, { reference, name: 'A' });
    expect(first.status).toBe(201);
    const other = await post(key, { reference, name: 'B' });
    expectIdempotencyError(other, 'idempotency_conflict');
    expect(other.json.error.docs_url).toMatch(/\/docs\/errors#idempotency_conflict$/);
    // A body that is a strict superset, and an empty body, are different bodies too.
    expectIdempotencyError(await post(key, { reference, name: 'A', email: 'a@example.com' }), 'idempotency_conflict');
    expectIdempotencyError(await post(key, {}), 'idempotency_conflict');
    expect(await countCustomers(s, { reference })).toBe(1);
    // The original is still replayed afterwards.
    const again = await post(key, { reference, name: 'A' });
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('the same key on another path is 409 idempotency_conflict', async () => {
    const key = newKey('conflict-path');
    const first = await post(key, {});
    expect(first.status).toBe(201);
    const other = await post(key, {}, { path: '/test/echo' });
    expectIdempotencyError(other, 'idempotency_conflict');
    expect(runCount('echo', key)).toBe(0);

    // And the other way round: first used on the test path, then on /customers.
    const key2 = newKey('conflict-path2');
    expect((await post(key2, {}, { path: '/test/echo' })).status).toBe(200);
    const reference = `ref-${key2}`;
    expectIdempotencyError(await post(key2, { reference }), 'idempotency_conflict');
    expect(await countCustomers(s, { reference })).toBe(0);
  });

  it('the same key from the other environment is 409 idempotency_conflict', async () => {
    expect(s.merchant.keys.live_secret).toMatch(/^cwk_live_/);
    const key = newKey('conflict-env');
    const reference = `ref-${key}`;
    const body = { reference };
    const first = await post(key, body);
    expect(first.status).toBe(201);
    const live = await post(key, body, { env: 'live' });
    expectIdempotencyError(live, 'idempotency_conflict');
    expect(live.json.environment).toBe('live');
    expect(await countCustomers(s, { reference, environment: 'live' })).toBe(0);

    // Live first, then sandbox.
    const key2 = newKey('conflict-env2');
    const reference2 = `ref-${key2}`;
    const liveFirst = await post(key2, { reference: reference2 }, { env: 'live' });
    expect(liveFirst.status, liveFirst.text).toBe(201);
    expect(liveFirst.json.livemode).toBe(true);
    const sandbox = await post(key2, { reference: reference2 });
    expectIdempotencyError(sandbox, 'idempotency_conflict');
    expect(sandbox.json.environment).toBe('test');
    expect(await countCustomers(s, { reference: reference2, environment: 'test' })).toBe(0);
    expect(await countCustomers(s, { reference: reference2, environment: 'live' })).toBe(1);
  });

  it('accepts keys up to 255 characters; 256 is 400 parameter_invalid on Idempotency-Key and runs nothing', async () => {
    const okKey = `k${newKey('long')}`.padEnd(255, 'x');
    expect(okKey).toHaveLength(255);
    const okRef = `ref-${okKey.slice(0, 40)}`;
    const ok = await post(okKey, { reference: okRef });
    expect(ok.status, ok.text).toBe(201);
    const okAgain = await post(okKey, { reference: okRef });
    expect(okAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(okAgain.text).toBe(ok.text);

    const longKey = `k${newKey('long')}`.padEnd(256, 'y');
    expect(longKey).toHaveLength(256);
    const reference = `ref-${longKey.slice(0, 40)}`;
    const r = await post(longKey, { reference });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('parameter_invalid');
    expect(r.json.error.type).toBe('invalid_request_error');
    expect(r.json.error.param).toBe('Idempotency-Key');
    expect(await countCustomers(s, { reference })).toBe(0);
  });

  it('keys are per merchant: another merchant reuses the same key freely', async () => {
    const other = await s.newMerchant({ name: 'Other merchant' });
    const key = newKey('per-merchant');
    const body = { reference: `ref-${key}`, name: 'Same' };
    const mine = await post(key, body);
    expect(mine.status).toBe(201);
    const theirs = await post(key, body, { apiKey: other.keys.test_secret });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.json.id).not.toBe(mine.json.id);
    // A different body under the same key is no conflict for the other merchant either.
    const key2 = newKey('per-merchant2');
    expect((await post(key2, { name: 'One' })).status).toBe(201);
    const theirs2 = await post(key2, { name: 'Two' }, { apiKey: other.keys.test_secret });
    expect(theirs2.status, theirs2.text).toBe(201);
    expect(await countCustomers(s, { merchantId: other.merchant.id, reference: body.reference })).toBe(1);
    expect(await countCustomers(s, { reference: body.reference })).toBe(1);
    // Each merchant gets its own replay.
    const theirsAgain = await post(key, body, { apiKey: other.keys.test_secret });
    expect(theirsAgain.text).toBe(theirs.text);
    const mineAgain = await post(key, body);
    expect(mineAgain.text).toBe(mine.text);
  });

  it('a 4xx decided after the request ran is remembered and replayed', async () => {
    const key = newKey('4xx');
    const first = await post(key, { a: 1 }, { path: '/test/missing-once' });
    expect(first.status).toBe(404);
    expect(first.json.error.code).toBe('resource_missing');
    expect(runCount('missing-once', key)).toBe(1);
    const second = await post(key, { a: 1 }, { path: '/test/missing-once' });
    expect(second.status).toBe(404);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(runCount('missing-once', key)).toBe(1);
  });

  it('a validation error is not remembered: the key stays free', async () => {
    const key = newKey('validation');
    const reference = `ref-${key}`;
    const bad = await post(key, { reference, email: 'not-an-email' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('parameter_invalid');
    expect(bad.json.error.param).toBe('email');
    const badAgain = await post(key, { reference, email: 'not-an-email' });
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers.get('idempotent-replayed')).toBeNull();
    // Corrected body under the same key: runs (no conflict with the rejected one).
    const good = await post(key, { reference, email: 'good@example.com' });
    expect(good.status, good.text).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    expect(await countCustomers(s, { reference })).toBe(1);
    // Unknown field and invalid JSON: not remembered either.
    const key2 = newKey('validation2');
    expect((await post(key2, { reference, nope: 1 })).json.error.code).toBe('parameter_unknown');
    const broken = await s.sandbox('POST', '/customers', {
      raw: '{"reference": ',
      headers: { 'content-type': 'application/json', 'idempotency-key': key2 },
    });
    expect(broken.json.error.code).toBe('invalid_json');
    const good2 = await post(key2, { name: 'fixed' });
    expect(good2.status, good2.text).toBe(201);
    expect(good2.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a 5xx is not remembered: a retry with the same key runs again', async () => {
    const key = newKey('5xx');
    const first = await post(key, { x: 1 }, { path: '/test/flaky' });
    expect(first.status).toBe(500);
    expect(first.json.error.code).toBe('internal_error');
    expect(runCount('flaky', key)).toBe(1);
    const retry = await post(key, { x: 1 }, { path: '/test/flaky' });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.json).toEqual({ object: 'flaky', run: 2 });
    expect(runCount('flaky', key)).toBe(2);
    // The success is remembered.
    const again = await post(key, { x: 1 }, { path: '/test/flaky' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(retry.text);
    expect(runCount('flaky', key)).toBe(2);
  });

  it('a request with the key while the first still runs is 409 idempotency_in_progress', async () => {
    const key = newKey('in-progress');
    const firstP = post(key, { y: 1 }, { path: '/test/slow' });
    await waitFor(
      'the slow request to start',
      () => runCount('slow', key),
      (n) => n === 1,
      { intervalMs: 5 },
    );
    const during = await post(key, { y: 1 }, { path: '/test/slow' });
    expectIdempotencyError(during, 'idempotency_in_progress');
    const first = await firstP;
    expect(first.status).toBe(201);
    expect(runCount('slow', key)).toBe(1);
    const after = await post(key, { y: 1 }, { path: '/test/slow' });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.text).toBe(first.text);
    expect(runCount('slow', key)).toBe(1);
  });

  it('20 concurrent identical POST /customers with one key make exactly one customer', async () => {
    let inProgressSeen = 0;
    // Round 0 as the requests come; rounds 1 to 3 with a random delay before and after the claim.
    for (let round = 0; round < 4; round++) {
      const key = newKey(`concurrent${round}`);
      const reference = `ref-${key}`;
      const body = { reference, email: 'race@example.com', metadata: { round } };
      const headers: Record<string, string> = round === 0 ? {} : { 'x-test-jitter': '1' };
      const responses = await Promise.all(Array.from({ length: 20 }, () => post(key, body, { headers })));
      expect(await countCustomers(s, { reference })).toBe(1);

      const created = responses.filter((r) => r.status === 201);
      const originals = created.filter((r) => r.headers.get('idempotent-replayed') === null);
      expect(originals).toHaveLength(1);
      const original = originals[0]!;
      for (const r of responses) {
        if (r.status === 201) {
          expect(r.text).toBe(original.text);
        } else {
          expectIdempotencyError(r, 'idempotency_in_progress');
          inProgressSeen += 1;
        }
      }
      // Afterwards the key replays the one original.
      const later = await post(key, body);
      expect(later.text).toBe(original.text);
      expect(later.headers.get('idempotent-replayed')).toBe('true');
      expect(await countCustomers(s, { reference })).toBe(1);
    }
    // The race was real: some request found the first one still running.
    expect(inProgressSeen).toBeGreaterThan(0);
  });
});
