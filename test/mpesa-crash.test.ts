// A live M-Pesa payment survives a kill -9 between any two of its steps: the push sent but Daraja's answer
// not yet recorded; the answer recorded and the callback lost while the server is down; a success callback
// received but not yet confirmed by the STK query. After the restart the payment is asked about (or its
// callback arrives) and the intent is paid exactly once. A success callback is only believed once Daraja's
// STK query confirms it: a made-up one with the right token and CheckoutRequestID pays nothing. A real
// server process on both engines, restarted on the same ports (Daraja calls back there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createKey } from '../src/modules/merchants/index.js';
import { systemClock } from '../src/shared/clock.js';
import { createTestDatabase, ENGINE, type TestDatabase } from './helpers/harness.js';
import { MPESA_TEST_CREDENTIALS, mpesaEnv } from './helpers/mpesa.js';
import { api, freePorts, killHard, spawnServer, type ServerProcess } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

describe(`live M-Pesa across kill -9 (${ENGINE})`, () => {
  let peer: DarajaPeer;
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
    peer = await startDarajaPeer(MPESA_TEST_CREDENTIALS);
    db = await createTestDatabase();
    const [live, sandbox] = (await freePorts(2)) as [number, number];
    env = { ...mpesaEnv(peer, live, sandbox), COWRIE_MPESA_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
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

  /** A live KES intent and the start of its M-Pesa payment from the checkout (not awaited: the push may be held). */
  async function startPayment(phone: string) {
    const pi = await api(server.livePort, liveKey, 'POST', '/payment-intents', { amount: '250.00', currency: 'KES' });
    expect(pi.status, JSON.stringify(pi.json)).toBe(201);
    const path = new URL(pi.json.checkout_url).pathname;
    const page = await fetch(`http://127.0.0.1:${server.livePort}${path}`);
    const token = /<meta name="checkout-token" content="([^"]+)">/.exec(await page.text())![1]!;
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const paying = fetch(`http://127.0.0.1:${server.livePort}${path}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-checkout-token': token, cookie },
      body: JSON.stringify({ method: 'mpesa', phone }),
    }).catch((err: unknown) => err);
    return { id: pi.json.id as string, paying };
  }

  const intent = (id: string) =>
    check.db
      .selectFrom('payment_intents')
      .select(['status', 'provider_reference', 'last_payment_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const railPayments = (id: string) =>
    check.db.selectFrom('rail_payments').select(['state', 'provider_reference']).where('payment_intent_id', '=', id).execute();
  const paidEvents = async (id: string) =>
    (
      await check.db
        .selectFrom('events')
        .select('type')
        .where('payment_intent_id', '=', id)
        .where('type', '=', 'payment_intent.paid')
        .execute()
    ).length;

  async function expectPaidOnce(id: string, receipt: string | null) {
    await waitFor(
      'the intent paid',
      () => intent(id),
      (row) => row.status === 'paid',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(await intent(id)).toMatchObject({ status: 'paid', provider_reference: receipt });
    expect(await railPayments(id)).toEqual([{ state: 'succeeded', provider_reference: receipt }]);
    expect(await paidEvents(id)).toBe(1);
  }

  it('killed after the push was sent, before Daraja answered it: the callback after the restart pays, confirmed', async () => {
    peer.setNextBehaviour({ resultCode: 0, delayMs: 6_000, callback: 'once' });
    peer.holdNext('stkpush', 1_500);
    const before = peer.received.stkpush;
    const { id } = await startPayment('0712000001');
    await waitFor(
      'the push at Daraja',
      () => peer.received.stkpush,
      (n) => n > before,
      { intervalMs: 20 },
    );
    await killHard(server);
    expect(await railPayments(id)).toEqual([{ state: 'pending', provider_reference: null }]);
    const queries = peer.received.query;
    await start();
    const push = peer.pushes.at(-1)!;
    await expectPaidOnce(id, push.receipt);
    expect(peer.received.query, 'the success callback was confirmed by an STK query').toBeGreaterThan(queries);
  }, 60_000);

  it('killed after the answer was recorded, the callback lost meanwhile: the STK query after the restart pays', async () => {
    peer.setNextBehaviour({ resultCode: 0, delayMs: 500, callback: 'never' });
    const { id, paying } = await startPayment('0712000002');
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    await killHard(server);
    await start();
    // The STK query tells no receipt number (only a callback does).
    await expectPaidOnce(id, null);
  }, 60_000);

  it('killed while a success callback was being confirmed: the question after the restart pays it once', async () => {
    peer.setNextBehaviour({ resultCode: 0, delayMs: 300, callback: 'once' });
    const { id, paying } = await startPayment('0712000003');
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    // The confirming STK query hangs at Daraja; the server dies while it waits.
    peer.holdNext('query', 10_000);
    const queries = peer.received.query;
    await waitFor(
      'the confirming STK query at Daraja',
      () => peer.received.query,
      (n) => n > queries,
      { intervalMs: 20 },
    );
    await killHard(server);
    expect((await intent(id)).status).toBe('awaiting_payment');
    await start();
    await expectPaidOnce(id, peer.pushes.at(-1)!.receipt);
  }, 60_000);

  it('a made-up success callback with the right token and CheckoutRequestID pays nothing: the STK query says otherwise', async () => {
    peer.setNextBehaviour({ resultCode: 1, delayMs: 200, callback: 'never' });
    const { id, paying } = await startPayment('0712000004');
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    const push = peer.pushes.at(-1)!;
    const forged = await fetch(String(push.body['CallBackURL']), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        Body: {
          stkCallback: {
            MerchantRequestID: push.merchantRequestId,
            CheckoutRequestID: push.checkoutRequestId,
            ResultCode: 0,
            ResultDesc: 'The service request is processed successfully.',
            CallbackMetadata: {
              Item: [
                { Name: 'Amount', Value: 250 },
                { Name: 'MpesaReceiptNumber', Value: 'FAKE123456' },
                { Name: 'PhoneNumber', Value: 254712000004 },
              ],
            },
          },
        },
      }),
    });
    expect(forged.status).toBe(200);
    const row = await waitFor(
      'the attempt failed as Daraja says',
      () => intent(id),
      (r) => r.last_payment_error !== null,
      {
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    );
    expect(row.status).toBe('awaiting_payment');
    expect(row.provider_reference).toBeNull();
    expect(JSON.parse(row.last_payment_error!)).toMatchObject({ code: 'insufficient_funds', payment_method: 'mpesa' });
    expect(await paidEvents(id)).toBe(0);
    expect(await railPayments(id)).toEqual([{ state: 'failed', provider_reference: null }]);
  }, 60_000);
});
