// The HTTP side the chain peers share: a node:http server that reads each request's JSON body, records every
// request, makes the next ones fail on demand (failNext), and serves control methods as POST /__peer/<name>
// with a JSON body (positional arguments as an array, or named fields as an object), so that another process
// can move the chain too. Each peer answers its own protocol's requests and its own failure shape.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  headers: http.IncomingHttpHeaders;
}

/** An answer: a string body goes out as text/plain, anything else as JSON. */
export interface Answer {
  status: number;
  body: unknown;
  /** Extra headers (a page's content type, a redirect's location). */
  headers?: Record<string, string>;
}

/** A control method: called with the arguments of a JSON array body, or the fields of a JSON object body. */
export type ControlMethod = (args: unknown[], fields: Record<string, unknown>) => unknown;

export interface PeerServerOptions {
  host?: string;
  port?: number;
  /** The peer's control methods; `requests` and `failNext` are there already. */
  control: Record<string, ControlMethod>;
  /** The answer of a request that failNext makes fail with `status`. */
  failure(status: number): Answer;
  /**
   * The answer of a protocol request; when `badJson`, its body was not JSON and `req.body` is the raw text.
   * A promise answers when it settles (a peer that answers late).
   */
  answer(req: PeerRequest, query: URLSearchParams, badJson: boolean): Answer | Promise<Answer>;
  /** The content type of JSON answers (default application/json). */
  jsonType?: string;
}

export interface PeerServer {
  url: string;
  port: number;
  /** Every request received, control calls (/__peer/…) excepted. */
  requests: PeerRequest[];
  /** The next n requests (any but /__peer/…) answer `failure(status)`. */
  failNext(n?: number, status?: number): void;
  close(): Promise<void>;
}

export async function startPeerServer(opts: PeerServerOptions): Promise<PeerServer> {
  const host = opts.host ?? '127.0.0.1';
  const requests: PeerRequest[] = [];
  let failures = 0;
  let failStatus = 503;
  const failNext = (n = 1, status = 503) => {
    failures = n;
    failStatus = status;
  };
  const control: Record<string, ControlMethod> = {
    ...opts.control,
    requests: () => requests,
    failNext: (args, fields) => {
      failNext(Number(args[0] ?? fields['n'] ?? 1), Number(args[1] ?? fields['status'] ?? 503));
      return { ok: true };
    },
  };

  const controlCall = (name: string, body: unknown): Answer => {
    const method = Object.hasOwn(control, name) ? control[name] : undefined;
    if (!method) return { status: 404, body: { error: `unknown control method ${name}` } };
    const args = Array.isArray(body) ? body : [];
    const fields = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    try {
      return { status: 200, body: method(args, fields) };
    } catch (e) {
      return { status: 400, body: { error: (e as Error).message } };
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://peer');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = undefined;
      let badJson = false;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
          badJson = true;
        }
      }
      const answered = ((): Answer | Promise<Answer> => {
        const ctl = /^\/__peer\/([A-Za-z]+)$/.exec(url.pathname);
        if (ctl) return badJson ? { status: 400, body: { error: 'invalid JSON' } } : controlCall(ctl[1]!, body);
        const request: PeerRequest = {
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          body,
          headers: req.headers,
        };
        requests.push(request);
        if (failures > 0) {
          failures--;
          return opts.failure(failStatus);
        }
        return opts.answer(request, url.searchParams, badJson);
      })();
      const send = (answer: Answer) => {
        // The client may have gone while a late answer waited.
        if (res.destroyed) return;
        if (typeof answer.body === 'string') {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body);
        } else {
          res.writeHead(answer.status, { 'content-type': opts.jsonType ?? 'application/json', ...answer.headers });
          res.end(JSON.stringify(answer.body));
        }
      };
      if (answered instanceof Promise) void answered.then(send);
      else send(answered);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: opts.port ?? 0, host }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    failNext,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
