// Webhook delivery benchmark, on SQLite and PostgreSQL:
// 1. throughput: a backlog of N events, each with one delivery, spread over E endpoints (12 by default; an
//    environment holds at most 16), is written while the server is stopped; the server starts and its
//    worker drains the backlog to a local receiver: deliveries per second from the first arrival to the
//    last. Then the same for a smaller backlog to one endpoint alone: one endpoint has at most 4 attempts
//    in flight, so its rate is bounded by its receiver's round trip and one transaction, not by the worker;
// 2. delay from commit to first attempt: payment intents created through the API by a few clients at a
//    steady rate (BENCH_WEBHOOK_RATE a second, within what one endpoint takes at 4 in flight); for each
//    `payment_intent.created` delivery, arrival time minus the time the create request was sent (an upper
//    bound of the commit-to-attempt delay: the commit happens after the request is sent) and minus the time
//    the response arrived (a lower bound). On PostgreSQL, whose NOTIFY wakes the workers of every process,
//    this process also commits events of its own through the same code (recordEvent) meanwhile, and times
//    each one's commit exactly: arrival minus the moment COMMIT was sent (upper) and minus the moment it
//    returned (lower), a bracket well under a millisecond wide.
// Run by `npm run bench` (bench/run.ts), or alone: node --import tsx bench/webhooks.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Insertable } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import { transaction } from '../src/db/transaction.js';
import { recordEvent } from '../src/modules/events/index.js';
import type { EventsTable, WebhookDeliveriesTable } from '../src/db/schema.js';
import { newId, randomBase62 } from '../src/shared/ids.js';
import { startProcess, stop, withPgDatabase, type Started } from './lib.js';

const BACKLOG = Number(process.env['BENCH_WEBHOOK_BACKLOG'] ?? 20_000);
const LATENCY_EVENTS = Number(process.env['BENCH_WEBHOOK_EVENTS'] ?? 600);
const CLIENTS = 4;
const ENDPOINTS = Number(process.env['BENCH_WEBHOOK_ENDPOINTS'] ?? 12);
const ONE_ENDPOINT_BACKLOG = Number(process.env['BENCH_WEBHOOK_ONE_BACKLOG'] ?? 2_000);
const RATE = Number(process.env['BENCH_WEBHOOK_RATE'] ?? 100);
const WARMUP_EVENTS = 400;
// From the sources (tsx costs only start-up time), so the figures are always those of the code beside it.
const ENTRY = ['--import', 'tsx', 'src/cli/main.ts', 'serve'];

interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  count: number;
  onArrival: (() => void) | null;
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const rx: Receiver = { url: '', arrivals: new Map(), count: 0, onArrival: null, server: null as never };
  rx.server = createServer((req, res) => {
    const at = performance.now();
    const id = String(req.headers['service-event-id']);
    req.resume();
    req.on('end', () => {
      if (!rx.arrivals.has(id)) rx.arrivals.set(id, at);
      rx.count++;
      res.writeHead(200).end();
      rx.onArrival?.();
    });
  });
  rx.server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => rx.server.listen(0, '127.0.0.1', () => r()));
  rx.url = `http://127.0.0.1:${(rx.server.address() as AddressInfo).port}/hook`;
  return rx;
}

function startServer(databaseUrl: string, port: number): Promise<Started> {
  const env = {
    COWRIE_DATABASE_URL: databaseUrl,
    COWRIE_HOST: '127.0.0.1',
    COWRIE_LIVE_PORT: String(port),
    COWRIE_SANDBOX_PORT: String(port + 1),
    COWRIE_RATE_LIMIT_TEST: '1000000',
    COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
    COWRIE_WEBHOOK_CONCURRENCY: '128',
    COWRIE_LOG_LEVEL: 'info',
  };
  // Both listeners log "listening".
  return startProcess(ENTRY, env, (out) => (out.match(/"msg":"listening"/g) ?? []).length >= 2);
}

