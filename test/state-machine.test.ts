// The payment intent state machine (spec 3.1, 6.1, 6.3; DECISIONS "Payment intents", "Sandbox test
// helpers"; api-reference "States and events", "Sandbox helpers"): every move of INTENT_MOVES and every
// event of INTENT_EVENTS_IN_PLACE driven through the API, with the exact events each writes; every other
// combination refused with 409 and nothing written; and moveIntent itself (illegal moves, stale rows).
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentIntentRow } from '../src/db/schema.js';
import { transaction } from '../src/db/transaction.js';
import type { EventType } from '../src/modules/events/index.js';
import {
  IllegalIntentMove,
  INTENT_EVENTS_IN_PLACE,
  INTENT_MOVES,
  IntentMoveConflict,
  moveIntent,
  recordIntentEventInPlace,
  type IntentStatus,
} from '../src/modules/payment-intents/index.js';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { INTENT_KEYS } from './helpers/intents.js';

const D = Decimal.clone({ precision: 100 });
const STATUSES: IntentStatus[] = ['created', 'awaiting_payment', 'confirming', 'paid', 'expired', 'cancelled', 'failed', 'refunded'];
const OUTCOMES = ['success', 'failed', 'underpaid', 'overpaid', 'expired', 'cancelled', 'review', 'duplicate', 'dispute'] as const;
type Outcome = (typeof OUTCOMES)[number];
/** Fields an event adds to the intent in its data (spec 6.3; api-reference "States and events"). */
const EVENT_EXTRAS: Record<string, string[]> = {
  'payment_intent.paid': ['settlement_status', 'settlement_available_at'],
  'payment_intent.disputed': ['settlement_status'],
  'payment_intent.underpaid': ['amount_due'],
  'payment_intent.overpaid': ['surplus'],
  'payment_intent.duplicate_payment': ['duplicate_amount', 'duplicate_payment_method'],
};

const ev = (t: string) => `payment_intent.${t}` as EventType;
const up6 = (d: Decimal.Value) => new D(d).toDecimalPlaces(6, Decimal.ROUND_CEIL).toFixed(6);

/** An event's data less the fields the event adds: the intent itself. */
function intentOf(event: Record<string, any>): Record<string, unknown> {
  const data = { ...event.data };
  for (const k of EVENT_EXTRAS[event.type] ?? []) delete data[k];
  return data;
}

function record(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _r, environment: _e, ...rest } = body;
  return rest;
}

