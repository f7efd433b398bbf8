// Concurrent moves of one payment intent (the state machine's conditional UPDATE plus row locks): of
// conflicting moves exactly one wins, every move writes exactly one event, and nothing is lost or counted
// twice. Runs on SQLite and PostgreSQL.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type ApiResponse, type TestServer } from './helpers/harness.js';
import { helpers } from './helpers/payment-intents.js';

const N = 20;

describe(`payment intent concurrency (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  const db = () => s.running.database.db;
  const { createOk } = helpers(() => s);
  const create = (body: Record<string, unknown> = {}, key?: string) => createOk({ amount: '1500', currency: 'KES', ...body }, { key });
  const simulate = (id: string, outcome: string, payment_method = 'mpesa', amount?: string, key = s.merchant.keys.test_secret) =>
    s.call('test', 'POST', `/sandbox/payment-intents/${id}/simulate`, {
      key,
      body: { outcome, payment_method, ...(amount ? { amount } : {}) },
    });
  const cancel = (id: string, key = s.merchant.keys.test_secret) => s.call('test', 'POST', `/payment-intents/${id}/cancel`, { key });

  async function types(id: string): Promise<string[]> {
    const rows = await db().selectFrom('events').select(['type', 'payload']).where('payment_intent_id', '=', id).orderBy('seq').execute();
    return rows.map((r) => r.type);
  }
  async function payloads(id: string): Promise<Array<Record<string, any>>> {
    const rows = await db().selectFrom('events').select('payload').where('payment_intent_id', '=', id).orderBy('seq').execute();
    return rows.map((r) => JSON.parse(r.payload));
  }
  const count = (list: string[], t: string) => list.filter((x) => x === `payment_intent.${t}`).length;
  const codes = (rs: ApiResponse[]) => rs.map((r) => (r.status === 200 ? 200 : `${r.status} ${r.json?.error?.code}`));

  it(`${N / 2} payments and ${N / 2} cancels at once: one of paid or cancelled wins, never both`, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++) {
      const pi = await create();
      const ops = Array.from({ length: N }, (_, i) => (i % 2 === 0 ? () => simulate(pi.id, 'success') : () => cancel(pi.id)));
      const results = await Promise.all(ops.map((op) => op()));
      const pays = results.filter((_, i) => i % 2 === 0);
      const cancels = results.filter((_, i) => i % 2 === 1);
      const ev = await types(pi.id);
      const row = await db().selectFrom('payment_intents').selectAll().where('id', '=', pi.id).executeTakeFirstOrThrow();
      expect(['paid', 'cancelled']).toContain(row.status);
      outcomes.push(row.status);
      expect(count(ev, 'paid') + count(ev, 'cancelled'), ev.join()).toBe(1);
      expect(ev[0]).toBe('payment_intent.created');
      if (row.status === 'paid') {
        // the first payment paid it; every later one is a duplicate payment; every cancel is refused
        expect(codes(pays), JSON.stringify(codes(results))).toEqual(Array(N / 2).fill(200));
        expect(codes(cancels), JSON.stringify(codes(results))).toEqual(Array(N / 2).fill('409 intent_not_cancelable'));
        expect(ev).toEqual([
          'payment_intent.created',
          'payment_intent.confirming',
          'payment_intent.paid',
          ...Array(N / 2 - 1).fill('payment_intent.duplicate_payment'),
        ]);
        expect(row.amount_received).toBe(pi.pay_amount);
        expect(row.cancelled_at).toBeNull();
      } else {
        // the first cancel won; the other cancels and every payment are refused
        expect(codes(cancels).filter((c) => c === 200)).toHaveLength(1);
        expect(codes(cancels).filter((c) => c === '409 intent_not_cancelable')).toHaveLength(N / 2 - 1);
        expect(codes(pays), JSON.stringify(codes(results))).toEqual(Array(N / 2).fill('409 intent_not_payable'));
        expect(ev).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
        expect(row.amount_received).toBe('0.000000');
        expect(row.paid_at).toBeNull();
      }
      // what the winners answered agrees with the stored row
      for (const r of results.filter((x) => x.status === 200)) expect(['paid', 'cancelled']).toContain(r.json.status);
      const attempts = await db().selectFrom('payment_attempts').select('outcome').where('payment_intent_id', '=', pi.id).execute();
      expect(attempts.filter((a) => a.outcome === 'success')).toHaveLength(row.status === 'paid' ? 1 : 0);
      expect(attempts.filter((a) => a.outcome === 'duplicate')).toHaveLength(row.status === 'paid' ? N / 2 - 1 : 0);
    }
    expect(outcomes).toHaveLength(3);
  });

  it(`${N} payments at once: one confirming, one paid and ${N - 1} duplicate payments`, async () => {
    const pi = await create();
    const results = await Promise.all(Array.from({ length: N }, () => simulate(pi.id, 'success')));
    expect(codes(results)).toEqual(Array(N).fill(200));
    for (const r of results) expect(r.json.status).toBe('paid');
    const ev = await types(pi.id);
    expect(ev).toEqual([
      'payment_intent.created',
      'payment_intent.confirming',
      'payment_intent.paid',
      ...Array(N - 1).fill('payment_intent.duplicate_payment'),
    ]);
    const p = await payloads(pi.id);
    expect(new Set(p.map((x) => x.id)).size).toBe(N + 2);
    for (const x of p.slice(3)) {
      expect(x.data.status).toBe('paid');
      expect(x.data.duplicate_amount).toBe(pi.pay_amount);
    }
    const row = await db().selectFrom('payment_intents').selectAll().where('id', '=', pi.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('paid');
    expect(row.amount_received).toBe(pi.pay_amount);
    const attempts = await db()
      .selectFrom('payment_attempts')
      .select(['outcome', 'counts_to_caps'])
      .where('payment_intent_id', '=', pi.id)
      .execute();
    expect(attempts.filter((a) => a.outcome === 'success')).toHaveLength(1);
    expect(attempts.filter((a) => a.outcome === 'duplicate')).toHaveLength(N - 1);
  });

  it(`${N / 2} payments and ${N / 2} failed attempts at once: one outcome, paid or failed, never both`, async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const pi = await create();
      const ops = Array.from({ length: N }, (_, i) =>
        i % 2 === 0 ? () => simulate(pi.id, 'success') : () => simulate(pi.id, 'attempt_failed'),
      );
      const results = await Promise.all(ops.map((op) => op()));
      const pays = results.filter((_, i) => i % 2 === 0);
      const fails = results.filter((_, i) => i % 2 === 1);
      const ev = await types(pi.id);
      const row = await db().selectFrom('payment_intents').selectAll().where('id', '=', pi.id).executeTakeFirstOrThrow();
      expect(['paid', 'failed']).toContain(row.status);
      seen.add(row.status);
      expect(count(ev, 'paid') + count(ev, 'failed'), ev.join()).toBe(1);
      const failedEvents = count(ev, 'payment_failed');
      // every failed attempt answered 200 wrote exactly one payment_failed; the others were refused
      expect(fails.filter((r) => r.status === 200)).toHaveLength(failedEvents);
      for (const r of fails.filter((x) => x.status !== 200)) expect(codes([r])).toEqual(['409 intent_not_payable']);
      if (row.status === 'paid') {
        expect(failedEvents).toBeLessThan(5);
        // failures only before the payment: none after confirming
        expect(ev.lastIndexOf('payment_intent.payment_failed')).toBeLessThan(ev.indexOf('payment_intent.confirming'));
        expect(codes(pays)).toEqual(Array(N / 2).fill(200));
        expect(row.last_payment_error).toBeNull();
      } else {
        expect(failedEvents).toBe(5);
        expect(codes(pays), JSON.stringify(codes(results))).toEqual(Array(N / 2).fill('409 intent_not_payable'));
        expect(JSON.parse(row.last_payment_error!).code).toBe('customer_cancelled');
      }
    }
    expect(seen.size).toBeGreaterThan(0);
  });

  it(`${N} cancels at once: one 200, ${N - 1} 409 intent_not_cancelable, one cancelled event`, async () => {
    const pi = await create();
    const results = await Promise.all(Array.from({ length: N }, () => cancel(pi.id)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.json.status).toBe('cancelled');
    expect(codes(results).filter((c) => c === '409 intent_not_cancelable')).toHaveLength(N - 1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json.error.message).toContain('cancelled');
    expect(await types(pi.id)).toEqual(['payment_intent.created', 'payment_intent.cancelled']);
    const row = await db().selectFrom('payment_intents').selectAll().where('id', '=', pi.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('cancelled');
    expect(Number(row.cancelled_at)).toBe(Date.parse(ok[0]!.json.cancelled_at));
  });

  it(`${N} underpayments at once: none lost, amount_received is their exact sum`, async () => {
    const pi = await create({ amount: '15000' }); // 116.075892 USDT due
    const results = await Promise.all(Array.from({ length: N }, () => simulate(pi.id, 'underpaid', 'mpesa', '1.000001')));
    expect(codes(results)).toEqual(Array(N).fill(200));
    const sum = new Decimal('1.000001').mul(N).toFixed(6);
    const row = await db().selectFrom('payment_intents').selectAll().where('id', '=', pi.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('awaiting_payment');
    expect(row.amount_received).toBe(sum);
    const ev = await types(pi.id);
    expect(ev).toEqual(['payment_intent.created', ...Array(N).fill('payment_intent.underpaid')]);
    // each event saw the running total: N distinct amounts received, ending at the sum
    const received = (await payloads(pi.id)).slice(1).map((x) => x.data.amount_received as string);
    expect(new Set(received).size).toBe(N);
    expect(received.at(-1)).toBe(sum);
    expect([...received].sort((a, b) => new Decimal(a).cmp(b))).toEqual(received);
  });

  it(`${N} payments and cancels of an intent racing its expiry: exactly one terminal event`, async () => {
    const m = await s.newMerchant({ name: 'Racing merchant' });
    const key = m.keys.test_secret;
    const pi = await create({ expires_in_minutes: 1 }, key);
    const ops: Array<() => Promise<ApiResponse>> = [];
    for (let i = 0; i < N; i++) {
      if (i === N / 2) ops.push(() => s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 61 } }));
      ops.push(i % 2 === 0 ? () => simulate(pi.id, 'success', 'card', undefined, key) : () => cancel(pi.id, key));
    }
    const results = await Promise.all(ops.map((op) => op()));
    for (const r of results) expect([200, 409]).toContain(r.status);
    const ev = await types(pi.id);
    const terminal = count(ev, 'paid') + count(ev, 'cancelled') + count(ev, 'expired');
    expect(terminal, ev.join()).toBe(1);
    const row = await db().selectFrom('payment_intents').select('status').where('id', '=', pi.id).executeTakeFirstOrThrow();
    expect(['paid', 'cancelled', 'expired']).toContain(row.status);
    expect(count(ev, row.status === 'paid' ? 'paid' : row.status)).toBe(1);
    if (row.status !== 'paid') expect(count(ev, 'duplicate_payment') + count(ev, 'confirming')).toBe(0);
  });

  it(`${N} identical creates with one Idempotency-Key at once: exactly one intent`, async () => {
    const m = await s.newMerchant({ name: 'Idempotent merchant' });
    const key = `concurrent-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        s.call('test', 'POST', '/payment-intents', {
          key: m.keys.test_secret,
          body: { amount: '10', currency: 'USD' },
          headers: { 'idempotency-key': key },
        }),
      ),
    );
    for (const r of results) expect([201, 409], r.text).toContain(r.status);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.json.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status === 409)) expect(r.json.error.code).toBe('idempotency_in_progress');
    const rows = await db().selectFrom('payment_intents').select('id').where('merchant_id', '=', m.merchant.id).execute();
    expect(rows.map((r) => r.id)).toEqual([created[0]!.json.id]);
    expect(await types(created[0]!.json.id)).toEqual(['payment_intent.created']);
  });
});