async function call(port: number, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port + 1}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Writes `n` events of the demo merchant with one due delivery each, to the endpoints in turn, as recordEvent would. */
async function writeBacklog(databaseUrl: string, merchantId: string, endpointIds: readonly string[], n: number): Promise<void> {
  const d = openDatabase(databaseUrl);
  try {
    const now = Date.now();
    for (let start = 0; start < n; start += 500) {
      const events: Insertable<EventsTable>[] = [];
      const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
      for (let i = start; i < Math.min(n, start + 500); i++) {
        const id = newId('event');
        const payload = {
          id,
          object: 'event',
          type: 'payment_intent.paid',
          api_version: '2026-06-01',
          created_at: new Date(now).toISOString(),
          livemode: false,
          data: { id: `pi_${randomBase62(24)}`, status: 'paid', amount: '1500.00', currency: 'KES' },
        };
        events.push({
          id,
          merchant_id: merchantId,
          environment: 'test' as const,
          type: payload.type,
          api_version: payload.api_version,
          payment_intent_id: null,
          payload: JSON.stringify(payload),
          created_at: now,
        });
        deliveries.push({
          id: newId('webhook_delivery'),
          event_id: id,
          endpoint_id: endpointIds[i % endpointIds.length]!,
          merchant_id: merchantId,
          environment: 'test' as const,
          status: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: now,
          locked_by: null,
          last_status_code: null,
          last_error: null,
          last_attempt_at: null,
          created_at: now,
          updated_at: now,
          completed_at: null,
        });
      }
      await d.db.transaction().execute(async (trx) => {
        await trx.insertInto('events').values(events).execute();
        await trx.insertInto('webhook_deliveries').values(deliveries).execute();
      });
    }
  } finally {
    await d.close();
  }
}

/** Waits out the rest of one client's turn begun at `start`: each of the CLIENTS sends RATE / CLIENTS a second. */
const pace = (start: number) => new Promise((r) => setTimeout(r, Math.max(0, (1000 * CLIENTS) / RATE - (performance.now() - start))));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

interface Figures {
  engine: string;
  perSecond: number;
  oneEndpointPerSecond: number;
  upperP50: number;
  upperP99: number;
  lowerP50: number;
  lowerP99: number;
  /** Events committed by this process (PostgreSQL): commit sent, commit returned, to arrival. */
  exact: { count: number; upperP50: number; upperP99: number; lowerP50: number; lowerP99: number } | null;
}

async function benchEngine(engine: string, databaseUrl: string, port: number): Promise<Figures> {
  const rx = await startReceiver();
  try {
    // First start: migrate, demo merchant and key; then the endpoints: ENDPOINTS for the backlog (subscribed
    // to an event the stream never sends: their deliveries are written directly) and one for the stream.
    let srv = await startServer(databaseUrl, port);
    const key = /cwk_test_sk_[0-9A-Za-z]+/.exec(srv.output())?.[0];
    if (!key) throw new Error(`no demo key:\n${srv.output()}`);
    const me = await call(port, key, 'GET', '/auth/verify');
    const backlogEndpoints: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++)
      backlogEndpoints.push((await call(port, key, 'POST', '/webhook_endpoints', { url: rx.url, events: ['refund.created'] })).id);
    const endpoint = await call(port, key, 'POST', '/webhook_endpoints', { url: rx.url, events: ['payment_intent.created'] });
    // The probes' events (PostgreSQL, below) go to an endpoint of their own: on the stream's they doubled
    // its rate to about 200 a second, near what one endpoint takes at 4 in flight there, and the delay
    // measured that endpoint's queue instead of the worker's wake-up.
    await call(port, key, 'POST', '/webhook_endpoints', { url: rx.url, events: ['payment_intent.paid'] });
    await stop(srv.child);

    // 1. Throughput: drain a backlog over ENDPOINTS endpoints, then one to a single endpoint.
    const drain = async (endpointIds: readonly string[], n: number): Promise<number> => {
      rx.arrivals.clear();
      await writeBacklog(databaseUrl, me.merchant_id, endpointIds, n);
      const drained = new Promise<void>((r) => (rx.onArrival = () => rx.arrivals.size >= n && r()));
      srv = await startServer(databaseUrl, port);
      await drained;
      rx.onArrival = null;
      const times = [...rx.arrivals.values()];
      return (n - 1) / ((Math.max(...times) - Math.min(...times)) / 1000);
    };
    const perSecond = await drain(backlogEndpoints, BACKLOG);
    await stop(srv.child);
    const oneEndpointPerSecond = await drain([endpoint.id], ONE_ENDPOINT_BACKLOG);

    // 2. Commit-to-first-attempt delay under a steady stream of creates.
    // The server process has just started: its create path is still cold (the interpreter, the first
    // compilations). A warm-up stream of creates (and probes) first, not measured.
    let measureFrom = Infinity;
    let clientsDone = false;
    const probes = new Map<string, { sent: number; returned: number }>();
    const probe = async () => {
      if (!databaseUrl.startsWith('postgres')) return;
      const pd = openDatabase(databaseUrl);
      try {
        while (!clientsDone) {
          let sentAt = 0;
          const event = await transaction(pd.db, async (trx) => {
            const e = await recordEvent(trx, {
              merchantId: me.merchant_id,
              environment: 'test',
              type: 'payment_intent.paid',
              data: { probe: true },
              at: Date.now(),
            });
            sentAt = performance.now();
            return e;
          });
          if (sentAt >= measureFrom) probes.set(event.id, { sent: sentAt, returned: performance.now() });
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        await pd.close();
      }
    };
    const probing = probe();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = 0; i < WARMUP_EVENTS / CLIENTS; i++) {
          const start = performance.now();
          await call(port, key, 'POST', '/payment-intents', { amount: '1500.00', currency: 'KES' });
          await pace(start);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    rx.arrivals.clear();
    measureFrom = performance.now();
    const sent = new Map<string, { start: number; end: number }>();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < LATENCY_EVENTS) {
          next++;
          const start = performance.now();
          const pi = await call(port, key, 'POST', '/payment-intents', { amount: '1500.00', currency: 'KES' });
          sent.set(pi.id, { start, end: performance.now() });
          await pace(start);
        }
      }),
    );
    clientsDone = true;
    await probing;
    await new Promise((r) => setTimeout(r, 1000));
    const d = openDatabase(databaseUrl);
    const events = await d.db
      .selectFrom('events')
      .select(['id', 'payment_intent_id'])
      .where('type', '=', 'payment_intent.created')
      .execute();
    await d.close();
    const upper: number[] = [];
    const lower: number[] = [];
    for (const e of events) {
      const s = sent.get(e.payment_intent_id ?? '');
      const at = rx.arrivals.get(e.id);
      if (!s || at === undefined) continue;
      upper.push(at - s.start);
      lower.push(Math.max(0, at - s.end));
    }
    if (upper.length < sent.size) process.stdout.write(`  warning: ${sent.size - upper.length} events not delivered in time\n`);
    let exact: Figures['exact'] = null;
    if (probes.size > 0) {
      const up: number[] = [];
      const low: number[] = [];
      for (const [id, p] of probes) {
        const at = rx.arrivals.get(id);
        if (at === undefined) continue;
        up.push(at - p.sent);
        low.push(Math.max(0, at - p.returned));
      }
      if (up.length < probes.size) process.stdout.write(`  warning: ${probes.size - up.length} probe events not delivered in time\n`);
      exact = { count: up.length, upperP50: pct(up, 50), upperP99: pct(up, 99), lowerP50: pct(low, 50), lowerP99: pct(low, 99) };
    }
    await stop(srv.child);
    return {
      engine,
      perSecond,
      oneEndpointPerSecond,
      upperP50: pct(upper, 50),
      upperP99: pct(upper, 99),
      lowerP50: pct(lower, 50),
      lowerP99: pct(lower, 99),
      exact,
    };
  } finally {
    await new Promise<void>((r) => rx.server.close(() => r()));
    rx.server.closeAllConnections();
  }
}

