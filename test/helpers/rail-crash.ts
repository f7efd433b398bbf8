// A live rail's payment across kill -9 (the M-Pesa, card and PayPal crash tests): a real server process on a
// fresh database, the demo merchant verified with a live secret key, restarted on the same ports (the
// provider's peer calls back there), a second connection that reads what the server wrote, and the start of a
// payment from the hosted checkout, not awaited (the provider's answer may be held).
import { afterAll, beforeAll, expect } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createKey } from '../../src/modules/merchants/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from './harness.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './server-process.js';

export interface ServerAcrossKills {
  /** The server process running now (the last one started). */
  readonly server: ServerProcess;
  /** Starts the server again (on the same ports) and waits until it is ready. */
  start(): Promise<ServerProcess>;
  /** kill -9 of the running server. */
  kill(): Promise<void>;
  /** A live intent, and its payment started from the checkout with `pay` as the pay call's body. */
  startPayment(
    intent: { amount: string; currency: string },
    pay: Record<string, unknown>,
  ): Promise<{ id: string; paying: Promise<unknown> }>;
  intent(id: string): Promise<{ status: string; provider_reference: string | null; last_payment_error: string | null }>;
  railPayments(id: string): Promise<Array<{ id: string; state: string; provider_reference: string | null; external_id: string | null }>>;
  /** How many payment_intent.paid events the intent has. */
  paidEvents(id: string): Promise<number>;
}

/**
 * Registers the suite's beforeAll and afterAll (after the peer's, so that the peer is up first and the
 * servers are killed before it closes). `envFor` gives the server's environment for its two ports.
 */
export function serverAcrossKills(envFor: (live: number, sandbox: number) => Record<string, string>): ServerAcrossKills {
  let db: TestDatabase;
  let check: Database;
  let env: Record<string, string>;
  let server: ServerProcess;
  let liveKey: string;
  const procs: ServerProcess[] = [];

  const start = async () => {
    server = await spawnServer(db.url, env);
    procs.push(server);
    await server.ready;
    return server;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    env = envFor(live, sandbox);
    await start();
    check = openDatabase(db.url);
    const demo = await api(server.sandboxPort, server.demoKey()!, 'GET', '/auth/verify');
    await check.db.updateTable('merchants').set({ kyb_status: 'verified' }).where('id', '=', demo.json.merchant_id).execute();
    liveKey = (await createKey(check.db, systemClock, { merchantId: demo.json.merchant_id, environment: 'live', type: 'secret' })).key;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await db?.drop();
  });

  return {
    get server() {
      return server;
    },
    start,
    kill: () => killHard(server),
    async startPayment(intent, pay) {
      const pi = await api(server.livePort, liveKey, 'POST', '/payment-intents', intent);
      expect(pi.status, JSON.stringify(pi.json)).toBe(201);
      const path = new URL(pi.json.checkout_url).pathname;
      const page = await fetch(`http://127.0.0.1:${server.livePort}${path}`);
      const token = /<meta name="checkout-token" content="([^"]+)">/.exec(await page.text())![1]!;
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      const paying = fetch(`http://127.0.0.1:${server.livePort}${path}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-checkout-token': token, cookie },
        body: JSON.stringify(pay),
      }).catch((err: unknown) => err);
      return { id: pi.json.id as string, paying };
    },
    intent: (id) =>
      check.db
        .selectFrom('payment_intents')
        .select(['status', 'provider_reference', 'last_payment_error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    railPayments: (id) =>
      check.db
        .selectFrom('rail_payments')
        .select(['id', 'state', 'provider_reference', 'external_id'])
        .where('payment_intent_id', '=', id)
        .orderBy('id')
        .execute(),
    async paidEvents(id) {
      const rows = await check.db
        .selectFrom('events')
        .select('type')
        .where('payment_intent_id', '=', id)
        .where('type', '=', 'payment_intent.paid')
        .execute();
      return rows.length;
    },
  };
}
