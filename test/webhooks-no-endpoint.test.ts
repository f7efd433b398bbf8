// An event no endpoint subscribes to gets no delivery row; an endpoint created after the event does not get
// it, but a resend does; the event feed and the webhook event list show it either way. And the created
// event's data is the intent exactly as the 201 showed it (one JSON text serves both).
import { describe, expect, it } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';
import { freshMerchant, serverAndReceiver } from './helpers/webhooks.js';

describe(`events without endpoints (${ENGINE})`, () => {
  const { server } = serverAndReceiver();

  const deliveryRows = (eventId: string) =>
    server().running.database.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute();

  it('no endpoint: the event is recorded with no delivery; a later endpoint gets it only by resend', async () => {
    const m = await freshMerchant(server());
    const created = await m.sb('POST', '/payment-intents', { amount: '12.50', currency: 'USD', metadata: { b: 1, a: '2.50' } });
    expect(created.status, created.text).toBe(201);
    // The feed shows an event once every transaction that began before its own has ended (PostgreSQL).
    const feed = await waitFor(
      'the created event in the feed',
      () => m.sb('GET', '/events'),
      (r) => r.status === 200 && r.json.data.some((e: { type: string }) => e.type === 'payment_intent.created'),
    );
    const event = feed.json.data.find((e: { type: string }) => e.type === 'payment_intent.created');
    expect(event.data.id).toBe(created.json.id);
    // The event shows the intent as the 201 did, field for field.
    const { request_id: _r, environment: _e, ...intent } = created.json;
    expect(event.data).toEqual(intent);
    expect(await deliveryRows(event.id)).toHaveLength(0);
    const listed = await m.sb('GET', `/webhook_events/${event.id}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.deliveries).toEqual([]);

    const r = await startReceiver();
    try {
      const endpoint = await m.sb('POST', '/webhook_endpoints', { url: r.url });
      expect(endpoint.status, endpoint.text).toBe(201);
      // The endpoint did not exist when the event committed: nothing is queued for it.
      expect(await deliveryRows(event.id)).toHaveLength(0);
      const resent = await m.sb('POST', `/webhook_events/${event.id}/resend`);
      expect(resent.status, resent.text).toBe(200);
      expect(resent.json.resent).toBe(1);
      const [got] = await r.waitFor((x) => x.length >= 1);
      expect(got!.headers['service-event-id']).toBe(event.id);
      expect(JSON.parse(got!.body)).toEqual(event);
      expect(await deliveryRows(event.id)).toHaveLength(1);
      // Events after the endpoint exists are delivered as they commit.
      const next = await m.sb('POST', '/payment-intents', { amount: '3.00', currency: 'USD' });
      const [, second] = await r.waitFor((x) => x.length >= 2);
      expect(JSON.parse(second!.body).data.id).toBe(next.json.id);
    } finally {
      await r.close();
    }
  });
});