function show(f: Figures): void {
  process.stdout.write(
    `${f.engine.padEnd(11)} ${f.perSecond.toFixed(0).padStart(7)} deliveries/s over ${ENDPOINTS} endpoints, ${f.oneEndpointPerSecond.toFixed(0)}/s to one endpoint (at most 4 in flight)\n` +
      `${''.padEnd(11)} at ${RATE} events/s: ` +
      `API request sent->first attempt p50 ${f.upperP50.toFixed(1)} ms, p99 ${f.upperP99.toFixed(1)} ms (an upper bound of commit->first attempt; response->first attempt, a lower bound: p50 ${f.lowerP50.toFixed(1)}, p99 ${f.lowerP99.toFixed(1)})\n`,
  );
  if (f.exact) {
    const e = f.exact;
    process.stdout.write(
      `${''.padEnd(11)} commit->first attempt, ${e.count} events committed by another process meanwhile: p50 ${e.lowerP50.toFixed(1)}-${e.upperP50.toFixed(1)} ms, p99 ${e.lowerP99.toFixed(1)}-${e.upperP99.toFixed(1)} ms (from COMMIT returned - from COMMIT sent)\n`,
    );
  }
}

process.stdout.write(
  `Webhook delivery benchmark: backlog of ${BACKLOG} deliveries over ${ENDPOINTS} endpoints and of ${ONE_ENDPOINT_BACKLOG} to one endpoint, to a local receiver; ${LATENCY_EVENTS} intents from ${CLIENTS} clients at ${RATE} a second for the delay. Targets: >= 2000 deliveries/s, p99 < 100 ms.\n`,
);
// BENCH_ENGINES (`sqlite,postgres`) chooses the engines.
const engines = (process.env['BENCH_ENGINES'] ?? 'sqlite,postgres').split(',');
if (engines.includes('sqlite')) {
  const dir = mkdtempSync(join(tmpdir(), 'cowrie-bench-wh-'));
  try {
    show(await benchEngine('SQLite', `sqlite:${join(dir, 'bench.db')}`, 4400));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const pgFigures = engines.includes('postgres') ? await withPgDatabase((url) => benchEngine('PostgreSQL', url, 4410)) : null;
if (pgFigures) show(pgFigures);
