// Group commit of new payment intents (payment-intents.service.ts, intentCreator): intents created at
// the same time are written together, each with its one `payment_intent.created` event and its webhook
// deliveries; a group that fails is retried intent by intent, so one bad intent never fails the others.
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../src/db/dialect.js';
import type { NewIntent } from '../src/modules/payment-intents/index.js';
import { ENGINE } from './helpers/harness.js';
import { serverAndReceiver } from './helpers/webhooks.js';

describe(`group commit of new intents (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver({ COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1' });

  it('40 intents created at once: 40 intents, one created event each, one delivery each to the subscribed endpoint', async () => {
    const endpoint = await server().sandbox('POST', '/webhook_endpoints', {
      body: { url: receiver().url, events: ['payment_intent.created'] },
    });
    expect(endpoint.status).toBe(201);
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        server().sandbox('POST', '/payment-intents', {
          body: { amount: `${100 + i}.00`, currency: 'KES', merchant_reference: `ref-${i}` },
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(40).fill(201));
    const ids = created.map((r) => r.json.id as string);
    expect(new Set(ids).size).toBe(40);
    // Each response is the intent it asked for.
    created.forEach((r, i) => expect([r.json.amount, r.json.merchant_reference]).toEqual([`${100 + i}.00`, `ref-${i}`]));

    const db = server().running.database.db;
    const events = await db
      .selectFrom('events')
      .select(['id', 'payment_intent_id', 'type', 'payload'])
      .where('payment_intent_id', 'in', ids)
      .execute();
    expect(events).toHaveLength(40);
    expect(events.every((e) => e.type === 'payment_intent.created')).toBe(true);
    expect(new Set(events.map((e) => e.payment_intent_id)).size).toBe(40);
    // The event's data is the intent as the create response showed it.
    const byIntent = new Map(created.map((r) => [r.json.id as string, r.json]));
    for (const e of events) {
      const { request_id: _r, environment: _e, ...shown } = byIntent.get(e.payment_intent_id!)!;
      expect(JSON.parse(e.payload).data).toEqual(shown);
    }
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event_id', 'endpoint_id'])
      .where(
        'event_id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    expect(deliveries).toHaveLength(40);
    expect(deliveries.every((d) => d.endpoint_id === endpoint.json.id && /^whd_[0-9A-Za-z]{24}$/.test(d.id))).toBe(true);
    const got = await receiver().waitFor((r) => new Set(r.map((x) => x.headers['service-event-id'])).size >= 40, 15_000, '40 deliveries');
    expect(new Set(got.map((x) => x.headers['service-event-id']))).toEqual(new Set(events.map((e) => e.id)));
  });

  it('an intent that cannot be written fails alone: the others of its group are written', async () => {
    const intents = server().running.services.intents;
    const create = (intent: NewIntent) => intents.insert(intent);
    const make = (reference: string): NewIntent => {
      const scope = { merchantId: server().merchant.merchant.id, environment: 'test' as const };
      const built = intents.prepare(scope, server().running.clock.nowMs(), {
        amount: '10.00',
        currency: 'KES',
        merchant_reference: reference,
      }).row;
      // A known id, so that the same intent can be offered twice.
      const row = { ...built, id: `pi_${reference.padEnd(24, '0')}` };
      return { row, view: intents.view(row) };
    };
    const first = make('groupA');
    await create(first);
    // One group: a fresh intent, the same intent again (its id exists: a unique violation), another fresh one.
    const [a, dup, b] = await Promise.allSettled([create(make('groupB')), create(first), create(make('groupC'))]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('fulfilled');
    expect(dup.status).toBe('rejected');
    expect(isUniqueViolation((dup as PromiseRejectedResult).reason)).toBe(true);
    const db = server().running.database.db;
    const rows = await db
      .selectFrom('payment_intents')
      .select('merchant_reference')
      .where('merchant_reference', 'in', ['groupA', 'groupB', 'groupC'])
      .execute();
    expect(rows.map((r) => r.merchant_reference).sort()).toEqual(['groupA', 'groupB', 'groupC']);
    const events = await db
      .selectFrom('events')
      .select('payment_intent_id')
      .where('payment_intent_id', 'in', [first.row.id, `pi_${'groupB'.padEnd(24, '0')}`, `pi_${'groupC'.padEnd(24, '0')}`])
      .execute();
    // One creation event per intent written: the failed attempt left none behind.
    expect(events).toHaveLength(3);
  });
});
