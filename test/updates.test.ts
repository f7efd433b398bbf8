// Updating stored records: `POST /customers/{id}` (null clears a field, metadata is replaced),
// `POST /webhook_endpoints/{id}` (url checked as on creation, events; deliveries follow the new
// url), and an intent naming a stored customer (`customer: "cus_…"`). Each idempotent like every POST.
// Runs on SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { freshMerchant, paidIntent, serverAndReceiver } from './helpers/webhooks.js';

describe(`updates (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();

  describe('POST /customers/{id}', () => {
    it('changes what is sent, keeps the rest; null clears; metadata is replaced whole', async () => {
      const m = await freshMerchant(server());
      const c = await m.sb('POST', '/customers', {
        email: 'a@example.com',
        phone: '+254712345678',
        name: 'Amina',
        metadata: { tier: 'gold' },
      });
      expect(c.status, c.text).toBe(201);
      const r = await m.sb('POST', `/customers/${c.json.id}`, { name: 'Amina W.', phone: null, metadata: { visits: [1, 2] } });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({ id: c.json.id, email: 'a@example.com', phone: null, name: 'Amina W.', metadata: { visits: [1, 2] } });
      expect(r.json.created_at).toBe(c.json.created_at);
      const got = await m.sb('GET', `/customers/${c.json.id}`);
      expect(got.text).toContain('"metadata":{"visits":[1,2]}');
      expect(got.json).toMatchObject({ phone: null, name: 'Amina W.' });
    });

    it('refuses bad input, unknown ids and other merchants’ customers, writing nothing', async () => {
      const m = await freshMerchant(server());
      const other = await freshMerchant(server());
      const c = await m.sb('POST', '/customers', { email: 'b@example.com' });
      for (const [body, code, param] of [
        [{ email: 'not-an-email' }, 'parameter_invalid', 'email'],
        [{ phone: 'call me' }, 'parameter_invalid', 'phone'],
        [{ name: 'x'.repeat(257) }, 'parameter_invalid', 'name'],
        [{ metadata: null }, 'parameter_invalid', 'metadata'],
        [{ id: 'cus_x' }, 'parameter_unknown', 'id'],
      ] as const) {
        expectError(await m.sb('POST', `/customers/${c.json.id}`, body), 400, code, param);
      }
      expect((await m.sb('GET', `/customers/${c.json.id}`)).json.email).toBe('b@example.com');
      expectError(await m.sb('POST', '/customers/cus_000000000000000000000000', { name: 'x' }), 404, 'resource_missing', 'id');
      expectError(await other.sb('POST', `/customers/${c.json.id}`, { name: 'x' }), 404, 'resource_missing', 'id');
    });

    it('is idempotent under one Idempotency-Key', async () => {
      const m = await freshMerchant(server());
      const c = await m.sb('POST', '/customers', { name: 'Idem' });
      const headers = { 'Idempotency-Key': `cu-${c.json.id}` };
      const a = await server().call('test', 'POST', `/customers/${c.json.id}`, { key: m.keys.test_secret, body: { name: 'One' }, headers });
      const b = await server().call('test', 'POST', `/customers/${c.json.id}`, { key: m.keys.test_secret, body: { name: 'One' }, headers });
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.text).toBe(a.text);
    });
  });

  describe('POST /webhook_endpoints/{id}', () => {
    it('changes url and events; deliveries go to the new url with the same secret', async () => {
      const m = await freshMerchant(server());
      const created = await m.sb('POST', '/webhook_endpoints', { url: `${receiver().url}/old`, events: ['refund.created'] });
      expect(created.status, created.text).toBe(201);
      const r = await m.sb('POST', `/webhook_endpoints/${created.json.id}`, {
        url: `${receiver().url}/new`,
        events: ['payment_intent.paid'],
      });
      expect(r.status, r.text).toBe(200);
      expect(r.json).toMatchObject({
        id: created.json.id,
        url: `${receiver().url}/new`,
        events: ['payment_intent.paid'],
        status: 'enabled',
      });
      expect(r.json.secret).toBeUndefined();
      const pi = await paidIntent(m.sb);
      const got = await receiver().waitFor(
        (list) => list.some((x) => x.path === '/new' && x.body.includes(pi)),
        10_000,
        'delivery to the new url',
      );
      const delivered = got.filter((x) => x.body.includes(pi));
      expect(delivered.every((x) => x.path === '/new')).toBe(true);
      expect(delivered.map((x) => JSON.parse(x.body).type)).toEqual(['payment_intent.paid']);
      // Empty events means every type again
      const all = await m.sb('POST', `/webhook_endpoints/${created.json.id}`, { events: [] });
      expect(all.json.events).toEqual([]);
    });

    it('refuses a bad url or event, an unknown or deleted endpoint, writing nothing', async () => {
      const m = await freshMerchant(server());
      const e = await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
      expectError(await m.sb('POST', `/webhook_endpoints/${e.json.id}`, { url: 'ftp://example.com/x' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', `/webhook_endpoints/${e.json.id}`, { events: ['nope'] }), 400, 'parameter_invalid', 'events[0]');
      expectError(await m.sb('POST', `/webhook_endpoints/${e.json.id}`, { secret: 'x' }), 400, 'parameter_unknown', 'secret');
      expect((await m.sb('GET', `/webhook_endpoints/${e.json.id}`)).json.url).toBe(receiver().url);
      // A refused http URL names the variable that allows local receivers in the sandbox.
      const live = await server().call('live', 'POST', '/webhook_endpoints', {
        key: m.keys.live_secret!,
        body: { url: 'http://example.com/hook' },
      });
      expectError(live, 400, 'parameter_invalid', 'url');
      expect(live.json.error.message).toContain('COWRIE_ALLOW_PRIVATE_WEBHOOKS=1');
      expect((await m.sb('DELETE', `/webhook_endpoints/${e.json.id}`)).status).toBe(200);
      expectError(await m.sb('POST', `/webhook_endpoints/${e.json.id}`, { url: receiver().url }), 404, 'resource_missing', 'id');
    });
  });

  describe('an intent naming a stored customer', () => {
    it('carries the customer’s id, email and phone', async () => {
      const m = await freshMerchant(server());
      const c = await m.sb('POST', '/customers', { email: 'c@example.com', phone: '+254711111111', name: 'Chege' });
      const pi = await m.sb('POST', '/payment-intents', { amount: '100.00', currency: 'KES', customer: c.json.id });
      expect(pi.status, pi.text).toBe(201);
      expect(pi.json.customer).toEqual({ id: c.json.id, email: 'c@example.com', phone: '+254711111111' });
      expect((await m.sb('GET', `/payment-intents/${pi.json.id}`)).json.customer).toEqual(pi.json.customer);
      // Inline customers keep their shape
      const inline = await m.sb('POST', '/payment-intents', { amount: '100.00', currency: 'KES', customer: { email: 'd@example.com' } });
      expect(inline.json.customer).toEqual({ email: 'd@example.com' });
    });

    it('refuses an unknown id, another merchant’s customer, a malformed id, and a bad inline email', async () => {
      const m = await freshMerchant(server());
      const other = await freshMerchant(server());
      const theirs = await other.sb('POST', '/customers', { email: 'e@example.com' });
      const body = (customer: unknown) => ({ amount: '100.00', currency: 'KES', customer });
      const r1 = await m.sb('POST', '/payment-intents', body('cus_000000000000000000000000'));
      expectError(r1, 400, 'parameter_invalid', 'customer');
      expect(r1.json.error.message).toContain('no customer');
      expectError(await m.sb('POST', '/payment-intents', body(theirs.json.id)), 400, 'parameter_invalid', 'customer');
      const r3 = await m.sb('POST', '/payment-intents', body('bob'));
      expectError(r3, 400, 'parameter_invalid', 'customer');
      expect(r3.json.error.message).toContain('customer id');
      const r4 = await m.sb('POST', '/payment-intents', body({ email: 'nope' }));
      expectError(r4, 400, 'parameter_invalid', 'customer.email');
      expectError(await m.sb('POST', '/payment-intents', body(42)), 400, 'parameter_invalid', 'customer');
      const count = await server()
        .running.database.db.selectFrom('payment_intents')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_id', '=', m.merchant.id)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    });
  });
});
