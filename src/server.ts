// The HTTP listeners. One Fastify app serves both environments: each listener tags its requests with
// the environment its address serves; when both share one port, the Host header decides (context.ts).
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { LISTENER_ENV, type ListenerRequest } from './http/context.js';
import { logContext } from './shared/log-context.js';
import type { Environment } from './shared/scope.js';

export interface Listener {
  environment: Environment | 'shared';
  address: string;
  port: number;
  server: http.Server;
}

export interface Listeners {
  listeners: Listener[];
  /** Port actually bound for an environment (useful with port 0). */
  portOf(environment: Environment): number;
  close(): Promise<void>;
}

/** Every address a host name resolves to: `localhost` binds both 127.0.0.1 and ::1. */
async function bindAddresses(host: string): Promise<string[]> {
  if (host === 'localhost') {
    const found = await lookup('localhost', { all: true });
    const addrs = [...new Set(found.map((a) => a.address))];
    return addrs.length > 0 ? addrs : ['127.0.0.1'];
  }
  return [host];
}

function listen(server: http.Server, port: number, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: address }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startListeners(app: FastifyInstance, config: Config): Promise<Listeners> {
  await app.ready();
  const plan: Array<{ environment: Environment | 'shared'; port: number }> =
    config.livePort === config.sandboxPort && config.livePort !== 0
      ? [{ environment: 'shared', port: config.livePort }]
      : [
          { environment: 'live', port: config.livePort },
          { environment: 'test', port: config.sandboxPort },
        ];
  const addresses = await bindAddresses(config.host);
  const listeners: Listener[] = [];
  try {
    for (const { environment, port } of plan) {
      let bound = port;
      for (const address of addresses) {
        const server = http.createServer((req, res) => {
          if (environment !== 'shared') (req as ListenerRequest)[LISTENER_ENV] = environment;
          // Every log line written while this request is handled carries its id (shared/log-context.ts).
          logContext.run({}, () => app.routing(req, res));
        });
        server.requestTimeout = 60_000;
        server.keepAliveTimeout = 65_000;
        server.on('clientError', (_err, socket) => {
          if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
          else socket.destroy();
        });
        // With port 0 the first address picks a port; the others share it.
        bound = await listen(server, bound, address);
        listeners.push({ environment, address, port: bound, server });
      }
    }
  } catch (err) {
    await Promise.all(listeners.map((l) => closeServer(l.server)));
    throw err;
  }
  return {
    listeners,
    portOf(environment) {
      const l = listeners.find((x) => x.environment === environment || x.environment === 'shared');
      if (!l) throw new Error(`no listener for ${environment}`);
      return l.port;
    },
    close: () => Promise.all(listeners.map((l) => closeServer(l.server))).then(() => undefined),
  };
}

/**
 * Stops accepting connections and resolves once every request in flight has been answered: idle
 * keep-alive connections are closed at once, and busy ones once their response is out (swept every 50 ms).
 */
function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Cuts every connection of the listeners (the shutdown timeout ran out with requests still in flight). */
export function forceCloseListeners(listeners: Listeners): void {
  for (const l of listeners.listeners) l.server.closeAllConnections();
}
