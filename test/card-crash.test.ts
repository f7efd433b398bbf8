// A live card payment survives a kill -9 between any two of its steps: initialize sent but Paystack's answer
// not yet recorded; the customer sent to Paystack and the webhook lost while the server is down; a webhook
// received and answered but its verify not finished. After the restart the payment is asked about (verify)
// or its webhook arrives, and the intent is paid exactly once. A real server process on both engines,
// restarted on the same ports (Paystack's webhooks go there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createKey } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

describe(`live card payments across kill -9 (${ENGINE})`, () => {
  let peer: PaystackPeer;
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
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET });
    db = await createTestDatabase();
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    pointWebhooksAt(peer, live);
    env = { ...cardEnv(peer, live, sandbox), COWRIE_PAYSTACK_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
    await start();
    check = openDatabase(db.url);
    const demo = await api(server.sandboxPort, server.demoKey()!, 'GET', '/auth/verify');
    await check.db.updateTable('merchants').set({ kyb_status: 'verified' }).where('id', '=', demo.json.merchant_id).execute();
    liveKey = (await createKey(check.db, systemClock, { merchantId: demo.json.merchant_id, environment: 'live', type: 'secret' })).key;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(procs.map(killHard));
    await check?.close();
    await peer?.close();
    await db?.drop();
  });

  /** A live KES intent and the start of its card payment from the checkout (not awaited: initialize may be held). */
  async function startPayment() {
    const pi = await api(server.livePort, liveKey, 'POST', '/payment-intents', { amount: '250.00', currency: 'KES' });
    expect(pi.status, JSON.stringify(pi.json)).toBe(201);
    const path = new URL(pi.json.checkout_url).pathname;
    const page = await fetch(`http://127.0.0.1:${server.livePort}${path}`);
    const token = /<meta name="checkout-token" content="([^"]+)">/.exec(await page.text())![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const paying = fetch(`http://127.0.0.1:${server.livePort}${path}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-checkout-token': token, cookie },
      body: JSON.stringify({ method: 'card', email: 'crash@example.com' }),
    }).catch((err: unknown) => err);
    return { id: pi.json.id as string, paying };
  }

  const intent = (id: string) =>
    check.db.selectFrom('payment_intents').select(['status', 'provider_reference']).where('id', '=', id).executeTakeFirstOrThrow();
  const railPayments = (id: string) =>
    check.db
      .selectFrom('rail_payments')
      .select(['state', 'provider_reference', 'external_id'])
      .where('payment_intent_id', '=', id)
      .execute();
  const paidEvents = async (id: string) =>
    (
      await check.db
        .selectFrom('events')
        .select('type')
        .where('payment_intent_id', '=', id)
        .where('type', '=', 'payment_intent.paid')
        .execute()
    ).length;
  const initializes = () => peer.requests.filter((r) => r.path === '/transaction/initialize').length;
  const verifies = () => peer.requests.filter((r) => r.path.startsWith('/transaction/verify/')).length;

  async function expectPaidOnce(id: string) {
    await waitFor(
      'the intent paid',
      () => intent(id),
      (row) => row.status === 'paid',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const [rail] = await railPayments(id);
    const tx = peer.transactions.get(rail!.external_id!)!;
    expect(await intent(id)).toMatchObject({ status: 'paid', provider_reference: String(tx.id) });
    expect(await railPayments(id)).toEqual([{ state: 'succeeded', provider_reference: String(tx.id), external_id: tx.reference }]);
    expect(await paidEvents(id)).toBe(1);
  }

  it('killed after initialize was sent, before its answer was recorded: the customer pays, and after the restart it is paid once', async () => {
    peer.holdNext('initialize', 1_500);
    const before = initializes();
    const { id } = await startPayment();
    await waitFor('initialize at Paystack', initializes, (n) => n > before, { intervalMs: 20 });
    await killHard(server);
    const [rail] = await railPayments(id);
    expect(rail).toMatchObject({ state: 'pending' });
    await waitFor('the transaction made at Paystack', () => peer.transactions.has(rail!.external_id!));
    peer.webhookFault = 'never';
    await peer.complete(rail!.external_id!, 'success');
    peer.webhookFault = 'once';
    await start();
    await expectPaidOnce(id);
  }, 60_000);

  it('killed after the redirect, the webhook lost while it was down: verify after the restart pays', async () => {
    const { id, paying } = await startPayment();
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    await killHard(server);
    const [rail] = await railPayments(id);
    await peer.complete(rail!.external_id!, 'success');
    await waitFor(
      'the webhook refused (server down)',
      () => peer.webhooks.at(-1),
      (w) => w?.event === 'charge.success' && w.status === 0,
    );
    await start();
    await expectPaidOnce(id);
  }, 60_000);

  it('killed while a webhook’s verify was in flight: the question after the restart pays it once', async () => {
    const { id, paying } = await startPayment();
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    const [rail] = await railPayments(id);
    peer.holdNext('verify', 10_000);
    const asked = verifies();
    await peer.complete(rail!.external_id!, 'success');
    await waitFor('the confirming verify at Paystack', verifies, (n) => n > asked, { intervalMs: 20 });
    await killHard(server);
    expect((await intent(id)).status).toBe('awaiting_payment');
    await start();
    await expectPaidOnce(id);
  }, 60_000);
});
