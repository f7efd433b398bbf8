// A live card payment survives a kill -9 between any two of its steps: initialize sent but Paystack's answer
// not yet recorded; the customer sent to Paystack and the webhook lost while the server is down; a webhook
// received and answered but its verify not finished. After the restart the payment is asked about (verify)
// or its webhook arrives, and the intent is paid exactly once. A real server process on both engines,
// restarted on the same ports (Paystack's webhooks go there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaystackPeer, type PaystackPeer } from '../peers/paystack/peer.js';
import { cardEnv, PAYSTACK_TEST_SECRET, pointWebhooksAt } from './helpers/card.js';
import { ENGINE } from './helpers/harness.js';
import { serverAcrossKills } from './helpers/rail-crash.js';
import { waitFor } from './helpers/wait.js';

describe(`live card payments across kill -9 (${ENGINE})`, () => {
  let peer: PaystackPeer;
  beforeAll(async () => {
    peer = await startPaystackPeer({ secretKey: PAYSTACK_TEST_SECRET });
  });
  afterAll(async () => {
    await peer?.close();
  });
  const s = serverAcrossKills((live, sandbox) => {
    pointWebhooksAt(peer, live);
    return { ...cardEnv(peer, live, sandbox), COWRIE_PAYSTACK_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
  });
  const { intent, railPayments, paidEvents } = s;

  /** A live KES intent and the start of its card payment from the checkout (not awaited: initialize may be held). */
  const startPayment = () => s.startPayment({ amount: '250.00', currency: 'KES' }, { method: 'card', email: 'crash@example.com' });
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
    expect(await railPayments(id)).toEqual([
      expect.objectContaining({ state: 'succeeded', provider_reference: String(tx.id), external_id: tx.reference }),
    ]);
    expect(await paidEvents(id)).toBe(1);
  }

  it('killed after initialize was sent, before its answer was recorded: the customer pays, and after the restart it is paid once', async () => {
    peer.holdNext('initialize', 1_500);
    const before = initializes();
    const { id } = await startPayment();
    await waitFor('initialize at Paystack', initializes, (n) => n > before, { intervalMs: 20 });
    await s.kill();
    const [rail] = await railPayments(id);
    expect(rail).toMatchObject({ state: 'pending' });
    await waitFor('the transaction made at Paystack', () => peer.transactions.has(rail!.external_id!));
    peer.webhookFault = 'never';
    await peer.complete(rail!.external_id!, 'success');
    peer.webhookFault = 'once';
    await s.start();
    await expectPaidOnce(id);
  }, 60_000);

  it('killed after the redirect, the webhook lost while it was down: verify after the restart pays', async () => {
    const { id, paying } = await startPayment();
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    await s.kill();
    const [rail] = await railPayments(id);
    await peer.complete(rail!.external_id!, 'success');
    await waitFor(
      'the webhook refused (server down)',
      () => peer.webhooks.at(-1),
      (w) => w?.event === 'charge.success' && w.status === 0,
    );
    await s.start();
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
    await s.kill();
    expect((await intent(id)).status).toBe('awaiting_payment');
    await s.start();
    await expectPaidOnce(id);
  }, 60_000);
});
