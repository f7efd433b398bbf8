// The payment intent state machine: every combination of status and outcome outside the documented tables is
// refused with 409 and writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/db/transaction.js';
import { moveIntent } from '../src/modules/payment-intents/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { OUTCOMES, type Outcome, machine } from './helpers/state-machine.js';

describe(`payment intent state machine (${ENGINE})`, () => {
  let s: TestServer;
  /** Moves (from>to:event) and in-place events (event@status) seen in the events table. */
  const covered = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const { db, ctx, create, simulate, simulateOk, row, attempts, eventRows, eventCount } = machine(() => s, covered);

  describe('every other combination is refused and writes nothing', () => {
    /** Outcomes that the documented table allows from each status (with the intent's method). */
    const LEGAL: Record<string, readonly Outcome[]> = {
      awaiting_payment: ['success', 'failed', 'attempt_failed', 'underpaid', 'overpaid', 'expired', 'cancelled', 'review'],
      confirming: ['success', 'failed'],
      paid_by_balance: ['success', 'overpaid', 'duplicate'],
      paid_by_card: ['success', 'overpaid', 'duplicate', 'dispute'],
      refunded: ['success', 'overpaid', 'duplicate'],
      expired: [],
      cancelled: [],
      failed: [],
    };

    async function intentIn(state: string): Promise<string> {
      const pi = await create();
      switch (state) {
        case 'awaiting_payment':
          break;
        case 'confirming':
          await simulateOk(pi.id, 'review', 'card');
          break;
        case 'paid_by_balance':
          await simulateOk(pi.id, 'success', 'service_balance');
          break;
        case 'paid_by_card':
          await simulateOk(pi.id, 'success', 'card');
          break;
        case 'refunded':
          await simulateOk(pi.id, 'success', 'card');
          await transaction(db(), async (tx) => moveIntent(tx, ctx(), await row(pi.id), 'refunded', { at: Date.now() }));
          break;
        case 'expired':
          await simulateOk(pi.id, 'expired', 'card');
          break;
        case 'cancelled':
          expect((await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`)).status).toBe(200);
          break;
        case 'failed':
          await simulateOk(pi.id, 'failed', 'card');
          break;
      }
      return pi.id;
    }

    it.each(Object.keys(LEGAL))('from %s: 409 intent_not_payable for every outcome the table does not allow', async (state) => {
      const id = await intentIn(state);
      const status = (await row(id)).status;
      const before = { row: await row(id), events: await eventRows(id), attempts: await attempts(id), all: await eventCount() };
      const illegal = OUTCOMES.filter((o) => !LEGAL[state]!.includes(o));
      expect(illegal.length).toBeGreaterThan(0);
      for (const outcome of illegal) {
        for (const method of ['card', 'service_balance']) {
          const r = await simulate(id, outcome, method);
          expectError(r, 409, 'intent_not_payable', null);
          expect(r.json.environment).toBe('test');
        }
      }
      expect(await row(id)).toEqual(before.row);
      expect(await eventRows(id)).toEqual(before.events);
      expect(await attempts(id)).toEqual(before.attempts);
      expect(await eventCount()).toBe(before.all);
      // cancel: only from awaiting_payment
      const cancel = await s.sandbox('POST', `/payment-intents/${id}/cancel`);
      if (status === 'awaiting_payment') {
        expect(cancel.status, cancel.text).toBe(200);
      } else {
        expectError(cancel, 409, 'intent_not_cancelable', null);
        expect(cancel.json.error.message).toContain(status);
        expect(await row(id)).toEqual(before.row);
        expect(await eventCount()).toBe(before.all);
      }
    });

    it('refuses a method the intent does not allow: 400 payment_method_unavailable, param payment_method', async () => {
      const kes = await create();
      const only = await create({ amount: '10', currency: 'USD', payment_methods: ['card'] });
      const before = await eventCount();
      expectError(await simulate(kes.id, 'success', 'paypal'), 400, 'payment_method_unavailable', 'payment_method');
      expectError(await simulate(only.id, 'success', 'service_balance'), 400, 'payment_method_unavailable', 'payment_method');
      expectError(await simulate(only.id, 'success', 'paypal'), 400, 'payment_method_unavailable', 'payment_method');
      expect(await eventCount()).toBe(before);
      expect(await attempts(kes.id)).toEqual([]);
      expect((await row(only.id)).status).toBe('awaiting_payment');
    });

    it('validates the simulate body and answers 404 for an intent that is not this merchant’s', async () => {
      const pi = await create();
      const body = (b: unknown) => s.sandbox('POST', `/sandbox/payment-intents/${pi.id}/simulate`, { body: b });
      expectError(await body({ outcome: 'win', payment_method: 'card' }), 400, 'parameter_invalid', 'outcome');
      expectError(await body({ payment_method: 'card' }), 400, 'parameter_missing', 'outcome');
      expectError(await body({ outcome: 'success' }), 400, 'parameter_missing', 'payment_method');
      expectError(await body({ outcome: 'success', payment_method: 'cash' }), 400, 'parameter_invalid', 'payment_method');
      expectError(await body({ outcome: 'underpaid', payment_method: 'card', amount: 1 }), 400, 'parameter_invalid', 'amount');
      expectError(await body({ outcome: 'underpaid', payment_method: 'card', amount: '0.0000001' }), 400, 'parameter_invalid', 'amount');
      expectError(await body({ outcome: 'underpaid', payment_method: 'card', amount: '0' }), 400, 'parameter_invalid', 'amount');
      expectError(await body({ outcome: 'success', payment_method: 'card', extra: 1 }), 400, 'parameter_unknown', 'extra');
      expect(await eventRows(pi.id)).toHaveLength(1);
      expect(await attempts(pi.id)).toEqual([]);
      expectError(await simulate('pi_000000000000000000000000', 'success'), 404, 'resource_missing', 'id');
      const other = await s.newMerchant({ name: 'Someone else' });
      const theirs = await s.call('test', 'POST', '/payment-intents', {
        key: other.keys.test_secret,
        body: { amount: '10', currency: 'USD' },
      });
      expectError(await simulate(theirs.json.id, 'success'), 404, 'resource_missing', 'id');
      expect((await row(theirs.json.id)).status).toBe('awaiting_payment');
    });
  });
});
