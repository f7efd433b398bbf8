// Several real server processes on one PostgreSQL database: two `all` processes, and one `api` beside one
// `worker`. Each topology: 40 concurrent identical idempotent creates make one intent; 20 concurrent refunds
// of one payment make one refund; a link capped at 3 with 20 concurrent payments ends with exactly 3 paid;
// `/events?after=` followed while both write never skips or repeats an event; and a process killed with
// SIGKILL mid-delivery loses no event (every one delivered at least once, the same event id on every
// attempt). The rate limit shared across processes is proven in rate-limit.test.ts. SQLite serves one
// process, so this runs on PostgreSQL only.
import { get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';

const ENV = {
  COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
  COWRIE_WEBHOOK_BACKOFF_SCALE: '0.0001',
  COWRIE_WEBHOOK_TIMEOUT_MS: '2000',
  COWRIE_WEBHOOK_LEASE_MS: '3000',
  COWRIE_JOB_INTERVAL_MS: '500',
};

if (ENGINE !== 'postgres') {
  process.stdout.write(
    '\nMulti-process tests SKIPPED on SQLite: the embedded database serves one process (set COWRIE_TEST_DATABASE_URL).\n\n',
  );
}

type Topology = { name: string; roles: Array<'all' | 'api' | 'worker'> };
const TOPOLOGIES: Topology[] = [
  { name: 'two all processes', roles: ['all', 'all'] },
  { name: 'one api and one worker', roles: ['api', 'worker'] },
];

describe.skipIf(ENGINE !== 'postgres').each(TOPOLOGIES)('$name on one PostgreSQL database', ({ roles }) => {
  let db: TestDatabase;
  let check: Database;
  let rx: Receiver;
  let delayMs = 0;
  const procs: ServerProcess[] = [];
  let key = '';
  /** Sandbox ports of the processes that serve the API. */
  let ports: number[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    rx = await startReceiver(() => ({ status: 200, delayMs }));
    // The first process migrates and seeds the demo merchant; the others join the migrated database.
    const first = await spawnServer(db.url, { ...ENV, COWRIE_ROLE: roles[0]! });
    procs.push(first);
    await first.ready;
    key = first.demoKey()!;
    for (const role of roles.slice(1)) {
      const p = await spawnServer(db.url, { ...ENV, COWRIE_ROLE: role });
      procs.push(p);
      await p.ready;
    }
    ports = procs.filter((_, i) => roles[i] !== 'worker').map((p) => p.sandboxPort);
    check = openDatabase(db.url);
    const ep = await api(ports[0]!, key, 'POST', '/webhook_endpoints', { url: rx.url });
    expect(ep.status, JSON.stringify(ep.json)).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await rx?.close();
    await db?.drop();
  });

  /** The i-th call goes to the i-th API process in turn. */
  const portFor = (i: number) => ports[i % ports.length]!;
  const call = (i: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${portFor(i)}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));

  it('the roles run as asked: only api and all processes listen', () => {
    for (const [i, p] of procs.entries()) {
      const lines = p
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      const logs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logs.every((l) => l['role'] === roles[i] && typeof l['pid'] === 'number')).toBe(true);
      expect(logs.some((l) => l['msg'] === 'listening')).toBe(roles[i] !== 'worker');
    }
  });

  it('40 concurrent identical idempotent creates across the processes: exactly one intent', async () => {
    const body = { amount: '42.00', currency: 'USD', merchant_reference: `idem-${roles.join('-')}` };
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i, 'POST', '/payment-intents', body, { 'Idempotency-Key': `k-${roles.join('-')}` })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.json.error.code).toBe('idempotency_in_progress');
    }
    expect(new Set(created.map((r) => r.json.id)).size).toBe(1);
    const rows = await check.db
      .selectFrom('payment_intents')
      .select('id')
      .where('merchant_reference', '=', body.merchant_reference)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('20 concurrent refunds of one payment across the processes: exactly one refund', async () => {
    const pi = await call(0, 'POST', '/payment-intents', { amount: '10.00', currency: 'USD' });
    const paid = await call(1, 'POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, { outcome: 'success', payment_method: 'card' });
    expect(paid.json.status).toBe('paid');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, 'POST', '/refunds', { payment_intent: pi.json.id })));
    expect(results.filter((r) => r.status === 201 || r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status >= 400)) expect(r.json.error.code).toBe('refund_exists');
    const refunds = await check.db.selectFrom('refunds').select('id').where('payment_intent_id', '=', pi.json.id).execute();
    expect(refunds).toHaveLength(1);
  });

  it('a link capped at 3 and 20 concurrent payments across the processes: exactly 3 paid', async () => {
    const link = await call(0, 'POST', '/payment-links', { title: 'Three seats', currency: 'USD', amount: '5.00', max_payments: 3 });
    expect(link.status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const port = portFor(i);
      const page = await fetch(`http://127.0.0.1:${port}/pay/${link.json.id}`);
      const token = /name="visit" value="([^"]+)"/.exec(await page.text())![1]!;
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      const sent = await fetch(`http://127.0.0.1:${port}/pay/${link.json.id}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ visit: token }).toString(),
      });
      expect(sent.status).toBe(303);
      ids.push(sent.headers.get('location')!.split('/').pop()!);
    }
    const results = await Promise.all(
      ids.map((id, i) => call(i, 'POST', `/sandbox/payment-intents/${id}/simulate`, { outcome: 'success', payment_method: 'card' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.error.code).toBe('payment_link_completed');
    const paid = await check.db
      .selectFrom('payment_intents')
      .select('id')
      .where('payment_link', '=', link.json.id)
      .where('status', '=', 'paid')
      .execute();
    expect(paid).toHaveLength(3);
  });

  it('/events?after= followed while every process writes: no event skipped or repeated', async () => {
    const latest = await call(0, 'GET', '/events?limit=1');
    let after: string = latest.json.data[0]?.id;
    const seen: string[] = [];
    const writers = ports.map(async (_, w) => {
      for (let i = 0; i < 30; i++)
        await call(w, 'POST', '/payment-intents', { amount: '1.00', currency: 'USD', merchant_reference: `feed-${w}` });
    });
    let expected = null as Set<string> | null;
    const reader = (async () => {
      // Follows the feed until it has shown every event the writers made (known once they are done), then
      // reads once more to see nothing new. An event shows once every writing transaction older than it has
      // finished, anywhere on the PostgreSQL server, so the last ones may come a little after the writes.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const page = await call(seen.length, 'GET', `/events?limit=100${after ? `&after=${after}` : ''}`);
        expect(page.status).toBe(200);
        for (const e of page.json.data) seen.push(e.id);
        if (page.json.data.length > 0) after = page.json.data.at(-1).id;
        const all = expected;
        if (all && page.json.data.length === 0 && [...all].every((id) => seen.includes(id))) return;
        expect(Date.now(), `the feed showed ${seen.length} events of ${all?.size ?? '?'}`).toBeLessThan(deadline);
        // The reader's poll interval: it follows the feed as a client does, while the writers write.
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await Promise.all(writers);
    const written = await check.db
      .selectFrom('events')
      .innerJoin('payment_intents', 'payment_intents.id', 'events.payment_intent_id')
      .select('events.id')
      .where(
        'payment_intents.merchant_reference',
        'in',
        ports.map((_, w) => `feed-${w}`),
      )
      .execute();
    expected = new Set(written.map((e) => e.id));
    await reader;
    expect(written).toHaveLength(30 * ports.length);
    expect(new Set(seen).size).toBe(seen.length);
    for (const e of written) expect(seen).toContain(e.id);
  });

  it('SIGKILL of a delivering process mid-delivery: every event delivered at least once, with the same id', async () => {
    // Deliveries in flight take 400 ms, so the kill lands while several are unanswered.
    delayMs = 400;
    const victim = roles.includes('worker') ? roles.indexOf('worker') : 1;
    const before = rx.received.length;
    const writes: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++)
      writes.push(call(0, 'POST', '/payment-intents', { amount: '2.00', currency: 'USD', merchant_reference: 'kill' }));
    await Promise.all(writes);
    await rx.waitFor((got) => got.length >= before + 5, 20_000, 'deliveries under way');
    await killHard(procs[victim]!);
    // The kill landed mid-delivery: deliveries claimed by the dead process were not finished.
    const unfinished = await check.db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'succeeded').execute();
    expect(unfinished.length).toBeGreaterThan(0);
    delayMs = 0;
    // A replacement for a killed worker (with two `all` processes, the survivor carries on alone).
    if (roles[victim] === 'worker') {
      const replacement = await spawnServer(db.url, { ...ENV, COWRIE_ROLE: 'worker' });
      procs.push(replacement);
      await replacement.ready;
    }
    const events = await check.db
      .selectFrom('events')
      .innerJoin('payment_intents', 'payment_intents.id', 'events.payment_intent_id')
      .select('events.id')
      .where('payment_intents.merchant_reference', '=', 'kill')
      .execute();
    expect(events).toHaveLength(40);
    await rx.waitFor(
      (got) => events.every((e) => got.some((r) => r.headers['service-event-id'] === e.id)),
      60_000,
      'every event of the killed run',
    );
    for (const r of rx.received) expect(JSON.parse(r.body).id).toBe(r.headers['service-event-id']);
  });
});

describe.skipIf(ENGINE !== 'postgres')('rail questions survive the process that asked', () => {
  const procs: ServerProcess[] = [];
  let db: TestDatabase;
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await db?.drop();
  });

  it('an STK push whose process was killed before the phone answered is resolved by a worker', async () => {
    db = await createTestDatabase();
    const asker = await spawnServer(db.url, { ...ENV, COWRIE_ROLE: 'all' });
    procs.push(asker);
    await asker.ready;
    const key = asker.demoKey()!;
    const pi = await api(asker.sandboxPort, key, 'POST', '/payment-intents', { amount: '100.00', currency: 'KES' });
    const path = new URL(pi.json.checkout_url).pathname;
    const page = await fetch(`http://127.0.0.1:${asker.sandboxPort}${path}`);
    const token = /<meta name="checkout-token" content="([^"]+)">/.exec(await page.text())![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const pay = await fetch(`http://127.0.0.1:${asker.sandboxPort}${path}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-checkout-token': token, cookie },
      body: JSON.stringify({ method: 'mpesa', phone: '+254700000001' }),
    });
    expect(((await pay.json()) as { state: string }).state).toBe('pending');
    // The process dies before the simulated phone answers (about 2 s).
    await killHard(asker);
    const check = openDatabase(db.url);
    try {
      const status = () => check.db.selectFrom('payment_intents').select('status').where('id', '=', pi.json.id).executeTakeFirstOrThrow();
      expect((await status()).status).toBe('awaiting_payment');
      const worker = await spawnServer(db.url, { ...ENV, COWRIE_ROLE: 'worker' });
      procs.push(worker);
      await worker.ready;
      await waitFor('the intent paid by the worker', status, (row) => row.status === 'paid', { intervalMs: 100 });
      expect((await status()).status).toBe('paid');
    } finally {
      await check.close();
    }
  });
});

