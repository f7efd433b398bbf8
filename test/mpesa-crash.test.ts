// A live M-Pesa payment survives a kill -9 between any two of its steps: the push sent but Daraja's answer
// not yet recorded; the answer recorded and the callback lost while the server is down; a success callback
// received but not yet confirmed by the STK query. After the restart the payment is asked about (or its
// callback arrives) and the intent is paid exactly once. A success callback is only believed once Daraja's
// STK query confirms it: a made-up one with the right token and CheckoutRequestID pays nothing. A real
// server process on both engines, restarted on the same ports (Daraja calls back there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDarajaPeer, type DarajaPeer } from '../peers/daraja/peer.js';
import { ENGINE } from './helpers/harness.js';
import { serverAcrossKills } from './helpers/rail-crash.js';
import { MPESA_TEST_CREDENTIALS, mpesaEnv, postStkSuccess } from './helpers/mpesa.js';
import { waitFor } from './helpers/wait.js';

describe(`live M-Pesa across kill -9 (${ENGINE})`, () => {
  let peer: DarajaPeer;
  beforeAll(async () => {
    peer = await startDarajaPeer(MPESA_TEST_CREDENTIALS);
  });
  afterAll(async () => {
    await peer?.close();
  });
  const s = serverAcrossKills((live, sandbox) => {
    return { ...mpesaEnv(peer, live, sandbox), COWRIE_MPESA_QUERY_AFTER_S: '1', COWRIE_JOB_INTERVAL_MS: '200' };
  });
  const { intent, railPayments, paidEvents } = s;

  /** A live KES intent and the start of its M-Pesa payment from the checkout (not awaited: the push may be held). */
  const startPayment = (phone: string) => s.startPayment({ amount: '250.00', currency: 'KES' }, { method: 'mpesa', phone });

  async function expectPaidOnce(id: string, receipt: string | null) {
    await waitFor(
      'the intent paid',
      () => intent(id),
      (row) => row.status === 'paid',
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(await intent(id)).toMatchObject({ status: 'paid', provider_reference: receipt });
    expect(await railPayments(id)).toEqual([expect.objectContaining({ state: 'succeeded', provider_reference: receipt })]);
    expect(await paidEvents(id)).toBe(1);
  }

  it('killed after the push was sent, before Daraja answered it: the callback after the restart pays, confirmed', async () => {
    // The callback comes 12 s after the push: after the restart even on a loaded machine (it is sent once;
    // a restart slower than that would lose it, and with no CheckoutRequestID recorded nothing could ask).
    peer.setNextBehaviour({ resultCode: 0, delayMs: 12_000, callback: 'once' });
    peer.holdNext('stkpush', 1_500);
    const before = peer.received.stkpush;
    const { id } = await startPayment('0712000001');
    await waitFor(
      'the push at Daraja',
      () => peer.received.stkpush,
      (n) => n > before,
      { intervalMs: 20 },
    );
    await s.kill();
    expect(await railPayments(id)).toEqual([expect.objectContaining({ state: 'pending', provider_reference: null })]);
    const queries = peer.received.query;
    await s.start();
    const push = peer.pushes.at(-1)!;
    await expectPaidOnce(id, push.receipt);
    expect(peer.received.query, 'the success callback was confirmed by an STK query').toBeGreaterThan(queries);
  }, 60_000);

  it('killed after the answer was recorded, the callback lost meanwhile: the STK query after the restart pays', async () => {
    peer.setNextBehaviour({ resultCode: 0, delayMs: 500, callback: 'never' });
    const { id, paying } = await startPayment('0712000002');
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    await s.kill();
    await s.start();
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
    await s.kill();
    expect((await intent(id)).status).toBe('awaiting_payment');
    await s.start();
    await expectPaidOnce(id, peer.pushes.at(-1)!.receipt);
  }, 60_000);

  it('a made-up success callback with the right token and CheckoutRequestID pays nothing: the STK query says otherwise', async () => {
    peer.setNextBehaviour({ resultCode: 1, delayMs: 200, callback: 'never' });
    const { id, paying } = await startPayment('0712000004');
    expect(((await ((await paying) as Response).json()) as { state: string }).state).toBe('pending');
    const push = peer.pushes.at(-1)!;
    const forged = await postStkSuccess(push, { amount: 250, receipt: 'FAKE123456' });
    expect(forged).toBe(200);
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
    expect(await railPayments(id)).toEqual([expect.objectContaining({ state: 'failed', provider_reference: null })]);
  }, 60_000);
});
