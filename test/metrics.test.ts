// Prometheus metrics: the metrics listener on its own port serves `cowrie_` metrics in the Prometheus text
// format; requests are counted by route pattern and status (never an id), intent moves, rail outcomes and
// webhook deliveries by outcome, the queue depth and the pool read at scrape time, the process's own metrics;
// /healthz and /readyz answer there too. Runs on SQLite and PostgreSQL.
import { describe, expect, it } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { freePorts } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { serverAndReceiver } from './helpers/webhooks.js';

/** Sample values of a metric text, by their label text: `{method="GET",route="…",status="200"}` -> value. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^(\S+?)(\{.*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

describe(`metrics (${ENGINE})`, () => {
  let port: number;
  const { server, receiver } = serverAndReceiver(async () => {
    [port] = (await freePorts(1)) as [number];
    return { COWRIE_METRICS_PORT: String(port), COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1', COWRIE_WEBHOOK_BACKOFF_SCALE: '0.0001' };
  });

  const scrape = async () => {
    const r = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text();
  };

  it('counts requests by route pattern and status, never by id, with latency histograms', async () => {
    const before = samples(await scrape(), 'cowrie_http_requests_total');
    const pi = await server().sandbox('POST', '/payment-intents', { body: { amount: '10.00', currency: 'USD' } });
    expect(pi.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await server().sandbox('GET', `/payment-intents/${pi.json.id}`)).status).toBe(200);
    expect((await server().sandbox('GET', '/payment-intents/pi_000000000000000000000000')).status).toBe(404);
    expect((await fetch(server().url('test', '/no/such/page'))).status).toBe(404);
    const text = await scrape();
    const after = samples(text, 'cowrie_http_requests_total');
    const delta = (labels: string) => (after.get(labels) ?? 0) - (before.get(labels) ?? 0);
    expect(delta('{method="POST",route="/v1/payment-intents",status="201"}')).toBe(1);
    expect(delta('{method="GET",route="/v1/payment-intents/:id",status="200"}')).toBe(3);
    expect(delta('{method="GET",route="/v1/payment-intents/:id",status="404"}')).toBe(1);
    expect(delta('{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(text).not.toContain('pi_');
    expect(text).not.toMatch(/req_[0-9A-Za-z]{10}/);
    const buckets = samples(text, 'cowrie_http_request_duration_seconds_count');
    expect(buckets.get('{method="GET",route="/v1/payment-intents/:id",status="200"}')).toBeGreaterThanOrEqual(3);
  });

  it('counts intent moves, rail outcomes and webhook deliveries; reads the queue depth; the process metrics are there', async () => {
    const ep = await server().sandbox('POST', '/webhook_endpoints', { body: { url: receiver().url, events: ['payment_intent.paid'] } });
    expect(ep.status).toBe(201);
    const before = await scrape();
    const moves0 = samples(before, 'cowrie_payment_intent_moves_total');
    const rails0 = samples(before, 'cowrie_rail_calls_total');
    const pi = await server().sandbox('POST', '/payment-intents', { body: { amount: '10.00', currency: 'USD' } });
    const paid = await server().sandbox('POST', `/sandbox/payment-intents/${pi.json.id}/simulate`, {
      body: { outcome: 'success', payment_method: 'card' },
    });
    expect(paid.json.status).toBe('paid');
    await receiver().waitFor((got) => got.some((r) => r.body.includes(pi.json.id)), 10_000, 'the paid webhook');
    const text = await waitFor(
      'a succeeded delivery counted',
      scrape,
      (t) => (samples(t, 'cowrie_webhook_deliveries_total').get('{outcome="succeeded"}') ?? 0) >= 1,
      { intervalMs: 100 },
    );
    const moves = samples(text, 'cowrie_payment_intent_moves_total');
    const d = (m: Map<string, number>, m0: Map<string, number>, k: string) => (m.get(k) ?? 0) - (m0.get(k) ?? 0);
    expect(d(moves, moves0, '{from="awaiting_payment",to="confirming"}')).toBe(1);
    expect(d(moves, moves0, '{from="confirming",to="paid"}')).toBe(1);
    expect(d(samples(text, 'cowrie_rail_calls_total'), rails0, '{environment="test",method="card",outcome="success"}')).toBe(1);
    expect(samples(text, 'cowrie_webhook_deliveries_total').get('{outcome="succeeded"}')).toBeGreaterThanOrEqual(1);
    expect(samples(text, 'cowrie_webhook_queue_depth').get('')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE cowrie_chain_watcher_lag_blocks gauge');
    expect(text).toMatch(/^cowrie_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^cowrie_nodejs_heap_size_used_bytes \d/m);
    if (ENGINE === 'postgres') expect(samples(text, 'cowrie_db_pool_connections').get('{state="total"}')).toBeGreaterThan(0);
    // Every metric of ours is named cowrie_…
    for (const line of text.split('\n')) if (line && !line.startsWith('#')) expect(line).toMatch(/^cowrie_/);
  });

  it('answers /healthz and /readyz on the metrics port, and 404 elsewhere', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ status: 'ready' });
    expect((await fetch(`http://127.0.0.1:${port}/nothing`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