describe(`payment intent state machine (${ENGINE})`, () => {
  let s: TestServer;
  /** Moves (from>to:event) and in-place events (event@status) seen in the events table. */
  const covered = new Set<string>();

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;
  const ctx = () => s.running.services.intents;

  async function create(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const r = await s.sandbox('POST', '/payment-intents', { body: { amount: '1500', currency: 'KES', ...body } });
    expect(r.status, r.text).toBe(201);
    return r.json;
  }

  const simulate = (id: string, outcome: Outcome, payment_method = 'service_balance', amount?: string) =>
    s.sandbox('POST', `/sandbox/payment-intents/${id}/simulate`, { body: { outcome, payment_method, ...(amount === undefined ? {} : { amount }) } });

  async function simulateOk(id: string, outcome: Outcome, method?: string, amount?: string): Promise<Record<string, any>> {
    const r = await simulate(id, outcome, method, amount);
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(record(r.json)).sort()).toEqual([...INTENT_KEYS].sort());
    expect(r.json.environment).toBe('test');
    return r.json;
  }

  function expectError(r: ApiResponse, status: number, code: string, param: string | null): void {
    expect(r.status, r.text).toBe(status);
    expect(r.json?.error?.code, r.text).toBe(code);
    expect(r.json.error.param, r.text).toBe(param);
    expect(r.json.error.type).toBe('invalid_request_error');
  }

  const row = (id: string) => db().selectFrom('payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attempts = (id: string) => db().selectFrom('payment_attempts').selectAll().where('payment_intent_id', '=', id).orderBy('created_at').orderBy('id').execute();
  async function eventRows(id: string) {
    return db().selectFrom('events').selectAll().where('payment_intent_id', '=', id).orderBy('seq').execute();
  }
  async function eventCount(): Promise<number> {
    return Number((await db().selectFrom('events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  }

  /**
   * Asserts the intent's events are exactly `expected` ([type, status after]) in commit order, each a
   * well-formed event about this intent, and records which moves they exercised. Answers the payloads.
   */
  async function expectHistory(id: string, expected: Array<[string, IntentStatus]>): Promise<Array<Record<string, any>>> {
    const rows = await eventRows(id);
    expect(rows.map((r) => [r.type, JSON.parse(r.payload).data.status])).toEqual(expected.map(([t, st]) => [ev(t), st]));
    const payloads: Array<Record<string, any>> = [];
    let from: IntentStatus = 'created';
    for (const r of rows) {
      const p = JSON.parse(r.payload) as Record<string, any>;
      expect(r.id).toMatch(/^evt_[0-9A-Za-z]+$/);
      expect(p.id).toBe(r.id);
      expect(p.object).toBe('event');
      expect(p.type).toBe(r.type);
      expect(p.api_version).toBe('2026-06-01');
      expect(r.api_version).toBe('2026-06-01');
      expect(p.livemode).toBe(false);
      expect(r.environment).toBe('test');
      expect(r.merchant_id).toBe(s.merchant.merchant.id);
      expect(p.created_at).toBe(new Date(Number(r.created_at)).toISOString());
      expect(Object.keys(p).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'livemode', 'object', 'type']);
      expect(p.data.id).toBe(id);
      expect(p.data.object).toBe('payment_intent');
      expect(Object.keys(p.data).sort()).toEqual([...INTENT_KEYS, ...(EVENT_EXTRAS[r.type] ?? [])].sort());
      if (r.type === ev('paid')) {
        // spec 6.3: the paid event says whether the settlement is spendable now or pending until a time
        expect(['available', 'pending']).toContain(p.data.settlement_status);
        if (p.data.settlement_status === 'pending') expect(p.data.settlement_available_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
        else expect(p.data.settlement_available_at).toBeNull();
      }
      if (r.type === ev('disputed')) expect(p.data.settlement_status).toBe('frozen');
      const to = p.data.status as IntentStatus;
      if (r.type in INTENT_EVENTS_IN_PLACE) {
        expect(to, `${r.type} changes no status`).toBe(from);
        covered.add(`${r.type}@${to}`);
      } else {
        covered.add(`${from}>${to}:${r.type}`);
      }
      from = to;
      payloads.push(p);
    }
    return payloads;
  }

  /** The last event's data, less the fields the event adds, is the intent as a retrieve answers it now. */
  async function expectLastEventIsIntent(id: string): Promise<void> {
    const rows = await eventRows(id);
    const data = intentOf(JSON.parse(rows[rows.length - 1]!.payload) as Record<string, any>);
    const got = await s.sandbox('GET', `/payment-intents/${id}`);
    expect(got.status).toBe(200);
    expect(data).toEqual(record(got.json));
  }

  it('has exactly the documented table of moves and in-place events', () => {
    expect(INTENT_MOVES).toEqual({
      created: { awaiting_payment: [ev('created')] },
      awaiting_payment: {
        confirming: [ev('confirming'), ev('review')],
        cancelled: [ev('cancelled')],
        expired: [ev('expired')],
        failed: [ev('failed')],
      },
      confirming: { paid: [ev('paid')], failed: [ev('failed')] },
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

    it('dispute of a card or PayPal payment: payment_intent.disputed, still paid', async () => {
      const card = await create();
      await simulateOk(card.id, 'success', 'card');
      const disputed = await simulateOk(card.id, 'dispute', 'card');
      expect(disputed.status).toBe('paid');
      await expectHistory(card.id, [
        ['created', 'awaiting_payment'],
        ['confirming', 'confirming'],
        ['paid', 'paid'],
        ['disputed', 'paid'],
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
      for (const from of STATUSES) for (const [to, types] of Object.entries(INTENT_MOVES[from])) for (const t of types ?? []) allowed.add(`${from}>${to}:${t}`);
      for (const [t, sts] of Object.entries(INTENT_EVENTS_IN_PLACE)) for (const st of sts ?? []) allowed.add(`${t}@${st}`);
      expect([...covered].filter((c) => !allowed.has(c))).toEqual([]);
    });
  });

  describe('every other combination is refused and writes nothing', () => {
    /** Outcomes that the documented table allows from each status (with the intent's method). */
    const LEGAL: Record<string, readonly Outcome[]> = {
      awaiting_payment: ['success', 'failed', 'underpaid', 'overpaid', 'expired', 'cancelled', 'review'],
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
      const theirs = await s.call('test', 'POST', '/payment-intents', { key: other.keys.test_secret, body: { amount: '10', currency: 'USD' } });
      expectError(await simulate(theirs.json.id, 'success'), 404, 'resource_missing', 'id');
      expect((await row(theirs.json.id)).status).toBe('awaiting_payment');
    });
  });

  describe('moveIntent', () => {
    it('throws IllegalIntentMove for every move outside the table and writes nothing', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      let checked = 0;
      for (const from of STATUSES) {
        for (const to of STATUSES) {
          if (INTENT_MOVES[from][to]) continue;
          const stale: PaymentIntentRow = { ...real, status: from };
          const err = await transaction(db(), (tx) => moveIntent(tx, ctx(), stale, to, { at: Date.now() })).then(
            () => null,
            (e: unknown) => e,
          );
          expect(err, `${from} -> ${to}`).toBeInstanceOf(IllegalIntentMove);
          expect((err as IllegalIntentMove).from).toBe(from);
          expect((err as IllegalIntentMove).to).toBe(to);
          checked++;
        }
      }
      expect(checked).toBe(64 - 8);
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });

    it('throws IllegalIntentMove for an event type the move does not allow', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      for (const [to, type] of [
        ['cancelled', ev('paid')],
        ['confirming', ev('paid')],
        ['failed', ev('cancelled')],
        ['expired', ev('review')],
      ] as const) {
        await expect(transaction(db(), (tx) => moveIntent(tx, ctx(), real, to, { at: Date.now(), eventType: type }))).rejects.toBeInstanceOf(IllegalIntentMove);
      }
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });

    it('refuses in-place events outside INTENT_EVENTS_IN_PLACE', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      for (const [status, type] of [
        ['paid', ev('underpaid')],
        ['awaiting_payment', ev('overpaid')],
        ['awaiting_payment', ev('duplicate_payment')],
        ['refunded', ev('disputed')],
        ['confirming', ev('disputed')],
        ['paid', ev('paid')],
      ] as const) {
        await expect(transaction(db(), (tx) => recordIntentEventInPlace(tx, ctx(), { ...real, status }, type, Date.now()))).rejects.toBeInstanceOf(IllegalIntentMove);
      }
      expect(await eventCount()).toBe(before);
    });

    it('throws IntentMoveConflict for a stale row and changes nothing', async () => {
      const pi = await create();
      const stale = await row(pi.id);
      expect((await s.sandbox('POST', `/payment-intents/${pi.id}/cancel`)).status).toBe(200);
      const after = await row(pi.id);
      const before = await eventCount();
      await expect(transaction(db(), (tx) => moveIntent(tx, ctx(), stale, 'confirming', { at: Date.now() }))).rejects.toBeInstanceOf(IntentMoveConflict);
      await expect(transaction(db(), (tx) => moveIntent(tx, ctx(), stale, 'expired', { at: Date.now() }))).rejects.toBeInstanceOf(IntentMoveConflict);
      expect(await row(pi.id)).toEqual(after);
      expect(after.status).toBe('cancelled');
      expect(await eventCount()).toBe(before);
      await expectHistory(pi.id, [
        ['created', 'awaiting_payment'],
        ['cancelled', 'cancelled'],
      ]);
    });

    it('rolls the move back with its transaction: no status change without its event and vice versa', async () => {
      const pi = await create();
      const real = await row(pi.id);
      const before = await eventCount();
      await expect(
        transaction(db(), async (trx) => {
          await moveIntent(trx, ctx(), real, 'failed', { at: Date.now() });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await row(pi.id)).toEqual(real);
      expect(await eventCount()).toBe(before);
    });
  });
});
