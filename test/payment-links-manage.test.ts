// Managing payment links over the API: `GET /payment-links` (cursor list, `active` filter) and
// `POST /payment-links/{id}` (title, amount, cap, expiry, active, metadata; null clears), idempotent like
// every POST, scoped like the other link routes. Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { mintFromLink } from './helpers/checkout.js';

describe(`payment links: list and update (${ENGINE})`, () => {
  let s: TestServer;
  let key: string;

  beforeAll(async () => {
    s = await startTestServer();
    key = (await s.newMerchant({ name: 'Links manager' })).keys.test_secret;
  });
  afterAll(async () => s?.stop());

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    s.call('test', method, path, { key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
  async function createLink(body: Record<string, unknown>): Promise<any> {
    const r = await call('POST', '/payment-links', body);
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  describe('GET /payment-links', () => {
    it('lists newest first with cursors, paid_count per link, and filters by active', async () => {
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await createLink({ title: `L${i}`, currency: 'KES', amount: '10.00' })).id);
      await call('POST', `/payment-links/${made[1]}`, { active: false });
      const paidIntent = await mintFromLink(s, (await call('GET', `/payment-links/${made[4]}`)).json.url);
      await call('POST', `/sandbox/payment-intents/${paidIntent}/simulate`, { outcome: 'success', payment_method: 'card' });

      const first = await call('GET', '/payment-links?limit=2');
      expect(first.status, first.text).toBe(200);
      expect(first.json).toMatchObject({ object: 'list', has_more: true });
      expect(first.json.data.map((l: any) => l.id)).toEqual([made[4], made[3]]);
      expect(first.json.data[0]).toMatchObject({ object: 'payment_link', paid_count: 1, active: true, status: 'active' });
      const rest = await call('GET', `/payment-links?limit=10&starting_after=${made[3]}`);
      expect(rest.json.data.map((l: any) => l.id)).toEqual([made[2], made[1], made[0]]);
      expect(rest.json.has_more).toBe(false);
      expect(rest.json.data[1]).toMatchObject({ active: false, status: 'inactive' });

      const inactive = await call('GET', '/payment-links?active=false');
      expect(inactive.json.data.map((l: any) => l.id)).toEqual([made[1]]);
      const active = await call('GET', '/payment-links?active=true&limit=100');
      expect(active.json.data.map((l: any) => l.id)).not.toContain(made[1]);
      expect(active.json.data).toHaveLength(4);
    });

    it('refuses bad queries and a cursor of another merchant; another merchant sees none of these', async () => {
      expectError(await call('GET', '/payment-links?limit=0'), 400, 'parameter_invalid', 'limit');
      expectError(await call('GET', '/payment-links?active=yes'), 400, 'parameter_invalid', 'active');
      expectError(await call('GET', '/payment-links?colour=red'), 400, 'parameter_unknown', 'colour');
      const theirs = await s.sandbox('POST', '/payment-links', { body: { title: 'Theirs', currency: 'USD' } });
      expectError(await call('GET', `/payment-links?starting_after=${theirs.json.id}`), 400, 'parameter_invalid', 'starting_after');
      const mine = await call('GET', '/payment-links?limit=100');
      expect(mine.json.data.map((l: any) => l.id)).not.toContain(theirs.json.id);
    });
  });

  describe('POST /payment-links/{id}', () => {
    it('changes what is sent, keeps the rest, and null clears amount, cap and expiry', async () => {
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      const link = await createLink({
        title: 'Old',
        currency: 'KES',
        amount: '100.00',
        max_payments: 5,
        expires_at: expires,
        metadata: { a: 1 },
      });
      const later = new Date(Date.now() + 2 * 86_400_000).toISOString();
      const r = await call('POST', `/payment-links/${link.id}`, {
        title: ' New title ',
        amount: '150',
        max_payments: 9,
        expires_at: later,
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({
        id: link.id,
        title: 'New title',
        amount: '150.00',
        max_payments: 9,
        expires_at: later,
        status: 'active',
      });
      expect(r.json.metadata).toEqual({ a: 1 });
      expect((await call('GET', `/payment-links/${link.id}`)).json).toMatchObject({ title: 'New title', amount: '150.00' });
      // Intents minted from now on carry the new values
      const pi = await mintFromLink(s, link.url);
      expect((await call('GET', `/payment-intents/${pi}`)).json).toMatchObject({ amount: '150.00', description: 'New title' });

      const cleared = await call('POST', `/payment-links/${link.id}`, {
        amount: null,
        max_payments: null,
        expires_at: null,
        metadata: { b: [2] },
      });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.json).toMatchObject({ amount: null, max_payments: null, expires_at: null, metadata: { b: [2] } });
      // An empty body changes nothing
      const same = await call('POST', `/payment-links/${link.id}`, {});
      expect(same.status).toBe(200);
      expect(same.json.title).toBe('New title');
    });

    it('refuses bad input with the param named and writes nothing', async () => {
      const link = await createLink({ title: 'Strict', currency: 'UGX', amount: '1000' });
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ title: '' }, 'parameter_invalid', 'title'],
        [{ title: '   ' }, 'parameter_invalid', 'title'],
        [{ amount: '10.5' }, 'parameter_invalid', 'amount'],
        [{ amount: '-3' }, 'parameter_invalid', 'amount'],
        [{ amount: 5 }, 'parameter_invalid', 'amount'],
        [{ max_payments: 0 }, 'parameter_invalid', 'max_payments'],
        [{ expires_at: '2001-01-01T00:00:00Z' }, 'parameter_invalid', 'expires_at'],
        [{ expires_at: 'soon' }, 'parameter_invalid', 'expires_at'],
        [{ active: 'no' }, 'parameter_invalid', 'active'],
        [{ currency: 'KES' }, 'parameter_unknown', 'currency'],
        [{ metadata: { ['k'.repeat(41)]: 1 } }, 'parameter_invalid', `metadata.${'k'.repeat(41)}`],
      ];
      for (const [body, code, param] of cases) expectError(await call('POST', `/payment-links/${link.id}`, body), 400, code, param);
      expect((await call('GET', `/payment-links/${link.id}`)).json).toMatchObject({ title: 'Strict', amount: '1000', active: true });
      expectError(await call('POST', '/payment-links/pl_000000000000000000000000', { title: 'x' }), 404, 'resource_missing', 'id');
      const theirs = await s.sandbox('POST', '/payment-links', { body: { title: 'Theirs', currency: 'USD' } });
      expectError(await call('POST', `/payment-links/${theirs.json.id}`, { title: 'Mine now' }), 404, 'resource_missing', 'id');
    });

    it('a cap below the paid payments is refused; at it, the link is completed', async () => {
      const link = await createLink({ title: 'Capped', currency: 'KES', amount: '10.00' });
      for (let i = 0; i < 2; i++) {
        const pi = await mintFromLink(s, link.url);
        await call('POST', `/sandbox/payment-intents/${pi}/simulate`, { outcome: 'success', payment_method: 'card' });
      }
      expectError(await call('POST', `/payment-links/${link.id}`, { max_payments: 1 }), 400, 'parameter_invalid', 'max_payments');
      const at = await call('POST', `/payment-links/${link.id}`, { max_payments: 2 });
      expect(at.json).toMatchObject({ status: 'completed', paid_count: 2, max_payments: 2 });
    });

    it('is idempotent: a replay answers the first response; another body with the key conflicts', async () => {
      const link = await createLink({ title: 'Idem', currency: 'KES' });
      const headers = { 'Idempotency-Key': `upd-${link.id}` };
      const a = await call('POST', `/payment-links/${link.id}`, { title: 'First' }, headers);
      await call('POST', `/payment-links/${link.id}`, { title: 'Second' });
      const replay = await call('POST', `/payment-links/${link.id}`, { title: 'First' }, headers);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(a.text);
      expect((await call('GET', `/payment-links/${link.id}`)).json.title).toBe('Second');
      const conflict = await call('POST', `/payment-links/${link.id}`, { title: 'Third' }, headers);
      expectError(conflict, 409, 'idempotency_conflict', 'Idempotency-Key');
    });

    it('scopes: update needs payment_links:write (or its alias or checkout:write); list needs a read scope', async () => {
      const m = s.merchant.merchant.id;
      const k = async (scopes: string[]) => (await s.newKey({ merchantId: m, environment: 'test', type: 'restricted', scopes })).key;
      const link = await s.sandbox('POST', '/payment-links', { body: { title: 'Scoped', currency: 'USD' } });
      const as = (key: string, method: string, path: string, body?: unknown) =>
        s.call('test', method, path, { key, ...(body === undefined ? {} : { body }) });
      for (const scopes of [['payment_links:write'], ['payment:links:write'], ['checkout:write']]) {
        expect((await as(await k(scopes), 'POST', `/payment-links/${link.json.id}`, { title: scopes[0] })).status).toBe(200);
      }
      expectError(
        await as(await k(['payment_links:read']), 'POST', `/payment-links/${link.json.id}`, { title: 'no' }),
        403,
        'insufficient_scope',
        null,
      );
      for (const scopes of [['payment_links:read'], ['payment:links:read'], ['payments:read']]) {
        expect((await as(await k(scopes), 'GET', '/payment-links')).status).toBe(200);
      }
      expectError(await as(await k(['refunds:read']), 'GET', '/payment-links'), 403, 'insufficient_scope', null);
    });
  });
});
