// The payment intent state machine (api-reference "States and events"): the documented tables, and every move
// of INTENT_MOVES and every event of INTENT_EVENTS_IN_PLACE driven through the API, with the exact events
// each writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/transaction.js';
import { INTENT_EVENTS_IN_PLACE, INTENT_MOVES, moveIntent } from '../src/modules/payment-intents/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { D, STATUSES, ev, up6, intentOf, record, machine } from './helpers/state-machine.js';

describe(`payment intent state machine (${ENGINE})`, () => {
  let s: TestServer;
  /** Moves (from>to:event) and in-place events (event@status) seen in the events table. */
  const covered = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const { db, ctx, create, simulate, simulateOk, row, attempts, eventRows, eventCount, expectHistory, expectLastEventIsIntent } = machine(
    () => s,
    covered,
  );

  it('has exactly the documented table of moves and in-place events', () => {
    expect(INTENT_MOVES).toEqual({
      created: { awaiting_payment: [ev('created')] },
      awaiting_payment: {
        confirming: [ev('confirming'), ev('review')],
        cancelled: [ev('cancelled')],
        expired: [ev('expired')],
        failed: [ev('failed')],
      },
      confirming: { paid: [ev('paid')], failed: [ev('failed')], awaiting_payment: [ev('payment_failed')] },
      paid: { refunded: [ev('refunded')] },
      expired: {},
      cancelled: {},
      failed: {},
      refunded: {},
    });
    expect(INTENT_EVENTS_IN_PLACE).toEqual({
      [ev('underpaid')]: ['awaiting_payment'],
      [ev('overpaid')]: ['paid'],
      [ev('duplicate_payment')]: ['paid', 'refunded'],
      [ev('disputed')]: ['paid'],
      [ev('dispute_closed')]: ['paid'],
      [ev('payment_failed')]: ['awaiting_payment'],
    });
  });

  describe('moves through the API', () => {
    it('creation: created -> awaiting_payment, payment_intent.created', async () => {
      const pi = await create();
      const [created] = await expectHistory(pi.id, [['created', 'awaiting_payment']]);
      expect(created!.data).toEqual(record(pi));
      expect(created!.created_at).toBe(pi.created_at);
    });

    it('success: awaiting_payment -> confirming -> paid, with the payment recorded', async () => {
      const pi = await create();
      const t0 = Date.now();
      const paid = await simulateOk(pi.id, 'success', 'mpesa');
      expect(paid.status).toBe('paid');
      expect(paid.payment_method).toBe('mpesa');
      expect(paid.amount_received).toBe(pi.pay_amount);
      expect(Date.parse(paid.paid_at)).toBeGreaterThanOrEqual(t0 - 5);
      expect(Date.parse(paid.paid_at)).toBeLessThanOrEqual(Date.now() + 5);
      expect(paid.failure_code).toBeNull();
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
      ]);
      expect(events[1]!.data).toMatchObject({ payment_method: 'mpesa', amount_received: pi.pay_amount, paid_at: null });
      expect(intentOf(events[2]!)).toEqual(record(paid));
      expect(events[2]!.created_at).toBe(paid.paid_at);
      await expectLastEventIsIntent(pi.id);
      const a = await attempts(pi.id);
      expect(a.map((x) => [x.outcome, x.amount, x.payment_method, x.counts_to_caps])).toEqual([['success', pi.pay_amount, 'mpesa', 1]]);
      const r = await row(pi.id);
      expect(r).toMatchObject({ status: 'paid', payment_method: 'mpesa', amount_received: pi.pay_amount });
      expect(Number(r.paid_at)).toBe(Date.parse(paid.paid_at));
    });

    it('overpaid: -> paid, then payment_intent.overpaid with the surplus (default 10 % more)', async () => {
      const pi = await create();
      const received = up6(new D(pi.pay_amount).mul('1.1'));
      const paid = await simulateOk(pi.id, 'overpaid', 'card');
      expect(paid.status).toBe('paid');
      expect(paid.amount_received).toBe(received);
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['overpaid', 'paid'],
      ]);
      expect(events[3]!.data.surplus).toBe(new D(received).minus(pi.pay_amount).toFixed(6));
      await expectLastEventIsIntent(pi.id);
    });

    it('overpaid with an amount: the surplus is exactly the excess; an amount not above the due is 400', async () => {
      const pi = await create();
      const before = await eventCount();
      expectError(await simulate(pi.id, 'overpaid', 'card', pi.pay_amount), 400, 'parameter_invalid', 'amount');
      expectError(await simulate(pi.id, 'overpaid', 'card', '1.000000'), 400, 'parameter_invalid', 'amount');
      expect(await eventCount()).toBe(before);
      expect(await attempts(pi.id)).toEqual([]);
      const over = new D(pi.pay_amount).plus('0.5').toFixed(6);
      const paid = await simulateOk(pi.id, 'overpaid', 'card', over);
      expect(paid.amount_received).toBe(over);
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['overpaid', 'paid'],
      ]);
      expect(events[3]!.data.surplus).toBe('0.500000');
    });

    it('underpaid: stays awaiting_payment and amount_received grows; the rest then pays it', async () => {
      const pi = await create();
      const half = up6(new D(pi.pay_amount).div(2));
      const u1 = await simulateOk(pi.id, 'underpaid', 'mpesa');
      expect(u1.status).toBe('awaiting_payment');
      expect(u1.amount_received).toBe(half);
      expect(u1.paid_at).toBeNull();
      const u2 = await simulateOk(pi.id, 'underpaid', 'mpesa', '1.000000');
      const received = new D(half).plus(1).toFixed(6);
      expect(u2.amount_received).toBe(received);
      expect((await row(pi.id)).amount_received).toBe(received);
      // an "underpayment" of all that is due is refused
      const due = new D(pi.pay_amount).minus(received).toFixed(6);
      expectError(await simulate(pi.id, 'underpaid', 'mpesa', due), 400, 'parameter_invalid', 'amount');
      const paid = await simulateOk(pi.id, 'success', 'mpesa');
      expect(paid.status).toBe('paid');
      expect(paid.amount_received).toBe(pi.pay_amount);
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['underpaid', 'awaiting_payment'],
        ['underpaid', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
      ]);
      expect(events[1]!.data.amount_received).toBe(half);
      expect(events[1]!.data.amount_due).toBe(new D(pi.pay_amount).minus(half).toFixed(6));
      expect(events[2]!.data.amount_received).toBe(received);
      expect(events[2]!.data.amount_due).toBe(due);
      const a = await attempts(pi.id);
      expect(a.map((x) => [x.outcome, x.amount])).toEqual([
        ['underpaid', half],
        ['underpaid', '1.000000'],
        ['success', due],
      ]);
    });

    it('review: awaiting_payment -> confirming with payment_intent.review, then success -> paid', async () => {
      const pi = await create();
      const held = await simulateOk(pi.id, 'review', 'card');
      expect(held.status).toBe('confirming');
      expect(held.payment_method).toBe('card');
      expect(held.amount_received).toBe(pi.pay_amount);
      expect(held.paid_at).toBeNull();
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['review', 'confirming'],
      ]);
      await expectLastEventIsIntent(pi.id);
      expectError(await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`), 409, 'intent_not_cancelable', null);
      const paid = await simulateOk(pi.id, 'success', 'card');
      expect(paid.status).toBe('paid');
      expect(paid.amount_received).toBe(pi.pay_amount);
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['review', 'confirming'],
        ['paid', 'paid'],
      ]);
      await expectLastEventIsIntent(pi.id);
      // the approval adds no money: one attempt counted towards caps
      const a = await attempts(pi.id);
      expect(a.map((x) => [x.outcome, x.counts_to_caps])).toEqual([
        ['review', 1],
        ['success', 0],
      ]);
    });

    it('review then failed: confirming -> failed with failure_code payment_failed', async () => {
      const pi = await create();
      await simulateOk(pi.id, 'review', 'card');
      const failed = await simulateOk(pi.id, 'failed', 'card');
      expect(failed.status).toBe('failed');
      expect(failed.failure_code).toBe('payment_failed');
      expect(failed.paid_at).toBeNull();
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['review', 'confirming'],
        ['failed', 'failed'],
      ]);
      await expectLastEventIsIntent(pi.id);
    });

    it('failed: awaiting_payment -> failed', async () => {
      const pi = await create();
      const failed = await simulateOk(pi.id, 'failed', 'mpesa');
      expect(failed).toMatchObject({ status: 'failed', failure_code: 'payment_failed', amount_received: '0.000000', paid_at: null });
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['failed', 'failed'],
      ]);
      await expectLastEventIsIntent(pi.id);
      expect((await attempts(pi.id)).map((x) => [x.outcome, x.failure_code, x.counts_to_caps])).toEqual([['failed', 'payment_failed', 0]]);
    });

    it('failed attempts: payment_intent.payment_failed in place with last_payment_error; a success clears it', async () => {
      const pi = await create();
      const first = await simulateOk(pi.id, 'attempt_failed', 'card');
      expect(first).toMatchObject({ status: 'awaiting_payment', failure_code: null, paid_at: null });
      expect(first.last_payment_error).toEqual({ code: 'card_declined', message: 'The card was declined.', payment_method: 'card' });
      const r = await s.sandbox('POST', `/sandbox/payment-intents/${pi.id}/simulate`, {
        body: { outcome: 'attempt_failed', payment_method: 'mpesa', failure_code: 'customer_cancelled' },
      });
      expect(r.json.last_payment_error).toEqual({
        code: 'customer_cancelled',
        message: expect.stringMatching(/cancelled/),
        payment_method: 'mpesa',
      });
      const paid = await simulateOk(pi.id, 'success', 'card');
      expect(paid).toMatchObject({ status: 'paid', last_payment_error: null, failure_code: null });
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['payment_failed', 'awaiting_payment'],
        ['payment_failed', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
      ]);
      await expectLastEventIsIntent(pi.id);
      const outcomes = (await attempts(pi.id)).map((x) => [x.outcome, x.failure_code, x.counts_to_caps]);
      expect(outcomes).toEqual([
        ['attempt_failed', 'card_declined', 0],
        ['attempt_failed', 'customer_cancelled', 0],
        ['success', null, 1],
      ]);
    });

    it('the fifth failed attempt fails the intent with the last failure code', async () => {
      const pi = await create();
      for (let i = 1; i <= 4; i++) expect((await simulateOk(pi.id, 'attempt_failed', 'card')).status).toBe('awaiting_payment');
      const r = await s.sandbox('POST', `/sandbox/payment-intents/${pi.id}/simulate`, {
        body: { outcome: 'attempt_failed', payment_method: 'card', failure_code: 'insufficient_funds' },
      });
      expect(r.json).toMatchObject({ status: 'failed', failure_code: 'insufficient_funds' });
      expect(r.json.last_payment_error.code).toBe('insufficient_funds');
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ...Array.from({ length: 5 }, (): [string, 'awaiting_payment'] => ['payment_failed', 'awaiting_payment']),
        ['failed', 'failed'],
      ]);
      expectError(await simulate(pi.id, 'success', 'card'), 409, 'intent_not_payable', null);
    });

    it('cancelled (simulated): awaiting_payment -> cancelled', async () => {
      const pi = await create();
      const t0 = Date.now();
      const c = await simulateOk(pi.id, 'cancelled', 'mpesa');
      expect(c.status).toBe('cancelled');
      expect(Date.parse(c.cancelled_at)).toBeGreaterThanOrEqual(t0 - 5);
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['cancelled', 'cancelled'],
      ]);
      expect(events[1]!.created_at).toBe(c.cancelled_at);
      await expectLastEventIsIntent(pi.id);
    });

    it('cancel endpoint: awaiting_payment -> cancelled', async () => {
      const pi = await create();
      const r = await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.status).toBe('cancelled');
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['cancelled', 'cancelled'],
      ]);
      await expectLastEventIsIntent(pi.id);
    });

    it('expired (simulated): awaiting_payment -> expired at once', async () => {
      const pi = await create();
      const t0 = Date.now();
      const e = await simulateOk(pi.id, 'expired', 'service_balance');
      expect(e.status).toBe('expired');
      const at = Date.parse(e.expires_at);
      expect(at).toBeGreaterThanOrEqual(t0 - 5);
      expect(at).toBeLessThan(Date.parse(pi.expires_at));
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['expired', 'expired'],
      ]);
      expect(events[1]!.created_at).toBe(e.expires_at);
      await expectLastEventIsIntent(pi.id);
    });

    it('duplicate, and success or overpaid of a paid intent: payment_intent.duplicate_payment, still paid', async () => {
      const pi = await create();
      const paid = await simulateOk(pi.id, 'success', 'mpesa');
      const d1 = await simulateOk(pi.id, 'duplicate', 'card');
      expect(record(d1)).toEqual(record(paid));
      await simulateOk(pi.id, 'success', 'service_balance');
      await simulateOk(pi.id, 'overpaid', 'mpesa', '3.000000');
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['duplicate_payment', 'paid'],
        ['duplicate_payment', 'paid'],
        ['duplicate_payment', 'paid'],
      ]);
      expect(events.slice(3).map((e) => [e.data.duplicate_amount, e.data.duplicate_payment_method])).toEqual([
        [pi.pay_amount, 'card'],
        [pi.pay_amount, 'service_balance'],
        ['3.000000', 'mpesa'],
      ]);
      // a duplicate neither adds to amount_received nor changes the method that paid
      expect(await row(pi.id)).toMatchObject({ status: 'paid', amount_received: pi.pay_amount, payment_method: 'mpesa' });
      await expectLastEventIsIntent(pi.id);
      expect((await attempts(pi.id)).map((x) => x.outcome)).toEqual(['success', 'duplicate', 'duplicate', 'duplicate']);
    });

    it('dispute of a card or PayPal payment: payment_intent.disputed, still paid; closed: payment_intent.dispute_closed', async () => {
      const card = await create();
      await simulateOk(card.id, 'success', 'card');
      const disputed = await simulateOk(card.id, 'dispute', 'card');
      expect(disputed.status).toBe('paid');
      expect((await simulateOk(card.id, 'dispute_won', 'card')).dispute.status).toBe('won');
      await expectHistory(card.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['disputed', 'paid'],
        ['dispute_closed', 'paid'],
      ]);
      await expectLastEventIsIntent(card.id);

      const paypal = await create({ amount: '25', currency: 'USD' });
      await simulateOk(paypal.id, 'success', 'paypal');
      expect((await simulateOk(paypal.id, 'dispute', 'paypal')).status).toBe('paid');
      expect((await eventRows(paypal.id)).map((r) => r.type).at(-1)).toBe(ev('disputed'));
    });

    it('refunded (no refunds API yet: moved with moveIntent), then a duplicate payment of the refunded intent', async () => {
      const pi = await create();
      await simulateOk(pi.id, 'success', 'card');
      const paidRow = await row(pi.id);
      const at = Date.now();
      const moved = await transaction(db(), (tx) => moveIntent(tx, ctx(), paidRow, 'refunded', { at }));
      expect(moved.status).toBe('refunded');
      expect((await row(pi.id)).status).toBe('refunded');
      const got = await s.sandbox('GET', `/payment-intents/${pi.id}`);
      expect(got.json.status).toBe('refunded');
      await simulateOk(pi.id, 'duplicate', 'card');
      await simulateOk(pi.id, 'success', 'card');
      await simulateOk(pi.id, 'overpaid', 'card', '50.000000');
      const events = await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['refunded', 'refunded'],
        ['duplicate_payment', 'refunded'],
        ['duplicate_payment', 'refunded'],
        ['duplicate_payment', 'refunded'],
      ]);
      expect(events[3]!.created_at).toBe(new Date(at).toISOString());
      expect(events[6]!.data.duplicate_amount).toBe('50.000000');
      await expectLastEventIsIntent(pi.id);
    });

    it('on chain: a transfer seen moves to confirming, removed by a reorganisation moves back, seen again and deep enough pays', async () => {
      const pi = await create({ amount: '100', currency: 'USD', settlement_currency: 'USDT' });
      const scope = { merchantId: s.merchant.merchant.id, environment: 'test' as const };
      const payments = s.running.services.payments;
      const report = (outcome: 'seen' | 'reversed' | 'success', tx: string) =>
        payments.apply(scope, { intentId: pi.id, method: 'external_wallet', outcome, amount: D(pi.pay_amount), providerReference: tx });
      const seen = await report('seen', '0xaaa');
      expect(seen).toMatchObject({ status: 'confirming', provider_reference: '0xaaa', amount_received: pi.pay_amount });
      expect((await attempts(pi.id)).map((a) => [a.outcome, a.counts_to_caps])).toEqual([['seen', 1]]);
      // Only the transfer that is confirming it can take it back.
      await expect(report('reversed', '0xbbb')).rejects.toMatchObject({ code: 'intent_not_payable' });
      const back = await report('reversed', '0xaaa');
      expect(back).toMatchObject({
        status: 'awaiting_payment',
        provider_reference: null,
        payment_method: null,
        amount_received: '0.000000',
      });
      expect(JSON.parse(back.last_payment_error!)).toEqual({
        code: 'provider_error',
        message: 'The transfer 0xaaa was removed from the chain by a reorganisation before it was confirmed; it did not pay.',
        payment_method: 'external_wallet',
      });
      // Its money no longer counts towards the receiving caps; a reversal is not one of the five failed attempts.
      expect((await attempts(pi.id)).map((a) => [a.outcome, a.counts_to_caps]).sort()).toEqual([
        ['reversed', 0],
        ['seen', 0],
      ]);
      await report('seen', '0xccc');
      const paid = await report('success', '0xccc');
      expect(paid).toMatchObject({ status: 'paid', provider_reference: '0xccc', last_payment_error: null, amount_received: pi.pay_amount });
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['payment_failed', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
      ]);
      await expectLastEventIsIntent(pi.id);
      // The sandbox driver cannot report the chain's own outcomes.
      expect((await simulate(pi.id, 'seen' as never, 'external_wallet')).json.error.param).toBe('outcome');
    });

    it('exercised every move of INTENT_MOVES and every event of INTENT_EVENTS_IN_PLACE', () => {
      const missing: string[] = [];
      for (const from of STATUSES) {
        for (const [to, types] of Object.entries(INTENT_MOVES[from])) {
          for (const type of types ?? []) if (!covered.has(`${from}>${to}:${type}`)) missing.push(`${from}>${to}:${type}`);
        }
      }
      for (const [type, statuses] of Object.entries(INTENT_EVENTS_IN_PLACE)) {
        for (const st of statuses ?? []) if (!covered.has(`${type}@${st}`)) missing.push(`${type}@${st}`);
      }
      expect(missing).toEqual([]);
      // and nothing outside the table was ever recorded
      const allowed = new Set<string>();
      for (const from of STATUSES)
        for (const [to, types] of Object.entries(INTENT_MOVES[from])) for (const t of types ?? []) allowed.add(`${from}>${to}:${t}`);
      for (const [t, sts] of Object.entries(INTENT_EVENTS_IN_PLACE)) for (const st of sts ?? []) allowed.add(`${t}@${st}`);
      expect([...covered].filter((c) => !allowed.has(c))).toEqual([]);
    });
  });
});
