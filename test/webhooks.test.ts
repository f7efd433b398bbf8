// Webhooks (spec 2.6, 4.7, 6; DECISIONS "Webhooks and events"): endpoint CRUD and its errors, URL safety
// at creation and at delivery, signed deliveries to a real local receiver (verified with crypto alone and
// with the Standard Webhooks library), the retry ladder, Retry-After, 410, redirects, timeouts,
// inspection, resend and the sandbox trigger.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../src/modules/merchants/index.js';
import { isPublicAddress, publicOnlyLookup, retryDelayMs, RETRY_WAITS_MS } from '../src/modules/webhooks/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

const SCALE = 0.00005;
const WEBHOOK_ENV = {
  COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
  COWRIE_WEBHOOK_BACKOFF_SCALE: String(SCALE),
  COWRIE_WEBHOOK_TIMEOUT_MS: '1500',
  COWRIE_WEBHOOK_LEASE_MS: '4000',
};
const ENDPOINT_KEYS = ['created_at', 'events', 'id', 'livemode', 'object', 'status', 'url'];
const META_KEYS = ['environment', 'request_id'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The receiver-side check of section 6.2, with node:crypto alone. */
function verifyServiceSignature(secret: string, headers: Record<string, unknown>, rawBody: string, toleranceS = 300): boolean {
  const timestamp = String(headers['service-timestamp']);
  const signature = String(headers['service-signature']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(signature, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

describe(`webhooks (${ENGINE})`, () => {
  let s: TestServer;
  let rx: Receiver;

  beforeAll(async () => {
    s = await startTestServer({ env: WEBHOOK_ENV });
    rx = await startReceiver();
  });
  afterAll(async () => {
    await s?.stop();
    await rx?.close();
  });

  /** A fresh merchant, so each test sees only its own endpoints and events. */
  async function merchant(): Promise<CreatedMerchant & { sb: (m: string, p: string, body?: unknown) => Promise<ApiResponse> }> {
    const m = await s.newMerchant({ verified: true });
    return { ...m, sb: (method, path, body) => s.call('test', method, path, { key: m.keys.test_secret, body }) };
  }

  function expectError(r: ApiResponse, status: number, code: string, param: string | null): void {
    expect(r.status, r.text).toBe(status);
    expect(r.json?.error?.code, r.text).toBe(code);
    expect(r.json.error.param, r.text).toBe(param);
    expect(r.json.error.request_id).toBe(r.headers.get('service-request-id'));
  }

  async function paidIntent(sb: (m: string, p: string, body?: unknown) => Promise<ApiResponse>): Promise<string> {
    const pi = await sb('POST', '/payment-intents', { amount: '1500.00', currency: 'KES', merchant_reference: 'order-42' });
    expect(pi.status, pi.text).toBe(201);
    const paid = await sb('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, { outcome: 'success', payment_method: 'mpesa' });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json.status).toBe('paid');
    return pi.json.id as string;
  }

  const receivedFor = (r: Receiver, eventId: string) => r.received.filter((x) => x.headers['service-event-id'] === eventId);

  describe('endpoints', () => {
    it('creates an endpoint: 201, a we_ id and the cwk_whsec_ secret in this response only', async () => {
      const m = await merchant();
      const r = await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}/hooks`, events: ['payment_intent.paid', 'payment_intent.paid', 'refund.created'] });
      expect(r.status, r.text).toBe(201);
      expect(Object.keys(r.json).sort()).toEqual([...ENDPOINT_KEYS, ...META_KEYS, 'secret'].sort());
      expect(r.json.id).toMatch(/^we_[0-9A-Za-z]{24}$/);
      expect(r.json.secret).toMatch(/^cwk_whsec_[0-9A-Za-z]{32}$/);
      expect(r.json).toMatchObject({
        object: 'webhook_endpoint',
        url: `${rx.url}/hooks`,
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
      expect(got.json).toMatchObject({ id: r.json.id, url: r.json.url, events: r.json.events, status: 'enabled', created_at: r.json.created_at });

      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.status).toBe(200);
      expect(Object.keys(list.json).sort()).toEqual(['data', 'environment', 'livemode', 'object', 'request_id']);
      expect(list.json.data.map((e: { id: string }) => e.id)).toEqual([r.json.id]);
      expect(list.text).not.toContain(r.json.secret);
    });

    it('an empty or missing events list subscribes to every type', async () => {
      const m = await merchant();
      const a = await m.sb('POST', '/webhook_endpoints', { url: rx.url, events: [] });
      const b = await m.sb('POST', '/webhook_endpoints', { url: rx.url });
      expect(a.status, a.text).toBe(201);
      expect(b.status, b.text).toBe(201);
      expect(a.json.events).toEqual([]);
      expect(b.json.events).toEqual([]);
      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.json.data.map((e: { id: string }) => e.id)).toEqual([b.json.id, a.json.id]);
    });

    it('refuses bad input with the field named, and writes nothing', async () => {
      const m = await merchant();
      expectError(await m.sb('POST', '/webhook_endpoints', { url: rx.url, events: ['payment_intent.paid', 'payment_intent.exploded'] }), 400, 'parameter_invalid', 'events[1]');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: rx.url, events: 'payment_intent.paid' }), 400, 'parameter_invalid', 'events');
      expectError(await m.sb('POST', '/webhook_endpoints', { events: [] }), 400, 'parameter_missing', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: rx.url, secret: 'x' }), 400, 'parameter_unknown', 'secret');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'not a url' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'ftp://127.0.0.1/x' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 'http://user:pw@127.0.0.1/x' }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: 42 }), 400, 'parameter_invalid', 'url');
      expectError(await m.sb('POST', '/webhook_endpoints', { url: `https://example.com/${'a'.repeat(2100)}` }), 400, 'parameter_invalid', 'url');
      const list = await m.sb('GET', '/webhook_endpoints');
      expect(list.json.data).toEqual([]);
    });

    it('deletes an endpoint: {id, object, deleted}; then 404 everywhere, and other merchants cannot touch it', async () => {
      const m = await merchant();
      const other = await merchant();
      const e = await m.sb('POST', '/webhook_endpoints', { url: rx.url });
      expectError(await other.sb('GET', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      expectError(await other.sb('DELETE', `/webhook_endpoints/${e.json.id}`), 404, 'resource_missing', 'id');
      // The other environment of the same merchant does not see it either.
      const live = await s.call('live', 'GET', `/webhook_endpoints/${e.json.id}`, { key: m.keys.live_secret! });
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
      for (let i = 0; i < 16; i++) expect((await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}/${i}` })).status).toBe(201);
      expectError(await m.sb('POST', '/webhook_endpoints', { url: rx.url }), 400, 'too_many_webhook_endpoints', null);
      // The live environment has its own 16.
      const live = await s.call('live', 'POST', '/webhook_endpoints', { key: m.keys.live_secret!, body: { url: 'https://93.184.215.14/hook' } });
      expect(live.status, live.text).toBe(201);
      expect(live.json.livemode).toBe(true);
    });

    it('enforces scopes: webhooks:read lists, webhooks:write creates', async () => {
      const m = await merchant();
      const reader = await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'restricted', scopes: ['webhooks:read'] });
      const payments = await s.newKey({ merchantId: m.merchant.id, environment: 'test', type: 'restricted', scopes: ['payments:read', 'payments:write'] });
      const asReader = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key: reader.key, body });
      expect((await asReader('GET', '/webhook_endpoints')).status).toBe(200);
      expect((await asReader('GET', '/webhook_events')).status).toBe(200);
      expectError(await asReader('POST', '/webhook_endpoints', { url: rx.url }), 403, 'insufficient_scope', null);
      expectError(await asReader('GET', '/events'), 403, 'insufficient_scope', null);
      expectError(await asReader('POST', '/sandbox/webhooks/trigger', {}), 403, 'insufficient_scope', null);
      const asPayments = (method: string, path: string, body?: unknown) => s.call('test', method, path, { key: payments.key, body });
      expect((await asPayments('GET', '/events')).status).toBe(200);
      expect((await asPayments('POST', '/sandbox/webhooks/trigger', {})).status).toBe(200);
      expectError(await asPayments('GET', '/webhook_endpoints'), 403, 'insufficient_scope', null);
    });
  });

  describe('URL safety', () => {
    const live = (m: CreatedMerchant, body: unknown) => s.call('live', 'POST', '/webhook_endpoints', { key: m.keys.live_secret!, body });

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
      expect((await s.call('live', 'GET', '/webhook_endpoints', { key: m.keys.live_secret! })).json.data).toHaveLength(1);
    });

    it('a live hostname that resolves to 127.0.0.1 is refused at creation; one that does not resolve too', async () => {
      const m = await merchant();
      const r = await live(m, { url: `https://localhost:${rx.port}/hook` });
      expectError(r, 400, 'parameter_invalid', 'url');
      expect(r.json.error.message).toMatch(/127\.0\.0\.1|::1/);
      expect(r.json.error.message).toMatch(/not a public address/);
      const nx = await live(m, { url: 'https://no-such-host.invalid/hook' });
      expectError(nx, 400, 'parameter_invalid', 'url');
      expect(nx.json.error.message).toMatch(/does not resolve/);
    });

    it('COWRIE_ALLOW_PRIVATE_WEBHOOKS=1 relaxes sandbox only; without it the sandbox follows the live rules', async () => {
      const m = await merchant();
      expect((await m.sb('POST', '/webhook_endpoints', { url: `http://127.0.0.1:${rx.port}/x` })).status).toBe(201);
      expect((await m.sb('POST', '/webhook_endpoints', { url: `http://localhost:${rx.port}/x` })).status).toBe(201);
      expectError(await live(m, { url: `http://127.0.0.1:${rx.port}/x` }), 400, 'parameter_invalid', 'url');

      const strict = await startTestServer({ env: { COWRIE_WEBHOOK_BACKOFF_SCALE: String(SCALE) } });
      try {
        const sb = (body: unknown) => strict.sandbox('POST', '/webhook_endpoints', { body });
        expectError(await sb({ url: `http://127.0.0.1:${rx.port}/x` }), 400, 'parameter_invalid', 'url');
        expectError(await sb({ url: `https://127.0.0.1:${rx.port}/x` }), 400, 'parameter_invalid', 'url');
        expectError(await sb({ url: `https://localhost:${rx.port}/x` }), 400, 'parameter_invalid', 'url');
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
          await s.running.database.db
            .insertInto('webhook_endpoints')
            .values({ id, merchant_id: m.merchant.id, environment: 'live', url, events: '[]', secret: 'cwk_whsec_x', status: 'enabled', disabled_reason: null, created_at: now, updated_at: now, deleted_at: null })
            .execute();
        }
        const pi = await s.call('live', 'POST', '/payment-intents', { key: m.keys.live_secret!, body: { amount: '10.00', currency: 'USD' } });
        expect(pi.status, pi.text).toBe(201);
        const events = await s.call('live', 'GET', '/webhook_events', { key: m.keys.live_secret! });
        const evt = events.json.data[0].id as string;
        let detail: ApiResponse | null = null;
        for (let i = 0; i < 100; i++) {
          detail = await s.call('live', 'GET', `/webhook_events/${evt}`, { key: m.keys.live_secret! });
          const attempts = detail.json.deliveries.flatMap((d: { attempts: unknown[] }) => d.attempts);
          if (attempts.length >= 2 && attempts.every((a: { outcome: string }) => a.outcome === 'failed')) break;
          await sleep(50);
        }
        const deliveries = detail!.json.deliveries as Array<{ url: string; attempts: Array<{ outcome: string; error: string; status_code: number | null }> }>;
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
      for (const a of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', '::ffff:10.0.0.1', 'fc00::1', '100.64.1.1', '192.0.2.1', 'not-an-ip']) {
        expect(isPublicAddress(a), a).toBe(false);
      }
      const fake = (answers: string[]) => (_h: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(null, answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
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

  describe('delivery', () => {
    it('delivers payment_intent.paid, signed; crypto alone and the Standard Webhooks library both verify it', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/paid`, events: ['payment_intent.paid'] });
        const secret = e.json.secret as string;
        const before = Math.floor(Date.now() / 1000);
        const piId = await paidIntent(m.sb);
        const [got] = await r.waitFor((x) => x.length >= 1);
        await sleep(100);
        expect(r.received).toHaveLength(1);
        const h = got!.headers;
        const body = JSON.parse(got!.body);
        expect(got!.path).toBe('/paid');
        expect(h['content-type']).toBe('application/json');
        expect(body).toMatchObject({
          object: 'event',
          type: 'payment_intent.paid',
          api_version: '2026-06-01',
          livemode: false,
          data: { id: piId, object: 'payment_intent', status: 'paid', amount: '1500.00', currency: 'KES', payment_method: 'mpesa', settlement_currency: 'USDT', merchant_reference: 'order-42' },
        });
        expect(body.id).toMatch(/^evt_/);
        expect(h['service-event-id']).toBe(body.id);
        expect(h['webhook-id']).toBe(body.id);
        expect(Number(h['service-timestamp'])).toBeGreaterThanOrEqual(before);
        expect(Number(h['service-timestamp'])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
        expect(h['webhook-timestamp']).toBe(h['service-timestamp']);
        expect(h['service-signature']).toMatch(/^[0-9a-f]{64}$/);
        expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

        // The README's few lines of crypto.
        expect(verifyServiceSignature(secret, h, got!.body)).toBe(true);
        expect(verifyServiceSignature(secret, h, got!.body.replace('1500.00', '1.00'))).toBe(false);
        expect(verifyServiceSignature(`${secret}x`, h, got!.body)).toBe(false);

        // Standard Webhooks: the raw key format, and the usual whsec_<base64> form of the same bytes.
        const swHeaders = { 'webhook-id': String(h['webhook-id']), 'webhook-timestamp': String(h['webhook-timestamp']), 'webhook-signature': String(h['webhook-signature']) };
        expect(new Webhook(secret, { format: 'raw' }).verify(got!.body, swHeaders)).toMatchObject({ id: body.id });
        expect(new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`).verify(got!.body, swHeaders)).toMatchObject({ id: body.id });
        expect(() => new Webhook(secret, { format: 'raw' }).verify(got!.body.replace('paid', 'pa1d'), swHeaders)).toThrow();
        expect(() => new Webhook('cwk_whsec_wrongwrongwrong', { format: 'raw' }).verify(got!.body, swHeaders)).toThrow();

        // The body is the event exactly as the feed and the inspection endpoint show it.
        let feed = await m.sb('GET', '/events?type=payment_intent.paid');
        for (let i = 0; i < 200 && feed.json.data.length === 0; i++) feed = await m.sb('GET', '/events?type=payment_intent.paid');
        expect(feed.json.data[0]).toEqual(body);
        const insp = await m.sb('GET', `/webhook_events/${body.id}`);
        expect(insp.status, insp.text).toBe(200);
        expect(insp.json).toMatchObject({ id: body.id, object: 'webhook_event', type: 'payment_intent.paid', data: body.data, created_at: body.created_at });
        expect(insp.json.deliveries).toHaveLength(1);
        const d = insp.json.deliveries[0];
        expect(d).toMatchObject({ object: 'webhook_delivery', endpoint: e.json.id, url: `${r.url}/paid`, status: 'succeeded', attempt_count: 1, last_status_code: 200, next_attempt_at: null });
        expect(d.id).toMatch(/^whd_/);
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0]).toMatchObject({ object: 'webhook_attempt', attempt: 1, outcome: 'succeeded', status_code: 200, error: null, url: `${r.url}/paid` });
        expect(d.attempts[0].id).toMatch(/^wha_/);
        expect(typeof d.attempts[0].duration_ms).toBe('number');
        expect(Date.parse(d.attempts[0].finished_at)).toBeGreaterThanOrEqual(Date.parse(d.attempts[0].started_at));
      } finally {
        await r.close();
      }
    });

    it('writes one delivery per subscribed endpoint with the event; unsubscribed and other merchants get none', async () => {
      const m = await merchant();
      const other = await merchant();
      const all = await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}/all` });
      const paidOnly = await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}/paid`, events: ['payment_intent.paid'] });
      const refundsOnly = await m.sb('POST', '/webhook_endpoints', { url: `${rx.url}/refunds`, events: ['refund.created'] });
      await other.sb('POST', '/webhook_endpoints', { url: `${rx.url}/other` });
      await paidIntent(m.sb);
      const db = s.running.database.db;
      const events = await db.selectFrom('events').select(['id', 'type']).where('merchant_id', '=', m.merchant.id).execute();
      expect(events.map((e) => e.type).sort()).toEqual(['payment_intent.confirming', 'payment_intent.created', 'payment_intent.paid']);
      const deliveries = await db.selectFrom('webhook_deliveries').select(['event_id', 'endpoint_id']).where('merchant_id', '=', m.merchant.id).execute();
      const byType = (t: string) =>
        deliveries.filter((d) => d.event_id === events.find((e) => e.type === t)!.id).map((d) => d.endpoint_id).sort();
      expect(byType('payment_intent.created')).toEqual([all.json.id]);
      expect(byType('payment_intent.paid')).toEqual([all.json.id, paidOnly.json.id].sort());
      expect(deliveries.some((d) => d.endpoint_id === refundsOnly.json.id)).toBe(false);
      const otherDeliveries = await db.selectFrom('webhook_deliveries').select('id').where('merchant_id', '=', other.merchant.id).execute();
      expect(otherDeliveries).toHaveLength(0);
    });

    it('starts the first attempt within 100 ms of the commit', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.created'] });
        const delays: number[] = [];
        for (let i = 0; i < 7; i++) {
          const res = await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
          // The transaction committed before the response left: time from the response to the arrival bounds
          // the commit-to-attempt delay from above (an arrival before the response counts as 0).
          const answered = performance.now();
          const [got] = (await r.waitFor((x) => x.some((y) => JSON.parse(y.body).data.id === res.json.id))).filter((y) => JSON.parse(y.body).data.id === res.json.id);
          delays.push(Math.max(0, got!.at - answered));
        }
        delays.sort((a, b) => a - b);
        expect(delays[3], `delays ${delays.map((d) => d.toFixed(1)).join(', ')} ms`).toBeLessThan(100);
      } finally {
        await r.close();
      }
    });

    it('follows the ladder on failures, with the same event id and body each time, and stops at the first success', async () => {
      const m = await merchant();
      const r = await startReceiver((_req, i) => ({ status: i < 4 ? 500 : 200 }));
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.created'] });
        await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        const got = await r.waitFor((x) => x.length >= 5, 10_000);
        await sleep(600);
        expect(r.received).toHaveLength(5);
        expect(new Set(got.map((x) => x.headers['service-event-id'])).size).toBe(1);
        expect(new Set(got.map((x) => x.body)).size).toBe(1);
        for (let k = 1; k < 5; k++) {
          const gap = got[k]!.at - got[k - 1]!.at;
          const wait = RETRY_WAITS_MS[k - 1]! * SCALE;
          expect(gap, `gap after attempt ${k}`).toBeGreaterThanOrEqual(wait * 0.8 - 2);
          expect(gap, `gap after attempt ${k}`).toBeLessThan(wait * 1.2 + 250);
        }
        const evt = String(got[0]!.headers['service-event-id']);
        const insp = await m.sb('GET', `/webhook_events/${evt}`);
        const d = insp.json.deliveries[0];
        expect(d).toMatchObject({ status: 'succeeded', attempt_count: 5, last_status_code: 200, next_attempt_at: null });
        expect(d.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
        expect(d.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
        expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500, 200]);
      } finally {
        await r.close();
      }
    });

    it('gives up after 8 attempts: the delivery is failed and nothing more is sent', async () => {
      const m = await merchant();
      const r = await startReceiver(() => ({ status: 503 }));
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.created'] });
        await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        const got = await r.waitFor((x) => x.length >= 8, 15_000);
        const evt = String(got[0]!.headers['service-event-id']);
        let d: any;
        for (let i = 0; i < 50; i++) {
          d = (await m.sb('GET', `/webhook_events/${evt}`)).json.deliveries[0];
          if (d.status !== 'pending') break;
          await sleep(50);
        }
        expect(d).toMatchObject({ status: 'failed', attempt_count: 8, last_status_code: 503, next_attempt_at: null });
        expect(d.attempts).toHaveLength(8);
        // The longest waits of this scale are 1.8 s: the gap after attempt 6 shows it, jittered ±20 %.
        const gap6 = got[6]!.at - got[5]!.at;
        expect(gap6).toBeGreaterThanOrEqual(RETRY_WAITS_MS[5] * SCALE * 0.8 - 2);
        expect(gap6).toBeLessThan(RETRY_WAITS_MS[5] * SCALE * 1.2 + 250);
        await sleep(RETRY_WAITS_MS[6] * SCALE * 1.3);
        expect(r.received).toHaveLength(8);
      } finally {
        await r.close();
      }
    });

    it('jitters each wait by up to ±20 % and scales the ladder', () => {
      expect(RETRY_WAITS_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
      expect(retryDelayMs(1, 1, null, () => 0)).toBe(4_000);
      expect(retryDelayMs(1, 1, null, () => 1)).toBe(6_000);
      expect(retryDelayMs(2, 1, null, () => 0.5)).toBe(300_000);
      expect(retryDelayMs(7, 0.5, null, () => 0.5)).toBe(18_000_000);
      expect(retryDelayMs(8, 1)).toBeNull();
      const samples = Array.from({ length: 500 }, () => retryDelayMs(3, 1)!);
      expect(Math.min(...samples)).toBeGreaterThanOrEqual(1_440_000);
      expect(Math.max(...samples)).toBeLessThanOrEqual(2_160_000);
      expect(new Set(samples).size).toBeGreaterThan(100);
      // Retry-After lengthens a wait, up to the ladder's longest step, and never shortens one.
      expect(retryDelayMs(1, 1, 60_000, () => 0.5)).toBe(60_000);
      expect(retryDelayMs(1, 1, 1_000, () => 0.5)).toBe(5_000);
      expect(retryDelayMs(1, 1, 100 * 3_600_000, () => 0.5)).toBe(36_000_000);
    });

    it('honours Retry-After on 429 and 503', async () => {
      const m = await merchant();
      const r = await startReceiver((_req, i) =>
        i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : i === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 204 },
      );
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.created'] });
        await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        const got = await r.waitFor((x) => x.length >= 3, 10_000);
        expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(990);
        expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(990);
        await sleep(300);
        expect(r.received).toHaveLength(3);
      } finally {
        await r.close();
      }
    });

    it('a 410 disables the endpoint: no further attempts and no deliveries for later events', async () => {
      const m = await merchant();
      const r = await startReceiver(() => ({ status: 410 }));
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.created'] });
        await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        await r.waitFor((x) => x.length >= 1);
        let ep: ApiResponse;
        for (let i = 0; ; i++) {
          ep = await m.sb('GET', `/webhook_endpoints/${e.json.id}`);
          if (ep.json.status === 'disabled' || i > 50) break;
          await sleep(50);
        }
        expect(ep.json.status).toBe('disabled');
        const evt = String(r.received[0]!.headers['service-event-id']);
        const d = (await m.sb('GET', `/webhook_events/${evt}`)).json.deliveries[0];
        expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: 410 });
        await m.sb('POST', '/payment-intents', { amount: '11.00', currency: 'USD' });
        await sleep(300);
        expect(r.received).toHaveLength(1);
        const resend = await m.sb('POST', `/webhook_events/${evt}/resend`);
        expect(resend.json.resent).toBe(0);
      } finally {
        await r.close();
      }
    });

    it('does not follow redirects, and records timeouts and refused connections as failed attempts', async () => {
      const m = await merchant();
      const target = await startReceiver();
      const redirecting = await startReceiver(() => ({ status: 302, headers: { location: `${target.url}/stolen` } }));
      const slow = await startReceiver(() => ({ status: 200, delayMs: 2500 }));
      const closed = await startReceiver();
      await closed.close();
      try {
        for (const url of [redirecting.url, slow.url, closed.url]) await m.sb('POST', '/webhook_endpoints', { url, events: ['payment_intent.created'] });
        const pi = await m.sb('POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
        const evt = (await m.sb('GET', '/webhook_events?type=payment_intent.created')).json.data[0].id;
        expect((await m.sb('GET', '/webhook_events?type=payment_intent.created')).json.data[0].data.id).toBe(pi.json.id);
        let ds: any[] = [];
        for (let i = 0; i < 80; i++) {
          ds = (await m.sb('GET', `/webhook_events/${evt}`)).json.deliveries;
          if (ds.every((d) => d.attempts.length > 0 && d.attempts[0].outcome === 'failed')) break;
          await sleep(50);
        }
        const byUrl = (u: string) => ds.find((d) => d.url === u).attempts[0];
        expect(byUrl(redirecting.url)).toMatchObject({ outcome: 'failed', status_code: 302, error: 'redirect not followed' });
        expect(byUrl(slow.url)).toMatchObject({ outcome: 'failed', status_code: null });
        expect(byUrl(slow.url).error).toMatch(/timeout/);
        expect(byUrl(slow.url).duration_ms).toBeGreaterThanOrEqual(1400);
        expect(byUrl(closed.url)).toMatchObject({ outcome: 'failed', status_code: null });
        expect(byUrl(closed.url).error).toMatch(/ECONNREFUSED/);
        expect(target.received).toHaveLength(0);
      } finally {
        for (const x of [target, redirecting, slow]) await x.close();
      }
    });
  });

  describe('inspection and resend', () => {
    it('lists emitted events newest first with their deliveries; type filter, pagination and errors', async () => {
      const m = await merchant();
      await m.sb('POST', '/webhook_endpoints', { url: rx.url });
      await paidIntent(m.sb);
      const all = await m.sb('GET', '/webhook_events');
      expect(all.status, all.text).toBe(200);
      expect(all.json).toMatchObject({ object: 'list', has_more: false, environment: 'test', livemode: false });
      // Newest first by creation time, ties (events of one move, in one millisecond) broken by id.
      expect(all.json.data.map((e: { type: string }) => e.type).sort()).toEqual(['payment_intent.confirming', 'payment_intent.created', 'payment_intent.paid']);
      const times = all.json.data.map((e: { created_at: string }) => e.created_at);
      expect(times).toEqual([...times].sort().reverse());
      for (const e of all.json.data) {
        expect(e.object).toBe('webhook_event');
        expect(e.deliveries).toHaveLength(1);
        expect(e.deliveries[0].attempts).toBeUndefined();
      }
      const paged = await m.sb('GET', '/webhook_events?limit=2');
      expect(paged.json.has_more).toBe(true);
      expect(paged.json.data).toHaveLength(2);
      const rest = await m.sb('GET', `/webhook_events?limit=2&starting_after=${paged.json.data[1].id}`);
      expect(rest.json.has_more).toBe(false);
      expect(rest.json.data.map((e: { id: string }) => e.id)).toEqual([all.json.data[2].id]);
      const typed = await m.sb('GET', '/webhook_events?type=payment_intent.paid');
      const paidEvent = all.json.data.find((e: { type: string }) => e.type === 'payment_intent.paid');
      expect(typed.json.data.map((e: { id: string }) => e.id)).toEqual([paidEvent.id]);
      expectError(await m.sb('GET', '/webhook_events?type=nope'), 400, 'parameter_invalid', 'type');
      expectError(await m.sb('GET', '/webhook_events?limit=101'), 400, 'parameter_invalid', 'limit');
      expectError(await m.sb('GET', '/webhook_events?starting_after=evt_nope'), 400, 'parameter_invalid', 'starting_after');
      expectError(await m.sb('GET', '/webhook_events/evt_nope'), 404, 'resource_missing', 'id');
      const other = await merchant();
      expectError(await other.sb('GET', `/webhook_events/${all.json.data[0].id}`), 404, 'resource_missing', 'id');
      expectError(await other.sb('POST', `/webhook_events/${all.json.data[0].id}/resend`), 404, 'resource_missing', 'id');
    });

    it('resend enqueues a new delivery per subscribed endpoint: same Service-Event-Id and body, fresh signature', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.paid'] });
        await paidIntent(m.sb);
        const [first] = await r.waitFor((x) => x.length >= 1);
        const evt = String(first!.headers['service-event-id']);
        await sleep(1100);
        const res = await m.sb('POST', `/webhook_events/${evt}/resend`);
        expect(res.status, res.text).toBe(200);
        expect(res.json).toMatchObject({ object: 'webhook_event', id: evt, resent: 1, environment: 'test', livemode: false });
        const got = await r.waitFor((x) => x.length >= 2);
        expect(got[1]!.headers['service-event-id']).toBe(evt);
        expect(got[1]!.body).toBe(first!.body);
        expect(got[1]!.headers['service-timestamp']).not.toBe(first!.headers['service-timestamp']);
        expect(verifyServiceSignature(e.json.secret, got[1]!.headers, got[1]!.body)).toBe(true);
        let insp: ApiResponse;
        for (let i = 0; ; i++) {
          insp = await m.sb('GET', `/webhook_events/${evt}`);
          if (insp.json.deliveries.every((d: { status: string }) => d.status === 'succeeded') || i > 40) break;
          await sleep(50);
        }
        expect(insp.json.deliveries.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded']);
        // A second endpoint subscribed to the type receives resends too; an unsubscribed one does not.
        await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/second` });
        await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/refunds`, events: ['refund.created'] });
        const again = await m.sb('POST', `/webhook_events/${evt}/resend`);
        expect(again.json.resent).toBe(2);
        await r.waitFor((x) => x.length >= 4);
        await sleep(200);
        expect(r.received.map((x) => x.path).slice(2).sort()).toEqual(['/', '/second']);
      } finally {
        await r.close();
      }
    });
  });

  describe('sandbox trigger', () => {
    it('records a sample payment_intent.paid from the latest sandbox intent and delivers it', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.paid'] });
        const older = await m.sb('POST', '/payment-intents', { amount: '20.00', currency: 'USD' });
        const latest = await m.sb('POST', '/payment-intents', { amount: '30.00', currency: 'USD', merchant_reference: 'latest' });
        expect(older.status).toBe(201);
        const t = await m.sb('POST', '/sandbox/webhooks/trigger');
        expect(t.status, t.text).toBe(200);
        expect(t.json).toMatchObject({ object: 'event_trigger', type: 'payment_intent.paid', status: 'sent', environment: 'test', livemode: false });
        const [got] = await r.waitFor((x) => x.length >= 1);
        const body = JSON.parse(got!.body);
        expect(body).toMatchObject({ id: t.json.event, type: 'payment_intent.paid', livemode: false, data: { id: latest.json.id, status: 'paid', amount: '30.00', merchant_reference: 'latest' } });
        expect(verifyServiceSignature(e.json.secret, got!.headers, got!.body)).toBe(true);
        // A sample changes nothing: the intent still awaits payment.
        expect((await m.sb('GET', `/payment-intents/${latest.json.id}`)).json.status).toBe('awaiting_payment');
        // The feed shows it once older transactions of the database server have ended (at once, in practice).
        let feed = await m.sb('GET', '/events');
        for (let i = 0; i < 200 && feed.json.data[0]?.id !== t.json.event; i++) feed = await m.sb('GET', '/events');
        expect(feed.json.data[0].id).toBe(t.json.event);
      } finally {
        await r.close();
      }
    });

    it('any known type, from a synthetic intent when there is none; unknown types and live keys are refused', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url });
        const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.disputed' });
        expect(t.status, t.text).toBe(200);
        expect(t.json.type).toBe('payment_intent.disputed');
        const ref = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'refund.created' });
        expect(ref.status, ref.text).toBe(200);
        const got = await r.waitFor((x) => x.length >= 2);
        const bodies = got.map((x) => JSON.parse(x.body));
        const disputed = bodies.find((b) => b.type === 'payment_intent.disputed');
        expect(disputed.data.object).toBe('payment_intent');
        expect(disputed.data.id).toMatch(/^pi_/);
        expect((await m.sb('GET', `/payment-intents/${disputed.data.id}`)).status).toBe(404);
        const refund = bodies.find((b) => b.type === 'refund.created');
        expect(refund.data).toMatchObject({ object: 'refund', status: 'requested' });
        expect(refund.data.id).toMatch(/^re_/);

        const before = (await m.sb('GET', '/webhook_events')).json.data.length;
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.exploded' }), 400, 'parameter_invalid', 'type');
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { type: 7 }), 400, 'parameter_invalid', 'type');
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { kind: 'x' }), 400, 'parameter_unknown', 'kind');
        const live = await s.call('live', 'POST', '/sandbox/webhooks/trigger', { key: m.keys.live_secret!, body: {} });
        expectError(live, 400, 'sandbox_only', null);
        expect((await m.sb('GET', '/webhook_events')).json.data.length).toBe(before);
      } finally {
        await r.close();
      }
    });
  });
});