describe.skipIf(ENGINE !== 'postgres')('--processes 2: one port, two processes, metrics summed by the primary', () => {
  const procs: ServerProcess[] = [];
  let db: TestDatabase;
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await db?.drop();
  });

  it('requests spread over both processes; the primary’s /metrics counts every one; SIGTERM stops them all with exit 0', async () => {
    db = await createTestDatabase();
    const [metricsPort] = (await freePorts(1)) as [number];
    const server = await spawnServer(db.url, { COWRIE_ROLE: 'api', COWRIE_PROCESSES: '2', COWRIE_METRICS_PORT: String(metricsPort) });
    procs.push(server);
    await server.ready;
    const key = server.demoKey()!;
    const pids = new Set<number>();
    // Ready means one process listens; the cluster spreads connections over the processes listening, so
    // wait until both do (on a busy machine the second can start a moment later).
    await waitFor(
      'both processes listening',
      () => {
        const listening = new Set<number>();
        for (const line of server.stdout().split('\n')) {
          if (!line.startsWith('{')) continue;
          const log = JSON.parse(line) as { msg?: string; pid?: number; role?: string };
          if (log.msg === 'listening' && log.role === 'api' && log.pid) listening.add(log.pid);
        }
        return listening.size;
      },
      (n) => n === 2,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // A new connection each time, so that the cluster spreads them over both processes.
    for (let i = 0; i < 30; i++) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpGet(
          {
            host: '127.0.0.1',
            port: server.sandboxPort,
            path: '/v1/auth/verify',
            agent: false,
            headers: { authorization: `Bearer ${key}` },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
      });
      expect(status).toBe(200);
    }
    for (const line of server.stdout().split('\n')) {
      if (!line.startsWith('{')) continue;
      const log = JSON.parse(line) as { msg?: string; pid?: number; role?: string };
      if (log.msg === 'listening' && log.role === 'api' && log.pid) pids.add(log.pid);
    }
    expect(pids.size).toBe(2);
    // Both processes answered some of them (each logs the requests it completed; a busy machine may pass
    // a process's log lines on a little later than its answers, so the count is read until both show).
    const served = await waitFor(
      'requests completed by both processes',
      () => {
        const byPid: Record<string, number> = {};
        for (const line of server.stdout().split('\n')) {
          if (!line.includes('"request completed"')) continue;
          const log = JSON.parse(line) as { pid: number };
          byPid[log.pid] = (byPid[log.pid] ?? 0) + 1;
        }
        return byPid;
      },
      (byPid) => Object.keys(byPid).length === 2,
    );
    expect(Object.keys(served)).toHaveLength(2);
    const total = await waitFor(
      'the primary’s /metrics to count all 30 requests',
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        const line = text
          .split('\n')
          .find((l) => l.startsWith('cowrie_http_requests_total{method="GET",route="/v1/auth/verify",status="200"'));
        return line ? Number(line.split(' ').pop()) : 0;
      },
      (n) => n >= 30,
      { intervalMs: 100 },
    );
    expect(total).toBe(30);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

describe.skipIf(ENGINE !== 'postgres')('live M-Pesa: a restart while waiting for the phone', () => {
  const procs: ServerProcess[] = [];
  let db: TestDatabase;
  let peer: DarajaPeer;
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await peer?.close();
    await db?.drop();
  });

  it('the callback is lost while the server is down; after the restart the STK query pays the intent', async () => {
    db = await createTestDatabase();
    const creds = { consumerKey: 'ck-r', consumerSecret: 'cs-r', shortcode: '174379', passkey: 'pk-r' };
    peer = await startDarajaPeer(creds);
    const mpesaEnv = {
      ...ENV,
      COWRIE_MPESA_BASE_URL: peer.url,
      COWRIE_MPESA_CONSUMER_KEY: creds.consumerKey,
      COWRIE_MPESA_CONSUMER_SECRET: creds.consumerSecret,
      COWRIE_MPESA_SHORTCODE: creds.shortcode,
      COWRIE_MPESA_PASSKEY: creds.passkey,
      COWRIE_MPESA_QUERY_AFTER_S: '1',
    };
    const first = await spawnServer(db.url, mpesaEnv);
    procs.push(first);
    await first.ready;
    // A verified merchant with a live key (the demo merchant is not verified).
    const check = openDatabase(db.url);
    try {
      const key = first.demoKey()!;
      const demo = await api(first.sandboxPort, key, 'GET', '/auth/verify');
      await check.db.updateTable('merchants').set({ kyb_status: 'verified' }).where('id', '=', demo.json.merchant_id).execute();
      const issued = await import('../src/modules/merchants/index.js').then((m) =>
        m.createKey(
          check.db,
          { nowMs: () => Date.now(), now: () => new Date() },
          { merchantId: demo.json.merchant_id, environment: 'live', type: 'secret' },
        ),
      );
      const pi = await api(first.livePort, issued.key, 'POST', '/payment-intents', { amount: '99.00', currency: 'KES' });
      expect(pi.status, JSON.stringify(pi.json)).toBe(201);
      const path = new URL(pi.json.checkout_url).pathname;
      const page = await fetch(`http://127.0.0.1:${first.livePort}${path}`);
      const token = /<meta name="checkout-token" content="([^"]+)">/.exec(await page.text())![1]!;
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      peer.setNextBehaviour({ callback: 'never', delayMs: 500 });
      const paid = await fetch(`http://127.0.0.1:${first.livePort}${path}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-checkout-token': token, cookie },
        body: JSON.stringify({ method: 'mpesa', phone: '0712345678' }),
      });
      expect(((await paid.json()) as { state: string }).state).toBe('pending');
      await killHard(first);
      const status = async () =>
        await check.db
          .selectFrom('payment_intents')
          .select(['status', 'provider_reference'])
          .where('id', '=', pi.json.id)
          .executeTakeFirstOrThrow();
      expect((await status()).status).toBe('awaiting_payment');
      const second = await spawnServer(db.url, { ...mpesaEnv, COWRIE_ROLE: 'worker' });
      procs.push(second);
      await second.ready;
      await waitFor('the intent paid by the STK query', status, (row) => row.status === 'paid', { intervalMs: 100 });
      // Paid by the STK query, which tells no receipt number (only a callback does).
      expect(await status()).toEqual({ status: 'paid', provider_reference: null });
    } finally {
      await check.close();
    }
  });
});
