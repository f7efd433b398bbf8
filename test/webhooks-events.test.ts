// Emitted events: inspection with deliveries and attempts, resend, and the sandbox trigger.
import { describe, expect, it } from 'vitest';
import { ENGINE } from './helpers/harness.js';
import { expectError } from './helpers/expect.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver } from './helpers/webhook-receiver.js';
import { deliveriesAtRest, verifyServiceSignature, freshMerchant, paidIntent, serverAndReceiver } from './helpers/webhooks.js';

describe(`webhooks (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();

  const merchant = () => freshMerchant(server());

  describe('inspection and resend', () => {
    it('lists emitted events newest first with their deliveries; type filter, pagination and errors', async () => {
      const m = await merchant();
      await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
      await paidIntent(m.sb);
      const all = await m.sb('GET', '/webhook_events');
      expect(all.status, all.text).toBe(200);
      expect(all.json).toMatchObject({ object: 'list', has_more: false, environment: 'test', livemode: false });
      // Newest first by creation time, ties (events of one move, in one millisecond) broken by id.
      expect(all.json.data.map((e: { type: string }) => e.type).sort()).toEqual([
        'payment_intent.confirming',
        'payment_intent.created',
        'payment_intent.paid',
      ]);
      const times = all.json.data.map((e: { created_at: string }) => e.created_at);
      expect(times).toEqual([...times].sort().reverse());
      for (const e of all.json.data) {
        expect(e.object).toBe('webhook_event');
        expect(e.deliveries).toHaveLength(1);
        expect(e.deliveries[0].attempts).toBeUndefined();
      }
      const paged = await m.sb('GET', '/webhook_events?limit=2');
      expect(paged.json.has_more).toBe(true);
      expect(paged.json.data).toHaveLength(2);
      const rest = await m.sb('GET', `/webhook_events?limit=2&starting_after=${paged.json.data[1].id}`);
      expect(rest.json.has_more).toBe(false);
      expect(rest.json.data.map((e: { id: string }) => e.id)).toEqual([all.json.data[2].id]);
      const typed = await m.sb('GET', '/webhook_events?type=payment_intent.paid');
      const paidEvent = all.json.data.find((e: { type: string }) => e.type === 'payment_intent.paid');
      expect(typed.json.data.map((e: { id: string }) => e.id)).toEqual([paidEvent.id]);
      expectError(await m.sb('GET', '/webhook_events?type=nope'), 400, 'parameter_invalid', 'type');
      expectError(await m.sb('GET', '/webhook_events?limit=101'), 400, 'parameter_invalid', 'limit');
      expectError(await m.sb('GET', '/webhook_events?starting_after=evt_nope'), 400, 'parameter_invalid', 'starting_after');
      expectError(await m.sb('GET', '/webhook_events/evt_nope'), 404, 'resource_missing', 'id');
      const other = await merchant();
      expectError(await other.sb('GET', `/webhook_events/${all.json.data[0].id}`), 404, 'resource_missing', 'id');
      expectError(await other.sb('POST', `/webhook_events/${all.json.data[0].id}/resend`), 404, 'resource_missing', 'id');
    });

    it('resend enqueues a new delivery per subscribed endpoint: same Service-Event-Id and body, fresh signature', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.paid'] });
        await paidIntent(m.sb);
        const [first] = await r.waitFor((x) => x.length >= 1);
        const evt = String(first!.headers['service-event-id']);
        // The resend is signed in a later second than the first delivery (the timestamp counts whole seconds).
        await waitFor(
          'a later second than the first delivery’s',
          () => Math.floor(Date.now() / 1000),
          (now) => now > Number(first!.headers['service-timestamp']),
        );
        const res = await m.sb('POST', `/webhook_events/${evt}/resend`);
        expect(res.status, res.text).toBe(200);
        expect(res.json).toMatchObject({ object: 'webhook_event', id: evt, resent: 1, environment: 'test', livemode: false });
        const got = await r.waitFor((x) => x.length >= 2);
        expect(got[1]!.headers['service-event-id']).toBe(evt);
        expect(got[1]!.body).toBe(first!.body);
        expect(got[1]!.headers['service-timestamp']).not.toBe(first!.headers['service-timestamp']);
        expect(verifyServiceSignature(e.json.secret, got[1]!.headers, got[1]!.body)).toBe(true);
        const insp = await waitFor(
          'both deliveries recorded',
          () => m.sb('GET', `/webhook_events/${evt}`),
          (x) => x.json.deliveries.every((d: { status: string }) => d.status !== 'pending'),
        );
        expect(insp.json.deliveries.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'succeeded']);
        // A second endpoint subscribed to the type receives resends too; an unsubscribed one does not.
        await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/second` });
        await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/refunds`, events: ['refund.created'] });
        const again = await m.sb('POST', `/webhook_events/${evt}/resend`);
        expect(again.json.resent).toBe(2);
        await r.waitFor((x) => x.length >= 4);
        await deliveriesAtRest(server().running.database.db, m.merchant.id);
        expect(
          r.received
            .map((x) => x.path)
            .slice(2)
            .sort(),
        ).toEqual(['/', '/second']);
      } finally {
        await r.close();
      }
    });
  });

  describe('sandbox trigger', () => {
    it('records a sample payment_intent.paid from the latest sandbox intent and delivers it', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.paid'] });
        const older = await m.sb('POST', '/payment-intents', { amount: '20.00', currency: 'USD' });
        const latest = await m.sb('POST', '/payment-intents', { amount: '30.00', currency: 'USD', merchant_reference: 'latest' });
        expect(older.status).toBe(201);
        const t = await m.sb('POST', '/sandbox/webhooks/trigger');
        expect(t.status, t.text).toBe(200);
        expect(t.json).toMatchObject({
          object: 'event_trigger',
          type: 'payment_intent.paid',
          status: 'sent',
          environment: 'test',
          livemode: false,
        });
        const [got] = await r.waitFor((x) => x.length >= 1);
        const body = JSON.parse(got!.body);
        expect(body).toMatchObject({
          id: t.json.event,
          type: 'payment_intent.paid',
          livemode: false,
          data: { id: latest.json.id, status: 'paid', amount: '30.00', merchant_reference: 'latest' },
        });
        expect(verifyServiceSignature(e.json.secret, got!.headers, got!.body)).toBe(true);
        // A sample changes nothing: the intent still awaits payment.
        expect((await m.sb('GET', `/payment-intents/${latest.json.id}`)).json.status).toBe('awaiting_payment');
        // The feed shows it once older transactions of the database server have ended (at once, in practice).
        const feed = await waitFor(
          'the sample event in the feed',
          () => m.sb('GET', '/events'),
          (x) => x.json.data[0]?.id === t.json.event,
        );
        expect(feed.json.data[0].id).toBe(t.json.event);
      } finally {
        await r.close();
      }
    });

    it('any known type, from a synthetic intent when there is none; unknown types and live keys are refused', async () => {
      const m = await merchant();
      const r = await startReceiver();
      try {
        await m.sb('POST', '/webhook_endpoints', { url: r.url });
        const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.disputed' });
        expect(t.status, t.text).toBe(200);
        expect(t.json.type).toBe('payment_intent.disputed');
        const ref = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'refund.created' });
        expect(ref.status, ref.text).toBe(200);
        const got = await r.waitFor((x) => x.length >= 2);
        const bodies = got.map((x) => JSON.parse(x.body));
        const disputed = bodies.find((b) => b.type === 'payment_intent.disputed');
        expect(disputed.data.object).toBe('payment_intent');
        expect(disputed.data.id).toMatch(/^pi_/);
        expect((await m.sb('GET', `/payment-intents/${disputed.data.id}`)).status).toBe(404);
        const refund = bodies.find((b) => b.type === 'refund.created');
        expect(refund.data).toMatchObject({ object: 'refund', status: 'requested' });
        expect(refund.data.id).toMatch(/^re_/);

        const before = (await m.sb('GET', '/webhook_events')).json.data.length;
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.exploded' }), 400, 'parameter_invalid', 'type');
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { type: 7 }), 400, 'parameter_invalid', 'type');
        expectError(await m.sb('POST', '/sandbox/webhooks/trigger', { kind: 'x' }), 400, 'parameter_unknown', 'kind');
        const live = await server().call('live', 'POST', '/sandbox/webhooks/trigger', { key: m.keys.live_secret!, body: {} });
        expectError(live, 400, 'sandbox_only', null);
        expect((await m.sb('GET', '/webhook_events')).json.data.length).toBe(before);
      } finally {
        await r.close();
      }
    });
  });
});
