// Listing, retrieving and cancelling payment intents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreatedMerchant } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { INTENT_KEYS } from './helpers/intents.js';
import { URL_ENV, RESPONSE_KEYS, ISO_RE, record, helpers } from './helpers/payment-intents.js';

describe(`payment intents (${ENGINE})`, () => {
  let s: TestServer;
  let other: CreatedMerchant;
  const h = helpers(() => s);
  const { create, createOk } = h;

  beforeAll(async () => {
    s = await startTestServer({ env: URL_ENV });
    other = await s.newMerchant({ name: 'Other merchant', verified: true });
  });
  afterAll(async () => s?.stop());

  describe('GET /payment-intents and /payment-intents/{id}', () => {
    let m: CreatedMerchant;
    const ids: string[] = [];

    beforeAll(async () => {
      m = await s.newMerchant({ verified: true, name: 'List merchant' });
      for (let i = 0; i < 23; i++) {
        const r = await create({ amount: `${i + 1}.00`, currency: 'USD', merchant_reference: `L${i}` }, { key: m.keys.test_secret });
        expect(r.status, r.text).toBe(201);
        ids.push(r.json.id);
      }
    });

    const list = (query: string, key = m.keys.test_secret, env: 'test' | 'live' = 'test') =>
      s.call(env, 'GET', `/payment-intents${query}`, { key });

    it('lists newest first, 20 by default, then the rest after starting_after', async () => {
      const first = await list('');
      expect(first.status, first.text).toBe(200);
      expect(Object.keys(first.json).sort()).toEqual(['data', 'environment', 'has_more', 'livemode', 'object', 'request_id']);
      expect(first.json.object).toBe('list');
      expect(first.json.data).toHaveLength(20);
      expect(first.json.has_more).toBe(true);
      for (const pi of first.json.data) expect(Object.keys(pi).sort()).toEqual([...INTENT_KEYS].sort());
      const second = await list(`?starting_after=${first.json.data[19].id}`);
      expect(second.status, second.text).toBe(200);
      expect(second.json.data).toHaveLength(3);
      expect(second.json.has_more).toBe(false);
      const all = [...first.json.data, ...second.json.data];
      expect(new Set(all.map((p: { id: string }) => p.id))).toEqual(new Set(ids));
      expect(all).toHaveLength(23);
      const times = all.map((p: { created_at: string }) => Date.parse(p.created_at));
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]!);
      // the first created is last, the last created first (they are at least a request apart)
      expect(all[22].merchant_reference).toBe('L0');
      expect(all[0].merchant_reference).toBe('L22');
    });

    it('honours limit and filters by status', async () => {
      const five = await list('?limit=5');
      expect(five.json.data).toHaveLength(5);
      expect(five.json.has_more).toBe(true);
      const cancelled = [ids[3]!, ids[10]!];
      for (const id of cancelled)
        expect((await s.call('test', 'POST', `/payment-intents/${id}/cancel`, { key: m.keys.test_secret })).status).toBe(200);
      const c = await list('?status=cancelled');
      expect(c.status, c.text).toBe(200);
      expect(c.json.data.map((p: { id: string }) => p.id).sort()).toEqual([...cancelled].sort());
      expect(c.json.data.every((p: { status: string }) => p.status === 'cancelled')).toBe(true);
      expect(c.json.has_more).toBe(false);
      const a = await list('?status=awaiting_payment&limit=100');
      expect(a.json.data).toHaveLength(21);
      expect(a.json.data.some((p: { id: string }) => cancelled.includes(p.id))).toBe(false);
      const paid = await list('?status=paid');
      expect(paid.json.data).toEqual([]);
      expect(paid.json.has_more).toBe(false);
    });

    it('refuses a bad status, limit or cursor: 400 naming the parameter', async () => {
      expectError(await list('?status=bogus'), 400, 'parameter_invalid', 'status');
      expectError(await list('?limit=0'), 400, 'parameter_invalid', 'limit');
      expectError(await list('?limit=101'), 400, 'parameter_invalid', 'limit');
      expectError(await list('?starting_after=pi_nope'), 400, 'parameter_invalid', 'starting_after');
      expectError(await list('?colour=red'), 400, 'parameter_unknown', 'colour');
      // another merchant's intent is no cursor here
      const theirs = await createOk({ amount: '1', currency: 'USD' }, { key: other.keys.test_secret });
      expectError(await list(`?starting_after=${theirs.id}`), 400, 'parameter_invalid', 'starting_after');
    });

    it('keeps environments apart: live lists see live intents only', async () => {
      const live = await createOk({ amount: '3', currency: 'USD' }, { env: 'live', key: m.keys.live_secret! });
      const l = await list('', m.keys.live_secret!, 'live');
      expect(l.status, l.text).toBe(200);
      expect(l.json.data.map((p: { id: string }) => p.id)).toEqual([live.id]);
      expect(l.json.livemode).toBe(true);
      const t = await list('?limit=100');
      expect(t.json.data.some((p: { id: string }) => p.id === live.id)).toBe(false);
    });

    it('refuses unknown query parameters on retrieve and on the sandbox clock: 400 parameter_unknown', async () => {
      expectError(
        await s.call('test', 'GET', `/payment-intents/${ids[0]}?expand=customer`, { key: m.keys.test_secret }),
        400,
        'parameter_unknown',
        'expand',
      );
      expectError(await s.call('test', 'GET', '/sandbox/clock?tz=UTC', { key: m.keys.test_secret }), 400, 'parameter_unknown', 'tz');
    });

    it('retrieves an intent exactly as created', async () => {
      const created = await create({ amount: '42', currency: 'EUR', metadata: { k: 'v' } }, { key: m.keys.test_secret });
      const r = await s.call('test', 'GET', `/payment-intents/${created.json.id}`, { key: m.keys.test_secret });
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      expect(record(r.json)).toEqual(record(created.json));
      expect(r.json.request_id).not.toBe(created.json.request_id);
    });

    it('answers 404 resource_missing for an unknown id, another merchant and the other environment', async () => {
      for (const id of ['pi_000000000000000000000000', 'pi_nope', 'cus_123']) {
        expectError(await s.sandbox('GET', `/payment-intents/${id}`), 404, 'resource_missing', 'id');
      }
      const mine = await createOk({ amount: '1', currency: 'USD' });
      expectError(
        await s.call('test', 'GET', `/payment-intents/${mine.id}`, { key: other.keys.test_secret }),
        404,
        'resource_missing',
        'id',
      );
      expectError(await s.call('test', 'GET', `/payment-intents/${ids[0]}`), 401, 'invalid_api_key', null, {
        type: 'authentication_error',
      });
      const live = await createOk({ amount: '1', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const a = await s.sandbox('GET', `/payment-intents/${live.id}`);
      expectError(a, 404, 'resource_missing', 'id');
      const b = await s.call('live', 'GET', `/payment-intents/${mine.id}`, { key: s.merchant.keys.live_secret! });
      expectError(b, 404, 'resource_missing', 'id');
      expect(b.json.livemode).toBe(true);
    });
  });

  describe('POST /payment-intents/{id}/cancel', () => {
    it('cancels an intent awaiting payment, once: 200 then 409 intent_not_cancelable', async () => {
      const pi = await createOk({ amount: '300', currency: 'KES' });
      const t0 = Date.now();
      const r = await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      const t1 = Date.now();
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(RESPONSE_KEYS);
      expect(r.json.status).toBe('cancelled');
      expect(r.json.cancelled_at).toMatch(ISO_RE);
      const at = Date.parse(r.json.cancelled_at);
      expect(at).toBeGreaterThanOrEqual(t0 - 5);
      expect(at).toBeLessThanOrEqual(t1 + 5);
      expect({ ...record(r.json), status: 'awaiting_payment', cancelled_at: null }).toEqual(record(pi));
      const row = await h.row(pi.id);
      expect(row.status).toBe('cancelled');
      expect(Number(row.cancelled_at)).toBe(at);
      let events = await h.events(pi.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
      expect(events[1]!.payload.data).toEqual(record(r.json));
      expect(events[1]!.payload.created_at).toBe(r.json.cancelled_at);

      const again = await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      expectError(again, 409, 'intent_not_cancelable', null);
      expect(again.json.error.message).toContain('cancelled');
      events = await h.events(pi.id);
      expect(events).toHaveLength(2);
      expect((await s.sandbox('GET', `/payment-intents/${pi.id}`)).json.status).toBe('cancelled');
    });

    it('answers 404 for an unknown id and for another merchant (whose intent stays as it is)', async () => {
      expectError(await s.sandbox('POST', '/payment-intents/pi_000000000000000000000000/cancel'), 404, 'resource_missing', 'id');
      const theirs = await createOk({ amount: '1', currency: 'USD' }, { key: other.keys.test_secret });
      expectError(await s.sandbox('POST', `/payment-intents/${theirs.id}/cancel`), 404, 'resource_missing', 'id');
      expect((await h.row(theirs.id)).status).toBe('awaiting_payment');
      expect(await h.events(theirs.id)).toHaveLength(1);
    });

    it('cancels live intents with a live key', async () => {
      const live = await createOk({ amount: '20', currency: 'USD' }, { env: 'live', key: s.merchant.keys.live_secret! });
      const r = await s.call('live', 'POST', `/payment-intents/${live.id}/cancel`, { key: s.merchant.keys.live_secret! });
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('cancelled');
      expect(r.json.livemode).toBe(true);
      const events = await h.events(live.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
      expect(events.every((e) => e.environment === 'live' && e.payload.livemode === true)).toBe(true);
    });
  });
});
