// A live PayPal payment survives a kill -9 between any two of its steps: the order created at PayPal but its
// answer not yet recorded (PayPal-Request-Id = the attempt's id gives the same order back after the
// restart); the customer approved at PayPal with the server down and the approval webhook lost; the capture
// in flight when the server died (`capture-<attempt id>` makes the capture after the restart the same one).
// After the restart the order is looked up, captured and the intent paid exactly once. A real server process
// on both engines, restarted on the same ports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaypalPeer, type PaypalPeer } from '../peers/paypal/peer.js';
import { ENGINE } from './helpers/harness.js';
import { serverAcrossKills } from './helpers/rail-crash.js';
import { PAYPAL_TEST, paypalEnv, pointPaypalWebhooksAt } from './helpers/paypal.js';
import { waitFor } from './helpers/wait.js';

describe(`live PayPal payments across kill -9 (${ENGINE})`, () => {
  let peer: PaypalPeer;
  beforeAll(async () => {
    peer = await startPaypalPeer(PAYPAL_TEST);
  });
  afterAll(async () => {
    await peer?.close();
  });
  const s = serverAcrossKills((live, sandbox) => {
    pointPaypalWebhooksAt(peer, live);
    return { ...paypalEnv(peer, live, sandbox), COWRIE_PAYPAL_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
  });
  const { intent, railPayments, paidEvents } = s;

  /** A live USD intent and the start of its PayPal payment from the checkout (not awaited: the create may be held). */
  const startPayment = () => s.startPayment({ amount: '35.00', currency: 'USD' }, { method: 'paypal' });
  const orderOf = (attempt: string) => [...peer.orders.values()].find((o) => o.customId === attempt);

  async function expectPaidOnce(id: string) {
    await waitFor(
      'the intent paid',
      () => intent(id),
      (row) => row.status === 'paid',
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const [rail] = await railPayments(id);
    const order = orderOf(rail!.id)!;
    expect(order.capture).not.toBeNull();
    expect(await intent(id)).toMatchObject({ status: 'paid', provider_reference: order.capture!.id });
    expect(await railPayments(id)).toEqual([
      { id: rail!.id, state: 'succeeded', provider_reference: order.capture!.id, external_id: order.id },
    ]);
    expect(await paidEvents(id)).toBe(1);
    expect([...peer.orders.values()].filter((o) => o.customId === rail!.id)).toHaveLength(1);
  }

  it('killed after the order was created, before its answer was recorded: the customer approves, and after the restart it is paid once', async () => {
    peer.holdNext('create', 1_500);
    const creates = () => peer.requests.filter((q) => q.method === 'POST' && q.path === '/v2/checkout/orders').length;
    const before = creates();
    const { id } = await startPayment();
    await waitFor('the order asked of PayPal', creates, (n) => n > before, { intervalMs: 20 });
    await s.kill();
    const [rail] = await railPayments(id);
    expect(rail).toMatchObject({ state: 'pending', external_id: null });
    const order = await waitFor(
      'the order made at PayPal',
      () => orderOf(rail!.id),
      (o) => o !== undefined,
    );
    peer.webhookFault = 'never';
    peer.approve(order!.id);
    peer.webhookFault = 'once';
    await s.start();
    await expectPaidOnce(id);
  }, 90_000);

  it('killed after the redirect, the approval webhook lost while it was down: the look-up after the restart captures and pays', async () => {
    const { id, paying } = await startPayment();
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    await s.kill();
    const [rail] = await railPayments(id);
    peer.approve(orderOf(rail!.id)!.id);
    await waitFor(
      'the webhook refused (server down)',
      () => peer.webhooks.at(-1),
      (w) => w?.event === 'CHECKOUT.ORDER.APPROVED' && w.status === 0,
    );
    await s.start();
    await expectPaidOnce(id);
  }, 90_000);

  it('killed while the capture was in flight: the capture after the restart is the same one, paid once', async () => {
    const { id, paying } = await startPayment();
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    const [rail] = await railPayments(id);
    peer.holdNext('capture', 3_000);
    peer.webhookFault = 'never';
    const back = new URL(peer.approve(orderOf(rail!.id)!.id));
    void fetch(`http://127.0.0.1:${s.server.livePort}${back.pathname}${back.search}`, { redirect: 'manual' }).catch(() => undefined);
    await waitFor(
      'the capture at PayPal',
      () => peer.requests.some((q) => q.path.endsWith('/capture') && q.headers['paypal-request-id'] === `capture-${rail!.id}`),
      (x) => x,
      { intervalMs: 20 },
    );
    await s.kill();
    peer.webhookFault = 'once';
    expect((await intent(id)).status).toBe('awaiting_payment');
    await s.start();
    await expectPaidOnce(id);
  }, 90_000);
});
