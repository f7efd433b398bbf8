// A real local webhook receiver for tests: a node:http server that records every request (raw body,
// headers, arrival time) and answers what the test's handler says.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** performance.now() at arrival. */
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export type Handler = (req: Received, index: number) => Reply | Promise<Reply>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  setHandler(h: Handler): void;
  /** Resolves once `pred` holds on the received list, or rejects after `timeoutMs`. */
  waitFor(pred: (r: Received[]) => boolean, timeoutMs?: number, what?: string): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(handler: Handler = () => ({ status: 200 })): Promise<Receiver> {
  let h = handler;
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        at: performance.now(),
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = received.push(r) - 1;
      for (const w of waiters) w();
      void Promise.resolve(h(r, index)).then(async (reply) => {
        if (reply.delayMs) await new Promise((res2) => setTimeout(res2, reply.delayMs));
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end('ok');
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    setHandler(next) {
      h = next;
    },
    waitFor(pred, timeoutMs = 10_000, what = 'deliveries') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(received)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(received);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${received.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
