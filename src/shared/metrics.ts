// Prometheus metrics, made with prom-client: one registry per process, every name `cowrie_…`, labels of
// bounded cardinality (a route's pattern, a status, an outcome: never an id). Domain code calls the small
// functions below and knows nothing of prom-client. Collection is off when the operator turns metrics off
// (COWRIE_METRICS_PORT=0), so the request path pays nothing then.
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'cowrie_' });

let enabled = true;
/** Turns collection on or off for this process (the server does it from its configuration). */
export function setMetricsEnabled(on: boolean): void {
  enabled = on;
}
export function metricsEnabled(): boolean {
  return enabled;
}

const httpRequests = new client.Counter({
  name: 'cowrie_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});
const httpDuration = new client.Histogram({
  name: 'cowrie_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});
const deliveries = new client.Counter({
  name: 'cowrie_webhook_deliveries_total',
  help: 'Webhook delivery attempts finished, by outcome (succeeded, failed, gone, released)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
let queueDepthSource: (() => Promise<number>) | null = null;
new client.Gauge({
  name: 'cowrie_webhook_queue_depth',
  help: 'Webhook deliveries waiting to be delivered (pending), read when scraped',
  registers: [registry],
  async collect() {
    if (queueDepthSource) this.set(await queueDepthSource());
  },
});
const intentMoves = new client.Counter({
  name: 'cowrie_payment_intent_moves_total',
  help: 'Payment intents moved from one status to another',
  labelNames: ['from', 'to'] as const,
  registers: [registry],
});
const railCalls = new client.Counter({
  name: 'cowrie_rail_calls_total',
  help: 'Payment outcomes reported by rails, by environment, method and outcome',
  labelNames: ['environment', 'method', 'outcome'] as const,
  registers: [registry],
});
export const chainWatcherLag = new client.Gauge({
  name: 'cowrie_chain_watcher_lag_blocks',
  help: 'Blocks between the chain head and the last block a watcher scanned, by network',
  labelNames: ['network'] as const,
  registers: [registry],
});
let poolSource: (() => { total: number; idle: number; waiting: number } | null) | null = null;
new client.Gauge({
  name: 'cowrie_db_pool_connections',
  help: 'Database pool connections by state (total, idle, waiting clients), read when scraped',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const p = poolSource?.();
    if (!p) return;
    this.set({ state: 'total' }, p.total);
    this.set({ state: 'idle' }, p.idle);
    this.set({ state: 'waiting' }, p.waiting);
  },
});

const rateFetches = new client.Counter({
  name: 'cowrie_rates_fetches_total',
  help: 'Calls to reference price sources (COWRIE_RATES_URLS), by source and outcome (ok, partial, malformed, timeout, error)',
  labelNames: ['source', 'outcome'] as const,
  registers: [registry],
});
let rateAgeSource: (() => Array<{ asset: string; updatedAt: number | null }>) | null = null;
let rateAgeClock: () => number = () => Date.now();
new client.Gauge({
  name: 'cowrie_rates_price_age_seconds',
  help: "Seconds since the last good fetch of each asset's oldest live reference price (+Inf before the first), read when scraped",
  labelNames: ['asset'] as const,
  registers: [registry],
  // A cluster's processes read the same prices; the oldest view is the one to alert on.
  aggregator: 'max',
  collect() {
    this.reset();
    if (!rateAgeSource) return;
    const now = rateAgeClock();
    for (const { asset, updatedAt } of rateAgeSource()) {
      this.set({ asset }, updatedAt === null ? Number.POSITIVE_INFINITY : Math.max(0, (now - updatedAt) / 1000));
    }
  },
});

export function setQueueDepthSource(source: () => Promise<number>): void {
  queueDepthSource = source;
}
/** The live prices' fetch times, per asset (null: the rate table is in use, which has no age to show). */
export function setRateAgeSource(source: (() => Array<{ asset: string; updatedAt: number | null }>) | null, nowMs?: () => number): void {
  rateAgeSource = source;
  if (nowMs) rateAgeClock = nowMs;
}
export function setPoolSource(source: () => { total: number; idle: number; waiting: number } | null): void {
  poolSource = source;
}

export function observeHttp(method: string, route: string, status: number, seconds: number): void {
  if (!enabled) return;
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}
export function countDelivery(outcome: 'succeeded' | 'failed' | 'gone' | 'released'): void {
  if (enabled) deliveries.inc({ outcome });
}
export function countIntentMove(from: string, to: string): void {
  if (enabled) intentMoves.inc({ from, to });
}
export function countRailCall(environment: string, method: string, outcome: string): void {
  if (enabled) railCalls.inc({ environment, method, outcome });
}
export function countRateFetch(source: string, outcome: string): void {
  if (enabled) rateFetches.inc({ source, outcome });
}
