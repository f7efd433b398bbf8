// What the state-machine tests share: the documented outcomes and statuses, and, over one server, the
// helpers that drive an intent and check the events it leaves (recording which moves were exercised).
import { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import type { EventType } from '../../src/modules/events/index.js';
import { INTENT_EVENTS_IN_PLACE, INTENT_MOVES, type IntentStatus } from '../../src/modules/payment-intents/index.js';
import type { TestServer } from './harness.js';
import { INTENT_KEYS } from './intents.js';
import { D, helpers, record } from './payment-intents.js';

export { D, record };
export const STATUSES: IntentStatus[] = ['created', 'awaiting_payment', 'confirming', 'paid', 'expired', 'cancelled', 'failed', 'refunded'];
export const OUTCOMES = [
  'success',
  'failed',
  'attempt_failed',
  'underpaid',
  'overpaid',
  'expired',
  'cancelled',
  'review',
  'duplicate',
  'dispute',
  'dispute_won',
  'dispute_lost',
] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** Fields an event adds to the intent in its data (api-reference "States and events"). */
export const EVENT_EXTRAS: Record<string, string[]> = {
  'payment_intent.paid': ['settlement_status', 'settlement_available_at'],
  'payment_intent.disputed': ['settlement_status'],
  'payment_intent.dispute_closed': ['settlement_status'],
  'payment_intent.underpaid': ['amount_due'],
  'payment_intent.overpaid': ['surplus'],
  'payment_intent.duplicate_payment': ['duplicate_amount', 'duplicate_payment_method'],
};

export const ev = (t: string) => `payment_intent.${t}` as EventType;
export const up6 = (d: Decimal.Value) => new D(d).toDecimalPlaces(6, Decimal.ROUND_CEIL).toFixed(6);

/** An event's data less the fields the event adds: the intent itself. */
export function intentOf(event: Record<string, any>): Record<string, unknown> {
  const data = { ...event.data };
  for (const k of EVENT_EXTRAS[event.type] ?? []) delete data[k];
  return data;
}

/** The helpers over one server; moves and in-place events seen are added to `covered`. */
export function machine(get: () => TestServer, covered: Set<string>) {
  const db = () => get().running.database.db;
  const ctx = () => get().running.services.intents;
  const { createOk, row, attempts, count } = helpers(get);
  /** A sandbox intent of 1500 KES unless `body` says otherwise. */
  const create = (body: Record<string, unknown> = {}) => createOk({ amount: '1500', currency: 'KES', ...body });

  const simulate = (id: string, outcome: Outcome, payment_method = 'service_balance', amount?: string) =>
    get().sandbox('POST', `/sandbox/payment-intents/${id}/simulate`, {
      body: { outcome, payment_method, ...(amount === undefined ? {} : { amount }) },
    });

  async function simulateOk(id: string, outcome: Outcome, method?: string, amount?: string): Promise<Record<string, any>> {
    const r = await simulate(id, outcome, method, amount);
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(record(r.json)).sort()).toEqual([...INTENT_KEYS].sort());
    expect(r.json.environment).toBe('test');
    return r.json;
  }

  async function eventRows(id: string) {
    return db().selectFrom('events').selectAll().where('payment_intent_id', '=', id).orderBy('seq').execute();
  }
  const eventCount = () => count('events');

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
      expect(r.merchant_id).toBe(get().merchant.merchant.id);
      expect(p.created_at).toBe(new Date(Number(r.created_at)).toISOString());
      expect(Object.keys(p).sort()).toEqual(['api_version', 'created_at', 'data', 'id', 'livemode', 'object', 'type']);
      expect(p.data.id).toBe(id);
      expect(p.data.object).toBe('payment_intent');
      expect(Object.keys(p.data).sort()).toEqual([...INTENT_KEYS, ...(EVENT_EXTRAS[r.type] ?? [])].sort());
      if (r.type === ev('paid')) {
        // The paid event says whether the settlement is spendable now or pending until a time
        expect(['available', 'pending']).toContain(p.data.settlement_status);
        if (p.data.settlement_status === 'pending') expect(p.data.settlement_available_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
        else expect(p.data.settlement_available_at).toBeNull();
      }
      if (r.type === ev('disputed')) expect(p.data.settlement_status).toBe('frozen');
      const to = p.data.status as IntentStatus;
      // payment_failed is recorded in place, and also moves an intent whose on-chain transfer was removed.
      if (r.type in INTENT_EVENTS_IN_PLACE && (to === from || !INTENT_MOVES[from][to]?.includes(r.type as EventType))) {
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
    const got = await get().sandbox('GET', `/payment-intents/${id}`);
    expect(got.status).toBe(200);
    expect(data).toEqual(record(got.json));
  }

  return { db, ctx, create, simulate, simulateOk, row, attempts, eventRows, eventCount, expectHistory, expectLastEventIsIntent };
}
