// Cursor pagination of GET /customers: newest first, ties on created_at broken by id descending, so paging
// never repeats or skips a record, whatever the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { newId } from '../src/shared/ids.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';

interface Rec {
  id: string;
  created_at: number;
}

const CUSTOMER_KEYS = ['created_at', 'email', 'id', 'livemode', 'metadata', 'name', 'object', 'phone', 'reference'];

/** Newest first; equal times by id descending (code-unit order, which is byte order for ASCII ids). */
function newestFirst(a: Rec, b: Rec): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

describe(`pagination (${ENGINE})`, () => {
  let s: TestServer;
  let other: CreatedMerchant;
  /** The 25 sandbox customers of the default merchant, in the order the API must return them. */
  let expected: Rec[] = [];
  const liveIds: string[] = [];
  const otherIds: string[] = [];
  const base = Date.now() - 3_600_000;

  async function insertRow(merchantId: string, environment: 'test' | 'live', createdAt: number, name: string): Promise<string> {
    const id = newId('customer');
    await s.running.database.db
      .insertInto('customers')
      .values({
        id,
        merchant_id: merchantId,
        environment,
        email: null,
        phone: null,
        name,
        reference: null,
        metadata: '{}',
        created_at: createdAt,
      })
      .execute();
    return id;
  }

  async function countWhere(merchantId: string, environment: 'test' | 'live'): Promise<number> {
    const row = await s.running.database.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('merchant_id', '=', merchantId)
      .where('environment', '=', environment)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  function expectPage(r: ApiResponse, environment: 'test' | 'live'): void {
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['data', 'environment', 'has_more', 'livemode', 'object', 'request_id']);
    expect(r.json.object).toBe('list');
    expect(Array.isArray(r.json.data)).toBe(true);
    expect(typeof r.json.has_more).toBe('boolean');
    expect(r.json.request_id).toBe(r.headers.get('service-request-id'));
    expect(r.json.environment).toBe(environment);
    expect(r.json.livemode).toBe(environment === 'live');
    for (const c of r.json.data) {
      expect(Object.keys(c).sort()).toEqual(CUSTOMER_KEYS);
      expect(c.object).toBe('customer');
      expect(c.livemode).toBe(environment === 'live');
    }
  }

  /** Follows starting_after until has_more is false; returns every page. */
  async function walk(limit: number | null, key = s.merchant.keys.test_secret, env: 'test' | 'live' = 'test') {
    const pages: Array<{ ids: string[]; hasMore: boolean; createdAt: string[] }> = [];
    let after: string | null = null;
    for (let guard = 0; guard < 200; guard++) {
      const q = new URLSearchParams();
      if (limit !== null) q.set('limit', String(limit));
      if (after) q.set('starting_after', after);
      const qs = q.toString();
      const r = await s.call(env, 'GET', `/customers${qs ? `?${qs}` : ''}`, { key });
      expectPage(r, env);
      const ids = r.json.data.map((c: { id: string }) => c.id);
      pages.push({ ids, hasMore: r.json.has_more, createdAt: r.json.data.map((c: { created_at: string }) => c.created_at) });
      if (!r.json.has_more) return pages;
      expect(ids.length).toBeGreaterThan(0);
      after = ids[ids.length - 1];
    }
    throw new Error('pagination did not end');
  }

  beforeAll(async () => {
    s = await startTestServer();
    other = await s.newMerchant({ name: 'Other merchant', verified: true });
    const me = s.merchant.merchant.id;
    const recs: Rec[] = [];

    // Five through the API (some may share a millisecond on their own).
    const viaApi: Rec[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await s.sandbox('POST', '/customers', { body: { name: `api ${i}` } });
      expect(r.status, r.text).toBe(201);
      viaApi.push({ id: r.json.id, created_at: Date.parse(r.json.created_at) });
    }
    recs.push(...viaApi);
    // Three more in the very millisecond of the third API-created one.
    for (let i = 0; i < 3; i++)
      recs.push({ id: await insertRow(me, 'test', viaApi[2]!.created_at, `tie api ${i}`), created_at: viaApi[2]!.created_at });
    // Seventeen older ones in groups sharing a millisecond: 4, 1, 5, 1 and 6 rows.
    const groups: Array<[number, number]> = [
      [base + 4, 4],
      [base + 3, 1],
      [base + 2, 5],
      [base + 1, 1],
      [base + 0, 6],
    ];
    for (const [at, n] of groups) {
      for (let i = 0; i < n; i++) recs.push({ id: await insertRow(me, 'test', at, `older ${at - base}.${i}`), created_at: at });
    }
    // Noise with the same times: the same merchant's live records and another merchant's sandbox records.
    for (const [at] of groups) {
      liveIds.push(await insertRow(me, 'live', at, 'live noise'));
      otherIds.push(await insertRow(other.merchant.id, 'test', at, 'other noise'));
    }
    liveIds.push(await insertRow(me, 'live', viaApi[2]!.created_at, 'live noise'));
    otherIds.push(await insertRow(other.merchant.id, 'test', viaApi[2]!.created_at, 'other noise'));

    expected = [...recs].sort(newestFirst);
  });
  afterAll(async () => s?.stop());

  it('has the data it needs: 25 records, ties that straddle page boundaries', async () => {
    expect(expected).toHaveLength(25);
    expect(new Set(expected.map((r) => r.id)).size).toBe(25);
    expect(await countWhere(s.merchant.merchant.id, 'test')).toBe(25);
    // limit 10 cuts inside a tie at both boundaries; limit 5 at 15.
    expect(expected[9]!.created_at).toBe(expected[10]!.created_at);
    expect(expected[19]!.created_at).toBe(expected[20]!.created_at);
    expect(expected[14]!.created_at).toBe(expected[15]!.created_at);
  });

  it('pages with limit=10 via starting_after: 10, 10, 5, newest first, ties by id descending, nothing repeated or skipped', async () => {
    const pages = await walk(10);
    expect(pages.map((p) => p.ids.length)).toEqual([10, 10, 5]);
    expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
    const all = pages.flatMap((p) => p.ids);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expected.map((r) => r.id));
    // created_at is returned as the stored millisecond
    expect(pages.flatMap((p) => p.createdAt).map((t) => Date.parse(t))).toEqual(expected.map((r) => r.created_at));
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 9, 12, 24, 25, 26, 100])('every record exactly once, in order, with limit=%i', async (limit) => {
    const pages = await walk(limit);
    const all = pages.flatMap((p) => p.ids);
    expect(all).toEqual(expected.map((r) => r.id));
    const n = Math.ceil(25 / limit);
    expect(pages).toHaveLength(n);
    for (let i = 0; i < n; i++) {
      expect(pages[i]!.ids.length).toBe(Math.min(limit, 25 - i * limit));
      expect(pages[i]!.hasMore).toBe(i < n - 1);
    }
  });

  it('default limit is 20', async () => {
    const r = await s.sandbox('GET', '/customers');
    expectPage(r, 'test');
    expect(r.json.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(0, 20).map((x) => x.id));
    expect(r.json.has_more).toBe(true);
    const next = await s.sandbox('GET', `/customers?starting_after=${r.json.data[19].id}`);
    expectPage(next, 'test');
    expect(next.json.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(20).map((x) => x.id));
    expect(next.json.has_more).toBe(false);
  });

  it('limit=100 is allowed and returns everything; has_more is exact at 24, 25 and 26', async () => {
    const r = await s.sandbox('GET', '/customers?limit=100');
    expectPage(r, 'test');
    expect(r.json.data).toHaveLength(25);
    expect(r.json.has_more).toBe(false);
    expect((await s.sandbox('GET', '/customers?limit=24')).json.has_more).toBe(true);
    expect((await s.sandbox('GET', '/customers?limit=25')).json.has_more).toBe(false);
    expect((await s.sandbox('GET', '/customers?limit=26')).json.has_more).toBe(false);
  });

  it('starting_after the last record: an empty last page', async () => {
    const r = await s.sandbox('GET', `/customers?starting_after=${expected[24]!.id}`);
    expectPage(r, 'test');
    expect(r.json.data).toEqual([]);
    expect(r.json.has_more).toBe(false);
  });

  it('starting_after inside a tie continues with the rest of the tie', async () => {
    for (const i of [8, 9, 13, 19, 20]) {
      const r = await s.sandbox('GET', `/customers?limit=3&starting_after=${expected[i]!.id}`);
      expectPage(r, 'test');
      expect(r.json.data.map((c: { id: string }) => c.id)).toEqual(expected.slice(i + 1, i + 4).map((x) => x.id));
    }
  });

  it('starting_after of an unknown id: 400 parameter_invalid, param starting_after', async () => {
    // A real id in the wrong case names no record: ids are compared exactly.
    const swapped = expected[0]!.id
      .replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
      .replace(/^CUS_/, 'cus_');
    expect(swapped).not.toBe(expected[0]!.id);
    for (const id of ['cus_000000000000000000000000', 'cus_nope', 'nope', swapped, `${expected[0]!.id} `]) {
      expectError(
        await s.sandbox('GET', `/customers?starting_after=${encodeURIComponent(id)}`),
        400,
        'parameter_invalid',
        'starting_after',
      );
    }
  });

  it("starting_after of another merchant's id: 400 parameter_invalid, param starting_after", async () => {
    for (const id of otherIds) {
      expectError(await s.sandbox('GET', `/customers?starting_after=${id}`), 400, 'parameter_invalid', 'starting_after');
    }
    // and the other way round
    const r = await s.call('test', 'GET', `/customers?starting_after=${expected[0]!.id}`, { key: other.keys.test_secret });
    expectError(r, 400, 'parameter_invalid', 'starting_after');
  });

  it("starting_after of the other environment's id: 400 parameter_invalid, param starting_after", async () => {
    for (const id of liveIds) {
      expectError(await s.sandbox('GET', `/customers?starting_after=${id}`), 400, 'parameter_invalid', 'starting_after');
    }
    const r = await s.call('live', 'GET', `/customers?starting_after=${expected[3]!.id}`, { key: s.merchant.keys.live_secret! });
    expectError(r, 400, 'parameter_invalid', 'starting_after');
    expect(r.json.environment).toBe('live');
  });

  it('the other lists hold only their own records, in the same order rule', async () => {
    const live = await walk(4, s.merchant.keys.live_secret!, 'live');
    const liveAll = live.flatMap((p) => p.ids);
    expect([...liveAll].sort()).toEqual([...liveIds].sort());
    expect(liveAll).toHaveLength(liveIds.length);
    const theirs = await walk(4, other.keys.test_secret);
    expect([...theirs.flatMap((p) => p.ids)].sort()).toEqual([...otherIds].sort());
  });

  it('records created while paging: no repeat, no skip of records that existed, newer ones not pulled in', async () => {
    const m = await s.newMerchant({ name: 'Moving target' });
    const t = base + 10_000;
    const initial: Rec[] = [];
    for (let i = 0; i < 12; i++) {
      const at = t + Math.floor(i / 3); // groups of 3 sharing a millisecond
      initial.push({ id: await insertRow(m.merchant.id, 'test', at, `m ${i}`), created_at: at });
    }
    const order = [...initial].sort(newestFirst);
    const key = m.keys.test_secret;
    const p1 = await s.call('test', 'GET', '/customers?limit=5', { key });
    expectPage(p1, 'test');
    const seen: string[] = p1.json.data.map((c: { id: string }) => c.id);
    // Now: one newer than everything, one in the tie of the cursor, one older than everything.
    await insertRow(m.merchant.id, 'test', t + 100, 'newest');
    const cursor = order[4]!;
    await insertRow(m.merchant.id, 'test', cursor.created_at, 'same ms as the cursor');
    const oldest: Rec = { id: await insertRow(m.merchant.id, 'test', t - 100, 'oldest'), created_at: t - 100 };
    let after = seen[seen.length - 1]!;
    for (let guard = 0; guard < 10; guard++) {
      const r = await s.call('test', 'GET', `/customers?limit=5&starting_after=${after}`, { key });
      expectPage(r, 'test');
      const ids: string[] = r.json.data.map((c: { id: string }) => c.id);
      seen.push(...ids);
      if (!r.json.has_more) break;
      after = ids[ids.length - 1]!;
    }
    expect(new Set(seen).size).toBe(seen.length);
    // Every record that existed at the start, in order, then the new oldest one at the end.
    const existed = seen.filter((id) => order.some((r) => r.id === id));
    expect(existed).toEqual(order.map((r) => r.id));
    expect(seen[seen.length - 1]).toBe(oldest.id);
  });
});
