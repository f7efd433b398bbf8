// The event feed: newest first; with `after`, strictly newer events oldest first, in commit order, never
// skipping an event whose transaction commits late. On PostgreSQL a transaction that records an event and
// holds is interleaved with ones that commit.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/transaction.js';
import { recordEvent } from '../src/modules/events/index.js';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';

describe(`event feed (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  async function merchant() {
    const m: CreatedMerchant = await s.newMerchant({ verified: true });
    const sb = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key: m.keys.test_secret, body });
    return { m, sb };
  }

  const ids = (r: ApiResponse) => (r.json.data as Array<{ id: string }>).map((e) => e.id);

  /**
   * On PostgreSQL the feed shows an event once every older transaction of the server has finished; other
   * test files share the server, so wait (briefly) for committed events to become visible.
   */
  async function feedShows(sb: (m: string, p: string) => Promise<ApiResponse>, n: number): Promise<void> {
    await waitFor(
      `${n} events in the feed`,
      async () => (await sb('GET', '/events?limit=100')).json.data.length,
      (shown) => shown >= n,
      { intervalMs: 25 },
    );
  }

  it('newest first; `after` answers strictly newer events oldest first; type, limit and has_more', async () => {
    const { m, sb } = await merchant();
    const created: string[] = [];
    for (let i = 0; i < 4; i++) created.push((await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' })).json.id);
    await sb('POST', `/payment-intents/${created[1]}/cancel`);
    await feedShows(sb, 5);
    const all = await sb('GET', '/events');
    expect(all.status, all.text).toBe(200);
    expect(all.json).toMatchObject({ object: 'list', has_more: false, environment: 'test', livemode: false });
    expect(all.json.data.map((e: { type: string }) => e.type)).toEqual([
      'payment_intent.cancelled',
      ...Array(4).fill('payment_intent.created'),
    ]);
    expect(all.json.data.slice(1).map((e: { data: { id: string } }) => e.data.id)).toEqual([...created].reverse());
    for (const e of all.json.data) {
      expect(Object.keys(e).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'livemode', 'object', 'type']);
      expect(e).toMatchObject({ object: 'event', api_version: '2026-06-01', livemode: false });
    }
    const oldestFirst = [...ids(all)].reverse();
    const after = await sb('GET', `/events?after=${oldestFirst[1]}`);
    expect(ids(after)).toEqual(oldestFirst.slice(2));
    const page = await sb('GET', `/events?after=${oldestFirst[0]}&limit=2`);
    expect(ids(page)).toEqual(oldestFirst.slice(1, 3));
    expect(page.json.has_more).toBe(true);
    expect(ids(await sb('GET', `/events?after=${oldestFirst[4]}`))).toEqual([]);
    expect(ids(await sb('GET', '/events?limit=2'))).toEqual(ids(all).slice(0, 2));
    expect((await sb('GET', '/events?limit=2')).json.has_more).toBe(true);
    const typed = await sb('GET', `/events?type=payment_intent.created&after=${oldestFirst[0]}`);
    expect(ids(typed)).toEqual(oldestFirst.slice(1, 4));

    // Errors.
    const bad = async (path: string, param: string) => {
      const r = await sb('GET', path);
      expect(r.status, r.text).toBe(400);
      expect(r.json.error).toMatchObject({ code: 'parameter_invalid', param });
    };
    await bad('/events?after=evt_nope', 'after');
    await bad('/events?limit=0', 'limit');
    await bad('/events?limit=101', 'limit');
    await bad('/events?type=payment_intent.exploded', 'type');
    const unknown = await sb('GET', '/events?starting_after=x');
    expect(unknown.json.error).toMatchObject({ code: 'parameter_unknown', param: 'starting_after' });
    // Another merchant's event, or this merchant's live event, is no cursor here.
    const other = await merchant();
    const foreign = await other.sb('GET', `/events?after=${oldestFirst[0]}`);
    expect(foreign.json.error).toMatchObject({ code: 'parameter_invalid', param: 'after' });
    expect(ids(await other.sb('GET', '/events'))).toEqual([]);
    await s.call('live', 'POST', '/payment-intents', { key: m.keys.live_secret!, body: { amount: '10.00', currency: 'USD' } });
    const asLive = (method: string, path: string) => s.call('live', method, path, { key: m.keys.live_secret! });
    await feedShows(asLive, 1);
    const live = await asLive('GET', '/events');
    expect(live.json.data).toHaveLength(1);
    expect(live.json.data[0].livemode).toBe(true);
    const crossed = await sb('GET', `/events?after=${live.json.data[0].id}`);
    expect(crossed.json.error).toMatchObject({ code: 'parameter_invalid', param: 'after' });
    expect(ids(await sb('GET', '/events'))).toEqual(ids(all));
  });

  it('defaults to 50 events and allows 100', async () => {
    const { sb } = await merchant();
    await Promise.all(Array.from({ length: 105 }, () => sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' })));
    await feedShows(sb, 100);
    const first = await sb('GET', '/events');
    expect(first.json.data).toHaveLength(50);
    expect(first.json.has_more).toBe(true);
    expect((await sb('GET', '/events?limit=100')).json.data).toHaveLength(100);
  });

  it('a reader paging with `after` while many requests write sees every event exactly once', async () => {
    const { m, sb } = await merchant();
    const first = await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
    expect(first.status).toBe(201);
    await feedShows(sb, 1);
    let cursor = ids(await sb('GET', '/events'))[0]!;
    const start = cursor;
    const seen: string[] = [];
    let writing = true;
    const reader = (async () => {
      for (;;) {
        const done = !writing;
        const r = await sb('GET', `/events?after=${cursor}&limit=100`);
        expect(r.status, r.text).toBe(200);
        for (const id of ids(r)) seen.push(id);
        if (r.json.data.length > 0) cursor = seen[seen.length - 1]!;
        // Done once the writers have finished and every event they committed has been read (events of
        // PostgreSQL transactions become visible only once older transactions of the server end).
        if (done && !r.json.has_more && seen.length >= 80) return;
        // The reader's poll interval once the writers are done (it reads back to back while they write).
        if (done && r.json.data.length === 0) await new Promise((res) => setTimeout(res, 10));
      }
    })();
    const writes = Array.from({ length: 60 }, (_, i) =>
      (async () => {
        // Staggered starts, so that writes land while the reader pages.
        await new Promise((r) => setTimeout(r, (i % 10) * 7));
        const pi = await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        if (i % 3 === 0) await sb('POST', `/payment-intents/${pi.json.id}/cancel`);
      })(),
    );
    await Promise.all(writes);
    writing = false;
    await reader;
    const db = s.running.database.db;
    const all = await db
      .selectFrom('events')
      .select('id')
      .where('merchant_id', '=', m.merchant.id)
      .where('environment', '=', 'test')
      .execute();
    expect(all.length).toBe(1 + 60 + 20);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(all.map((e) => e.id).filter((id) => id !== start)));
  });

  describe.runIf(ENGINE === 'postgres')('late commits on PostgreSQL', () => {
    /** A transaction of its own that records an event and waits for `release` before it commits. */
    function slowEvent(merchantId: string, begun?: () => Promise<void>) {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let recorded!: (id: string) => void;
      const idP = new Promise<string>((r) => (recorded = r));
      const done = transaction(s.running.database.db, async (trx) => {
        if (begun) {
          // Take a snapshot now, write later: the transaction's id is assigned at its first write.
          await trx.selectFrom('events').select('id').limit(1).execute();
          await begun();
        }
        const e = await recordEvent(trx, {
          merchantId,
          environment: 'test',
          type: 'payment_intent.created',
          data: { slow: true },
          at: Date.now(),
        });
        recorded(e.id);
        await released;
      });
      return { id: idP, release, done };
    }

    it('an event whose transaction began first and commits last is shown after it commits, never skipped', async () => {
      const { m, sb } = await merchant();
      await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
      await feedShows(sb, 1);
      let cursor = ids(await sb('GET', '/events'))[0]!;
      const slow = slowEvent(m.merchant.id);
      const slowId = await slow.id;
      const fast = await sb('POST', '/payment-intents', { amount: '11.00', currency: 'USD' });
      expect(fast.status).toBe(201);
      // The fast event has committed, but a transaction that wrote before it is still open: neither shows.
      const during = await sb('GET', `/events?after=${cursor}`);
      expect(ids(during)).toEqual([]);
      expect(ids(await sb('GET', '/events'))).toEqual([cursor]);
      slow.release();
      await slow.done;
      const after = await waitFor(
        'both events shown once the slow one commits',
        () => sb('GET', `/events?after=${cursor}`),
        (x) => x.json.data.length >= 2,
      );
      expect(after.json.data).toHaveLength(2);
      expect(after.json.data[0].id).toBe(slowId);
      expect(after.json.data[1].data.id).toBe(fast.json.id);
      cursor = after.json.data[1].id;
      expect(ids(await sb('GET', `/events?after=${cursor}`))).toEqual([]);
    });

    it('a transaction that writes its event after a faster one committed comes after it in the feed', async () => {
      const { m, sb } = await merchant();
      await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
      await feedShows(sb, 1);
      let cursor = ids(await sb('GET', '/events'))[0]!;
      let fastId = '';
      const slow = slowEvent(m.merchant.id, async () => {
        const fast = await sb('POST', '/payment-intents', { amount: '11.00', currency: 'USD' });
        const shown = await waitFor(
          'the fast event shown',
          () => sb('GET', `/events?after=${cursor}`),
          (x) => x.json.data.length >= 1,
        );
        expect(shown.json.data).toHaveLength(1);
        fastId = shown.json.data[0].id;
        expect(shown.json.data[0].data.id).toBe(fast.json.id);
        cursor = fastId;
      });
      const slowId = await slow.id;
      expect(ids(await sb('GET', `/events?after=${cursor}`))).toEqual([]);
      slow.release();
      await slow.done;
      const last = await waitFor(
        'the slow event shown once it commits',
        () => sb('GET', `/events?after=${cursor}`),
        (x) => x.json.data.length >= 1,
      );
      expect(ids(last)).toEqual([slowId]);
    });

    it('many overlapping slow and fast transactions: a polling reader misses none and repeats none', async () => {
      const { m, sb } = await merchant();
      await sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
      await feedShows(sb, 1);
      let cursor = ids(await sb('GET', '/events'))[0]!;
      const start = cursor;
      const seen: string[] = [];
      let writing = true;
      const reader = (async () => {
        for (;;) {
          const done = !writing;
          const r = await sb('GET', `/events?after=${cursor}&limit=100`);
          expect(r.status, r.text).toBe(200);
          for (const id of ids(r)) seen.push(id);
          if (r.json.data.length > 0) cursor = seen[seen.length - 1]!;
          if (done && !r.json.has_more && seen.length >= 36) return;
          // The reader's poll interval: it follows the feed as a client does, while the writers write.
          await new Promise((res) => setTimeout(res, 5));
        }
      })();
      const slowOnes = Array.from({ length: 6 }, (_, i) => {
        const t = slowEvent(m.merchant.id);
        setTimeout(() => t.release(), 50 + i * 60);
        return t.done;
      });
      // Fast writes spread over the slow transactions' lifetimes, so that commits interleave.
      const fastOnes = Array.from({ length: 30 }, (_, i) =>
        new Promise((r) => setTimeout(r, i * 12)).then(() => sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' })),
      );
      await Promise.all([...slowOnes, ...fastOnes]);
      writing = false;
      await reader;
      // A direct admin connection confirms what committed.
      const client = new pg.Client({ connectionString: s.config.databaseUrl });
      await client.connect();
      const { rows } = await client.query<{ id: string }>('select id from events where merchant_id = $1 and id <> $2', [
        m.merchant.id,
        start,
      ]);
      await client.end();
      expect(rows).toHaveLength(36);
      expect(seen).toHaveLength(36);
      expect(new Set(seen)).toEqual(new Set(rows.map((r) => r.id)));
    });
  });
});
