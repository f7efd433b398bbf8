// The Prometheus listener: `GET /metrics` on COWRIE_METRICS_PORT, bound to COWRIE_HOST, apart from the API's
// listeners. It also answers `/healthz` and `/readyz`, so that a worker process, which has no API listener,
// can be probed too. In a cluster the primary serves the sum of its processes' metrics (prom-client's
// AggregatorRegistry); each process answers it with its own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import type { Database } from '../db/database.js';
import { registry } from '../shared/metrics.js';
import { readyAnswer, type PriceFreshness } from './health.js';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves `metrics()` (this process's, or a cluster's sum) and the health endpoints. */
export async function startMetricsServer(opts: {
  host: string;
  port: number;
  metrics: () => Promise<string>;
  contentType: string;
  database?: Database;
  /** The process's reference prices, once built: /readyz says when the live ones are stale. */
  rates?: () => PriceFreshness | undefined;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET only\n');
    if (path === '/metrics') {
      opts.metrics().then(
        (text) => send(200, opts.contentType, text),
        (err: Error) => send(500, 'text/plain', `metrics unavailable: ${err.message}\n`),
      );
      return;
    }
    if (path === '/healthz') return send(200, 'application/json', '{"status":"ok"}');
    if (path === '/readyz' && opts.database) {
      readyAnswer(opts.database, opts.rates?.()).then(({ code, body }) => send(code, 'application/json', JSON.stringify(body)));
      return;
    }
    send(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: opts.port, host: opts.host }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** This process's metrics. */
export function processMetrics(): { metrics: () => Promise<string>; contentType: string } {
  return { metrics: () => registry.metrics(), contentType: registry.contentType };
}

/** A cluster primary's view: the sum of what its processes answer. */
export function clusterMetrics(): { metrics: () => Promise<string>; contentType: string } {
  const aggregator = new client.AggregatorRegistry();
  return { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType };
}

/** In a process forked by a cluster primary: answer the primary's metric requests from our registry. */
export function answerClusterMetrics(): void {
  // Constructing an aggregator is what makes prom-client listen for the primary's requests in a worker.
  new client.AggregatorRegistry();
  client.AggregatorRegistry.setRegistries([registry]);
}
