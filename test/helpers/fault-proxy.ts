// A real HTTP proxy in front of a real server, for the SDK's retry tests: each request is passed on, or
// answered by the proxy itself, or passed on with its answer thrown away (the connection cut after the
// server ran the request, as a network that fails on the way back does).
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() at arrival. */
  at: number;
}

/** What to do with one request: pass it on, answer it here, or pass it on and then cut the connection. */
export type Fault =
  'pass' | 'cut-after-forward' | 'cut-before-forward' | { status: number; headers?: Record<string, string>; body?: string };

export interface FaultProxy {
  /** The proxy's base URL with /v1, to give the SDK. */
  baseUrl: string;
  requests: ProxiedRequest[];
  /** Decides each request's fate by its index among all requests. */
  setFault(f: (req: ProxiedRequest, index: number) => Fault): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetOrigin: string): Promise<FaultProxy> {
  const target = new URL(targetOrigin);
  const requests: ProxiedRequest[] = [];
  let decide: (req: ProxiedRequest, index: number) => Fault = () => 'pass';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const proxied: ProxiedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      const index = requests.push(proxied) - 1;
      const fault = decide(proxied, index);
      if (fault === 'cut-before-forward') return req.socket.destroy();
      if (typeof fault === 'object') {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        return res.end(fault.body ?? '');
      }
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: proxied.method,
          path: proxied.path,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            // The server ran the request and answered; the client never hears it.
            if (fault === 'cut-after-forward') return req.socket.destroy();
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setFault: (f) => (decide = f),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
