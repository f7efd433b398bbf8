// Idempotency keys over time: remembered for 24 hours, then forgotten; a lock of a request that died lapses
// after 60 seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { IDEMPOTENCY_LOCK_MS } from '../src/http/idempotency.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { newKey, expectIdempotencyError, countCustomers, bump, runCount } from './helpers/idempotency.js';
import { waitFor } from './helpers/wait.js';

describe(`idempotency retention (${ENGINE})`, () => {
  const HOUR = 3_600_000;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let s: TestServer;
  let release: (() => void) | null = null;
  const gate = () => new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    s = await startTestServer({
      clock,
      configureApp: (app) => {
        app.post('/v1/test/gated', { config: { scopes: ['customers:write'] } }, async (request, reply) => {
          const n = bump('gated', request.headers['idempotency-key']);
          if (n === 1) await gate();
          return reply.code(201).send({ object: 'gated', run: n });
        });
      },
    });
  });
  afterAll(async () => s?.stop());

  const post = (key: string, body: unknown, path = '/customers') => s.sandbox('POST', path, { body, headers: { 'idempotency-key': key } });

  it('replays at 23h59m and runs again (a new record) after 24h', async () => {
    const key = newKey('retention');
    const reference = `ref-${key}`;
    const body = { reference };
    const first = await post(key, body);
    expect(first.status).toBe(201);

    clock.advance(23 * HOUR + 59 * 60_000);
    const replay = await post(key, body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await countCustomers(s, { reference })).toBe(1);

    clock.advance(60_000 + 1); // 24h + 1ms after the first request
    const fresh = await post(key, body);
    expect(fresh.status, fresh.text).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.json.id).not.toBe(first.json.id);
    expect(await countCustomers(s, { reference })).toBe(2);

    // The new record is what the key replays from now on.
    const replayFresh = await post(key, body);
    expect(replayFresh.headers.get('idempotent-replayed')).toBe('true');
    expect(replayFresh.text).toBe(fresh.text);
    expect(await countCustomers(s, { reference })).toBe(2);
  });

  it('after 24h the key is free for another body and another path too', async () => {
    const key = newKey('retention-free');
    expect((await post(key, { name: 'before' })).status).toBe(201);
    expectIdempotencyError(await post(key, { name: 'other' }), 'idempotency_conflict');
    clock.advance(24 * HOUR + 1);
    const other = await post(key, { name: 'other' });
    expect(other.status, other.text).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.json.name).toBe('other');
  });

  it('the lock of a request that never finished lapses; its late outcome does not overwrite the new one', async () => {
    const key = newKey('stale-lock');
    const hung = post(key, { z: 1 }, '/test/gated');
    await waitFor(
      'the gated request to start',
      () => runCount('gated', key),
      (n) => n === 1,
      { intervalMs: 5 },
    );
    expectIdempotencyError(await post(key, { z: 1 }, '/test/gated'), 'idempotency_in_progress');
    clock.advance(IDEMPOTENCY_LOCK_MS);
    const takeover = await post(key, { z: 1 }, '/test/gated');
    expect(takeover.status, takeover.text).toBe(201);
    expect(takeover.json).toEqual({ object: 'gated', run: 2 });
    release!();
    const late = await hung;
    expect(late.status).toBe(201);
    expect(late.json).toEqual({ object: 'gated', run: 1 });
    const replay = await post(key, { z: 1 }, '/test/gated');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(takeover.text);
  });
});
