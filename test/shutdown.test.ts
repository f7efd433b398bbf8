// Graceful shutdown of a real server process: on SIGTERM it stops accepting connections, answers the request
// in flight, finishes a webhook attempt that answers within the grace and releases one that does not (due
// again at once, for another worker), and exits 0 within COWRIE_SHUTDOWN_TIMEOUT_MS. Runs on SQLite and
// PostgreSQL.
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { api, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';

const ENV = {
  COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1',
  COWRIE_WEBHOOK_TIMEOUT_MS: '10000',
  COWRIE_WEBHOOK_LEASE_MS: '20000',
  COWRIE_SHUTDOWN_TIMEOUT_MS: '4000',
  // The arrival of a request is a debug line ('incoming request'): the test waits for it.
  COWRIE_LOG_LEVEL: 'debug',
};

describe(`graceful shutdown (${ENGINE})`, () => {
  const procs: ServerProcess[] = [];
  const dbs: TestDatabase[] = [];
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    for (const r of receivers) await r.close();
    for (const d of dbs) await d.drop();
  });

  it('SIGTERM: the request in flight is answered, new connections are refused, attempts finish or are released, exit 0', async () => {
    const db = await createTestDatabase();
    dbs.push(db);
    // The first delivery answers after 1 s (within the 2 s grace: finished); the second after 8 s (cut off
    // and released).
    const rx = await startReceiver((_req, i) => ({ status: 200, delayMs: i === 0 ? 1000 : 8000 }));
    receivers.push(rx);
    const server = await spawnServer(db.url, ENV);
    procs.push(server);
    await server.ready;
    const key = server.demoKey()!;
    const fast = await api(server.sandboxPort, key, 'POST', '/webhook_endpoints', {
      url: `${rx.url}/fast`,
      events: ['payment_intent.created'],
    });
    expect(fast.status).toBe(201);
    await api(server.sandboxPort, key, 'POST', '/payment-intents', { amount: '1.00', currency: 'USD' });
    await rx.waitFor((got) => got.length === 1, 10_000, 'the first delivery');
    await api(server.sandboxPort, key, 'POST', '/payment-intents', { amount: '2.00', currency: 'USD' });
    await rx.waitFor((got) => got.length === 2, 10_000, 'the second delivery');

    // A request in flight: its body is still arriving when the signal comes, and its rest is sent only once
    // new connections are refused.
    const body = JSON.stringify({ name: 'In flight', email: 'flight@example.com' });
    let sendRest!: () => void;
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.sandboxPort,
          path: '/v1/customers',
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      sendRest = () => req.end(body.slice(10));
    });
    await waitFor('the server to have the request in flight', () =>
      server
        .stdout()
        .split('\n')
        .some((line) => line.includes('"incoming request"') && line.includes('"url":"/v1/customers"')),
    );
    const t0 = Date.now();
    server.child.kill('SIGTERM');
    // New connections are refused once it stops accepting, while the request in flight is still open.
    await waitFor('new connections refused', () =>
      fetch(`http://127.0.0.1:${server.sandboxPort}/healthz`).then(
        () => false,
        () => true,
      ),
    );
    expect(server.child.exitCode).toBeNull();
    sendRest();
    const inFlight = await answered;
    expect(inFlight.status, inFlight.text).toBe(201);
    expect(JSON.parse(inFlight.text).name).toBe('In flight');
    const exit = await server.exited;
    const tookMs = Date.now() - t0;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(4000);
    expect(server.stdout()).toContain('"clean":true');

    const d = openDatabase(db.url);
    try {
      const attempts = await d.db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select([
          'webhook_attempts.status_code',
          'webhook_attempts.error',
          'webhook_deliveries.status',
          'webhook_deliveries.next_attempt_at',
        ])
        .orderBy('webhook_attempts.started_at')
        .execute();
      expect(attempts).toHaveLength(2);
      // Finished within the grace
      expect(attempts[0]).toMatchObject({ status_code: 200, error: null, status: 'succeeded' });
      // Cut off and released: due again at once
      expect(attempts[1]!.error).toMatch(/^released/);
      expect(attempts[1]!.status).toBe('pending');
      expect(Number(attempts[1]!.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      const customers = await d.db.selectFrom('customers').select('name').where('name', '=', 'In flight').execute();
      expect(customers).toHaveLength(1);
    } finally {
      await d.close();
    }
  });
});
