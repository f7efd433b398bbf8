// Webhook endpoints: create, list, retrieve, delete and their errors, and the safety of their URLs at
// creation and at delivery.
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { isPublicAddress, publicOnlyLookup } from '../src/modules/webhooks/index.js';
import { lazySecretBox } from '../src/secrets-key.js';
import { ENGINE, startTestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { waitFor } from './helpers/wait.js';
import { SCALE, ENDPOINT_KEYS, META_KEYS, freshMerchant, serverAndReceiver } from './helpers/webhooks.js';

describe(`webhooks (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();

  const merchant = () => freshMerchant(server());

  describe('endpoints', () => {
    it('creates an endpoint: 201, a we_ id and the cwk_whsec_ secret in this response only', async () => {
      const m = await merchant();
      const r = await m.sb('POST', '/webhook_endpoints', {
        url: `${receiver().url}/hooks`,
        events: ['payment_intent.paid', 'payment_intent.paid', 'refund.created'],
      });
      expect(r.status, r.text).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual([...ENDPOINT_KEYS, ...META_KEYS, 'secret'].sort());
      expect(r.json.id).toMatch(/^we_[0-9A-Za-z]{24}$/);
      expect(r.json.secret).toMatch(/^cwk_whsec_[0-9A-Za-z]{32}$/);
      expect(r.json).toMatchObject({
        object: 'webhook_endpoint',
        url: `${receiver().url}/hooks`,
        events: ['payment_intent.paid', 'refund.created'],
        status: 'enabled',
        livemode: false,
        environment: 'test',
      });
      expect(r.json.request_id).toBe(r.headers.get('service-request-id'));

      const got = await m.sb('GET', `/webhook_endpoints/${r.json.id}`);
      expect(got.status, got.text).toBe(200);
      expect(Object.keys(got.json).sort()).toEqual([...ENDPOINT_KEYS, ...META_KEYS].sort());
      expect(got.text).not.toContain(r.json.secret);
      expect(got.json).toMatchObject({
        id: r.json.id,
        url: r.json.url,
        events: r.json.events,
        status: 'enabled',
        created_at: r.json.created_at,
      });

      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.status).toBe(200);
      expect(Object.keys(list.json).sort()).toEqual(['data', 'environment', 'livemode', 'object', 'request_id']);
      expect(list.json.data.map((e: { id: string }) => e.id)).toEqual([r.json.id]);
      expect(list.text).not.toContain(r.json.secret);
    });

    it('an empty or missing events list subscribes to every type', async () => {
      const m = await merchant();
      const a = await m.sb('POST', '/webhook_endpoints', { url: receiver().url, events: [] });
      const b = await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
      expect(a.status, a.text).toBe(201);
      expect(b.status, b.text).toBe(201);
      expect(a.json.events).toEqual([]);
      expect(b.json.events).toEqual([]);
      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.json.data.map((e: { id: string }) => e.id)).toEqual([b.json.id, a.json.id]);
    });

    it('refuses bad input with the field named, and writes nothing', async () => {
      const m = await merchant();
      expectError(
        await m.sb('POST', '/webhook_endpoints', { url: receiver().url, events: ['payment_intent.paid', 'payment_intent.exploded'] }),
        400,
        'parameter_invalid',
        'events[1]',
      );
      expectError(
        await m.sb('POST', '/webhook_endpoints', { url: receiver().url, events: 'payment_intent.paid' }),
        400,
        'parameter_invalid',
        'events',
      );
      expectError(await m.sb('POST', '/webhook_endpoints', { events: [] }), 400, 'parameter_missing', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: receiver().url, secret: 'x' }), 400, 'parameter_unknown', 'secret');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'not a url' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'ftp://127.0.0.1/x' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'http://user:pw@127.0.0.1/x' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 42 }), 400, 'parameter_invalid', 'url');
      expectError(
        await m.sb('POST', '/webhook_endpoints', { url: `https://example.com/${'a'.repeat(2100)}` }),
        400,
        'parameter_invalid',
        'url',
      );
      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.json.data).toEqual([]);
    });

    it('deletes an endpoint: {id, object, deleted}; then 404 everywhere, and other merchants cannot touch it', async () => {
      const m = await merchant();
      const other = await merchant();
      const e = await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
      expectError(await other.sb('GET', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      expectError(await other.sb('DELETE', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      // The other environment of the same merchant does not see it either.
      const live = await server().call('live', 'GET', `/webhook_endpoints/${e.json.id}`, { key: m.keys.live_secret! });
      expectError(live, 404, 'resource_missing', 'id');

      const d = await m.sb('DELETE', `/webhook_endpoints/${e.json.id}`);
      expect(d.status, d.text).toBe(200);
      expect(d.json).toMatchObject({ id: e.json.id, object: 'webhook_endpoint', deleted: true, environment: 'test', livemode: false });
      expect(Object.keys(d.json).sort()).toEqual(['deleted', 'environment', 'id', 'livemode', 'object', 'request_id']);
      expectError(await m.sb('GET', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      expectError(await m.sb('DELETE', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      expect((await m.sb('GET', '/webhook_endpoints')).json.data).toEqual([]);
      expectError(await m.sb('GET', '/webhook_endpoints/we_doesnotexist'), 404, 'resource_missing', 'id');
    });

    it('holds at most 16 endpoints per environment', async () => {
      const m = await merchant();
      for (let i = 0; i < 16; i++) expect((await m.sb('POST', '/webhook_endpoints', { url: `${receiver().url}/${i}` })).status).toBe(201);
      expectError(await m.sb('POST', '/webhook_endpoints', { url: receiver().url }), 400, 'too_many_webhook_endpoints', null);
      // The live environment has its own 16.
      const live = await server().call('live', 'POST', '/webhook_endpoints', {
        key: m.keys.live_secret!,
        body: { url: 'https://93.184.215.14/hook' },
      });
      expect(live.status, live.text).toBe(201);
      expect(live.json.livemode).toBe(true);
    });

    it('enforces scopes: webhooks:read lists, webhooks:write creates', async () => {
      const m = await merchant();
      const reader = await server().newKey({
        merchantId: m.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['webhooks:read'],
      });
      const payments = await server().newKey({
        merchantId: m.merchant.id,
        environment: 'test',
        type: 'restricted',
        scopes: ['payments:read', 'payments:write'],
      });
      const asReader = (method: string, path: string, body?: unknown) => server().call('test', method, path, { key: reader.key, body });
      expect((await asReader('GET', '/webhook_endpoints')).status).toBe(200);
      expect((await asReader('GET', '/webhook_events')).status).toBe(200);
      expectError(await asReader('POST', '/webhook_endpoints', { url: receiver().url }), 403, 'insufficient_scope', null);
      expectError(await asReader('GET', '/events'), 403, 'insufficient_scope', null);
      expectError(await asReader('POST', '/sandbox/webhooks/trigger', {}), 403, 'insufficient_scope', null);
      const asPayments = (method: string, path: string, body?: unknown) => server().call('test', method, path, { key: payments.key, body });
      expect((await asPayments('GET', '/events')).status).toBe(200);
      expect((await asPayments('POST', '/sandbox/webhooks/trigger', {})).status).toBe(200);
      expectError(await asPayments('GET', '/webhook_endpoints'), 403, 'insufficient_scope', null);
    });
  });

  describe('URL safety', () => {
    const live = (m: CreatedMerchant, body: unknown) =>
      server().call('live', 'POST', '/webhook_endpoints', { key: m.keys.live_secret!, body });

    it('live endpoints must be https and public: private, loopback, link-local and reserved addresses are refused', async () => {
      const m = await merchant();
      const refused = [
        'http://93.184.215.14/hook',
        'https://127.0.0.1/hook',
        'https://10.1.2.3/hook',
        'https://172.16.0.1/hook',
        'https://192.168.1.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://100.64.0.1/hook',
        'https://0.0.0.0/hook',
        'https://[::1]/hook',
        'https://[::ffff:127.0.0.1]/hook',
        'https://[fd00::1]/hook',
        'https://[fe80::1]/hook',
        'https://224.0.0.1/hook',
      ];
      for (const url of refused) {
        const r = await live(m, { url });
        expect(r.status, `${url}: ${r.text}`).toBe(400);
        expect(r.json.error.code).toBe('parameter_invalid');
        expect(r.json.error.param).toBe('url');
      }
      const ok = await live(m, { url: 'https://93.184.215.14/hook' });
      expect(ok.status, ok.text).toBe(201);
      expect((await server().call('live', 'GET', '/webhook_endpoints', { key: m.keys.live_secret! })).json.data).toHaveLength(1);
    });

    it('a live hostname that resolves to 127.0.0.1 is refused at creation; one that does not resolve too', async () => {
      const m = await merchant();
      const r = await live(m, { url: `https://localhost:${receiver().port}/hook` });
      expectError(r, 400, 'parameter_invalid', 'url');
      expect(r.json.error.message).toMatch(/127\.0\.0\.1|::1/);
      expect(r.json.error.message).toMatch(/not a public address/);
      const nx = await live(m, { url: 'https://no-such-host.invalid/hook' });
      expectError(nx, 400, 'parameter_invalid', 'url');
      expect(nx.json.error.message).toMatch(/does not resolve/);
    });

    it('COWRIE_ALLOW_PRIVATE_WEBHOOKS=1 relaxes sandbox only; without it the sandbox follows the live rules', async () => {
      const m = await merchant();
      expect((await m.sb('POST', '/webhook_endpoints', { url: `http://127.0.0.1:${receiver().port}/x` })).status).toBe(201);
      expect((await m.sb('POST', '/webhook_endpoints', { url: `http://localhost:${receiver().port}/x` })).status).toBe(201);
      expectError(await live(m, { url: `http://127.0.0.1:${receiver().port}/x` }), 400, 'parameter_invalid', 'url');

      const strict = await startTestServer({ env: { COWRIE_WEBHOOK_BACKOFF_SCALE: String(SCALE) } });
      try {
        const sb = (body: unknown) => strict.sandbox('POST', '/webhook_endpoints', { body });
        expectError(await sb({ url: `http://127.0.0.1:${receiver().port}/x` }), 400, 'parameter_invalid', 'url');
        expectError(await sb({ url: `https://127.0.0.1:${receiver().port}/x` }), 400, 'parameter_invalid', 'url');
        expectError(await sb({ url: `https://localhost:${receiver().port}/x` }), 400, 'parameter_invalid', 'url');
        expect((await sb({ url: 'https://93.184.215.14/hook' })).status).toBe(201);
      } finally {
        await strict.stop();
      }
    });

    it('checks again at delivery: a live host that now resolves to 127.0.0.1 (DNS rebinding) is never connected to', async () => {
      const m = await merchant();
      // A TCP listener that counts connections: nothing may reach it.
      let connections = 0;
      const tcp: TcpServer = createTcpServer((sock) => {
        connections++;
        sock.destroy();
      });
      await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
      const port = (tcp.address() as AddressInfo).port;
      try {
        // Endpoints as creation left them when their hosts still resolved publicly.
        const now = Date.now();
        for (const [id, url] of [
          ['we_rebound0000000000000001', `https://localhost:${port}/hook`],
          ['we_rebound0000000000000002', `https://127.0.0.1:${port}/hook`],
        ] as const) {
          await server()
            .running.database.db.insertInto('webhook_endpoints')
            .values({
              id,
              merchant_id: m.merchant.id,
              environment: 'live',
              url,
              events: '[]',
              // Sealed as the server stores secrets, with the keys of its configuration.
              secret: lazySecretBox(server().config).seal('cwk_whsec_x', id),
              status: 'enabled',
              disabled_reason: null,
              created_at: now,
              updated_at: now,
              deleted_at: null,
            })
            .execute();
        }
        const pi = await server().call('live', 'POST', '/payment-intents', {
          key: m.keys.live_secret!,
          body: { amount: '10.00', currency: 'USD' },
        });
        expect(pi.status, pi.text).toBe(201);
        const events = await server().call('live', 'GET', '/webhook_events', { key: m.keys.live_secret! });
        const evt = events.json.data[0].id as string;
        const detail = await waitFor(
          'a failed attempt to each endpoint',
          () => server().call('live', 'GET', `/webhook_events/${evt}`, { key: m.keys.live_secret! }),
          (x) => {
            const attempts = x.json.deliveries.flatMap((d: { attempts: unknown[] }) => d.attempts);
            return attempts.length >= 2 && attempts.every((a: { outcome: string }) => a.outcome === 'failed');
          },
        );
        const deliveries = detail.json.deliveries as Array<{
          url: string;
          attempts: Array<{ outcome: string; error: string; status_code: number | null }>;
        }>;
        expect(deliveries).toHaveLength(2);
        for (const d of deliveries) {
          expect(d.attempts[0]!.outcome, JSON.stringify(d)).toBe('failed');
          expect(d.attempts[0]!.status_code).toBeNull();
          expect(d.attempts[0]!.error).toMatch(/not allowed.*(not a public address|127\.0\.0\.1)/);
        }
        expect(connections).toBe(0);
      } finally {
        await new Promise<void>((r) => tcp.close(() => r()));
      }
    });

    it('classifies addresses with ipaddr.js, and the connection lookup refuses any private answer', async () => {
      for (const a of ['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
      for (const a of [
        '127.0.0.1',
        '10.0.0.1',
        '169.254.169.254',
        '::1',
        '::ffff:10.0.0.1',
        'fc00::1',
        '100.64.1.1',
        '192.0.2.1',
        'not-an-ip',
      ]) {
        expect(isPublicAddress(a), a).toBe(false);
      }
      const fake = (answers: string[]) => (_h: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(
          null,
          answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
      const run = (answers: string[], all: boolean) =>
        new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
          publicOnlyLookup(fake(answers) as never)('hooks.example', { all }, (err, address) => resolve({ err, address })),
        );
      expect((await run(['8.8.8.8'], false)).address).toBe('8.8.8.8');
      expect((await run(['8.8.8.8', '1.1.1.1'], true)).address).toEqual([
        { address: '8.8.8.8', family: 4 },
        { address: '1.1.1.1', family: 4 },
      ]);
      const mixed = await run(['8.8.8.8', '127.0.0.1'], false);
      expect(mixed.err?.code).toBe('EADDRNOTPUBLIC');
      expect(mixed.err?.message).toContain('127.0.0.1');
      expect((await run(['169.254.169.254'], true)).err?.code).toBe('EADDRNOTPUBLIC');
    });
  });
});
