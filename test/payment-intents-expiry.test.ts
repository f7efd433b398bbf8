// Expiry of payment intents without the sandbox clock: an overdue intent is expired by the first read that
// sees it, before any sweep, and by the background sweep otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { helpers } from './helpers/payment-intents.js';
import { jobRuns, waitFor } from './helpers/wait.js';

describe(`payment intent expiry before any sweep (${ENGINE})`, () => {
  // Jobs every 60 s: after the first tick at start, no sweep runs during these tests.
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let s: TestServer;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { COWRIE_JOB_INTERVAL_MS: '60000' } });
  });
  afterAll(async () => s?.stop());

  const create = async (body: Record<string, unknown>) => {
    const r = await s.sandbox('POST', '/payment-intents', { body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };

  it('shows an overdue intent as expired on retrieve, recording the expiry once, at expires_at', async () => {
    const a = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    expect(a.created_at).toBe(new Date(clock.nowMs()).toISOString());
    clock.advance(60_000 - 1);
    expect((await s.sandbox('GET', `/payment-intents/${a.id}`)).json.status).toBe('awaiting_payment');
    clock.advance(1); // exactly expires_at
    expect((await h.row(a.id)).status).toBe('awaiting_payment'); // nothing has swept it
    const r = await s.sandbox('GET', `/payment-intents/${a.id}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.status).toBe('expired');
    expect((await h.row(a.id)).status).toBe('expired');
    const events = await h.events(a.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    expect(events[1]!.payload.created_at).toBe(a.expires_at);
    expect(events[1]!.payload.data.status).toBe('expired');
    await s.sandbox('GET', `/payment-intents/${a.id}`);
    expect(await h.events(a.id)).toHaveLength(2);
  });

  it('never lists an overdue intent as awaiting payment', async () => {
    const b = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    const c = await create({ amount: '10', currency: 'USD', expires_in_minutes: 5 });
    clock.advance(2 * 60_000);
    expect((await h.row(b.id)).status).toBe('awaiting_payment');
    const l = await s.sandbox('GET', '/payment-intents?status=awaiting_payment');
    expect(l.status, l.text).toBe(200);
    const listed = l.json.data.map((p: { id: string }) => p.id);
    expect(listed).toContain(c.id);
    expect(listed).not.toContain(b.id);
    const all = await s.sandbox('GET', '/payment-intents?limit=100');
    expect(all.json.data.find((p: { id: string }) => p.id === b.id).status).toBe('expired');
    expect((await h.events(b.id)).map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
  });

  it('refuses to cancel or pay an overdue intent, and records its expiry instead', async () => {
    const d = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    const e = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    clock.advance(61_000);
    const cancel = await s.sandbox('POST', `/payment-intents/${d.id}/cancel`);
    expectError(cancel, 409, 'intent_not_cancelable', null);
    expect(cancel.json.error.message).toContain('expired');
    expect((await h.events(d.id)).map((x) => x.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    const pay = await s.sandbox('POST', `/sandbox/payment-intents/${e.id}/simulate`, {
      body: { outcome: 'success', payment_method: 'card' },
    });
    expectError(pay, 409, 'intent_not_payable', null);
    expect((await h.events(e.id)).map((x) => x.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
    expect((await h.row(e.id)).status).toBe('expired');
    expect(await h.attempts(e.id)).toEqual([]);
  });

  it('shows an overdue intent as expired on its checkout page', async () => {
    const f = await create({ amount: '10', currency: 'USD', expires_in_minutes: 1 });
    clock.advance(61_000);
    const res = await fetch(s.url('test', `/checkout/${f.id}`));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/expired/i);
    expect(html).not.toMatch(/awaiting[ _]payment/i);
  });
});

describe(`payment intent expiry by the background sweep (${ENGINE})`, () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let s: TestServer;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startTestServer({ clock, env: { COWRIE_JOB_INTERVAL_MS: '50' } });
  });
  afterAll(async () => s?.stop());

  it('expires intents nobody reads, once each, and leaves the others', async () => {
    const created = await Promise.all(
      [1, 1, 10].map((minutes) =>
        s.sandbox('POST', '/payment-intents', { body: { amount: '10', currency: 'USD', expires_in_minutes: minutes } }),
      ),
    );
    const [a, b, c] = created.map((r) => {
      expect(r.status, r.text).toBe(201);
      return r.json;
    });
    await jobRuns(s.running.database.db, 'time-jobs', 3); // several sweeps with nothing due
    expect((await h.row(a.id)).status).toBe('awaiting_payment');
    clock.advance(61_000);
    await waitFor(
      'both overdue intents expired',
      async () => [(await h.row(a.id)).status, (await h.row(b.id)).status],
      (statuses) => statuses.every((st) => st === 'expired'),
      { timeoutMs: 5000 },
    );
    await jobRuns(s.running.database.db, 'time-jobs', 3); // more sweeps: nothing more happens
    for (const x of [a, b]) {
      const events = await h.events(x.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.created', 'payment_intent.expired']);
      expect(events[1]!.payload.created_at).toBe(x.expires_at);
    }
    expect((await h.row(c.id)).status).toBe('awaiting_payment');
    expect(await h.events(c.id)).toHaveLength(1);
  });
});
