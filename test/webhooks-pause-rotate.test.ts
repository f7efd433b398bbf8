// Pausing, resuming and rotating the secret of a webhook endpoint (rotate the secret, effective at once;
// pause and resume, deliveries of a paused endpoint wait, are not attempted and count no attempt, and go out
// on resume; a paused endpoint has `status` `paused` in the API). The console will call these service
// methods; the tests call them as it will, against a real server and a real local receiver.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { nextDueAt } from '../src/modules/webhooks/index.js';
import { AppError } from '../src/shared/errors.js';
import type { MerchantScope } from '../src/shared/scope.js';
import { ENGINE } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';
import { startReceiver, type Received } from './helpers/webhook-receiver.js';
import {
  ENDPOINT_KEYS,
  META_KEYS,
  deliveriesAtRest,
  freshMerchant,
  paidIntent,
  sleep,
  verifyServiceSignature,
  serverAndReceiver,
  workerPass,
} from './helpers/webhooks.js';

/** The refusal `p` rejects with, which must be an AppError. */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a refusal, got an answer');
}

/** The Standard Webhooks check of one received request, keyed with `secret` in the raw format. */
function standardVerifies(secret: string, got: Received): boolean {
  try {
    new Webhook(secret, { format: 'raw' }).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

const eventIdOf = (got: Received) => String(got.headers['service-event-id']);

describe(`webhook endpoints: pause, resume, rotate (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();

  const webhooks = () => server().running.services.webhooks;
  const pause = (scope: MerchantScope, id: string) => webhooks().pause(scope, id);
  const resume = (scope: MerchantScope, id: string) => webhooks().resume(scope, id);
  const rotate = (scope: MerchantScope, id: string) => webhooks().rotateSecret(scope, id);
  const merchant = async () => {
    const m = await freshMerchant(server());
    const scope: MerchantScope = { merchantId: m.merchant.id, environment: 'test' };
    return { ...m, scope };
  };

  it('a paused endpoint gets nothing, attempted never and counted never; resumed, every event arrives once, promptly', async () => {
    const m = await merchant();
    const r = await startReceiver();
    try {
      const e = await m.sb('POST', '/webhook_endpoints', { url: `${r.url}/hook` });
      expect(e.status, e.text).toBe(201);
      const id = e.json.id as string;
      // Delivery works before the pause.
      const first = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      expect(first.status, first.text).toBe(200);
      const evt0 = first.json.event as string;
      await r.waitFor((x) => x.length >= 1);

      const paused = await webhooks().pause(m.scope, id);
      expect(paused).toMatchObject({ id, object: 'webhook_endpoint', status: 'paused', url: `${r.url}/hook`, livemode: false });
      expect(Object.keys(paused).sort()).toEqual(ENDPOINT_KEYS);
      const shown = await m.sb('GET', `/webhook_endpoints/${id}`);
      expect(shown.status, shown.text).toBe(200);
      expect(shown.json.status).toBe('paused');
      const listed = await m.sb('GET', '/webhook_endpoints');
      expect(listed.json.data.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([[id, 'paused']]);

      // While paused: a simulated payment (created, confirming, paid), a triggered event and a resend of the
      // first event. The endpoint is still subscribed, so each of them makes a delivery for it.
      await paidIntent(m.sb);
      const failed = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.failed' });
      expect(failed.status, failed.text).toBe(200);
      const resend = await m.sb('POST', `/webhook_events/${evt0}/resend`);
      expect(resend.status, resend.text).toBe(200);
      expect(resend.json.resent).toBe(1);
      const all = await m.sb('GET', '/webhook_events?limit=100');
      const held = (all.json.data as Array<{ id: string }>).map((x) => x.id).filter((x) => x !== evt0);
      expect(held).toHaveLength(4);
      expect(held).toContain(failed.json.event);

      // The worker has claimed each of them and parked it (pending, no due time), not sent it.
      const db = server().running.database.db;
      await deliveriesAtRest(db, m.merchant.id);
      expect(r.received).toHaveLength(1);
      for (const evt of held) {
        const insp = await m.sb('GET', `/webhook_events/${evt}`);
        expect(insp.json.deliveries, evt).toHaveLength(1);
        expect(insp.json.deliveries[0]).toMatchObject({
          endpoint: id,
          status: 'pending',
          attempt_count: 0,
          attempts: [],
          next_attempt_at: null,
          last_attempt_at: null,
        });
      }
      const resent = await m.sb('GET', `/webhook_events/${evt0}`);
      expect(resent.json.deliveries.map((d: { status: string; attempt_count: number }) => [d.status, d.attempt_count])).toEqual([
        ['succeeded', 1],
        ['pending', 0],
      ]);
      const attempts = await db.selectFrom('webhook_attempts').select('event_id').where('endpoint_id', '=', id).execute();
      expect(attempts.map((a) => a.event_id)).toEqual([evt0]);
      // Held deliveries have no due time: the worker does not keep waking for them.
      const due = await nextDueAt(db);
      expect(due === null || due > Date.now(), `next due at ${due}`).toBe(true);

      // Settle the worker into its idle wait: a delivery of another merchant, its outcome recorded. From
      // here, without a wake-up, the held deliveries would wait most of a second for the worker's next look.
      await deliveriesAtRest(db, await workerPass(server(), receiver()));
      // The recording wakes the worker for one more claim, which finds nothing and leaves no trace to wait
      // for: a fixed moment lets it end, so that only resume can make the next claim come early.
      await sleep(100);
      const resumedAt = performance.now();
      const resumed = await webhooks().resume(m.scope, id);
      expect(resumed).toMatchObject({ id, status: 'enabled' });
      expect((await m.sb('GET', `/webhook_endpoints/${id}`)).json.status).toBe('enabled');
      const got = await r.waitFor((x) => x.length >= 6, 10_000, 'the held deliveries');
      // Resume wakes the workers as a new event does, rather than leaving the deliveries to the next poll.
      expect(got[1]!.at - resumedAt).toBeLessThan(300);
      // Each delivered once: all recorded, none sent again.
      await deliveriesAtRest(db, m.merchant.id);
      expect(r.received).toHaveLength(6);
      const counts = new Map<string, number>();
      for (const x of r.received) counts.set(eventIdOf(x), (counts.get(eventIdOf(x)) ?? 0) + 1);
      expect(Object.fromEntries(counts)).toEqual(Object.fromEntries([[evt0, 2], ...held.map((evt) => [evt, 1] as const)]));
      for (const x of r.received) expect(verifyServiceSignature(e.json.secret, x.headers, x.body)).toBe(true);
      for (const evt of held) {
        const insp = await m.sb('GET', `/webhook_events/${evt}`);
        expect(insp.json.deliveries[0]).toMatchObject({ status: 'succeeded', attempt_count: 1, last_status_code: 200 });
      }
    } finally {
      await r.close();
    }
  });

  it('a rotated secret signs at once: the retry of a failing delivery and later ones verify with the new secret only', async () => {
    const m = await merchant();
    let answerFirst!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
    // The first attempt is held open until the secret is rotated, then fails with 500; the rest succeed.
    const r = await startReceiver(async (_req, i) => {
      if (i > 0) return { status: 200 };
      await firstAnswered;
      return { status: 500 };
    });
    try {
      const e = await m.sb('POST', '/webhook_endpoints', { url: r.url, events: ['payment_intent.paid'] });
      const oldSecret = e.json.secret as string;
      const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      expect(t.status, t.text).toBe(200);
      const [attempt1] = await r.waitFor((x) => x.length >= 1);

      const rotated = await webhooks().rotateSecret(m.scope, e.json.id);
      answerFirst();
      expect(rotated).toMatchObject({ id: e.json.id, object: 'webhook_endpoint', status: 'enabled', url: r.url });
      expect(Object.keys(rotated).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
      expect(rotated.secret).toMatch(/^cwk_whsec_[A-Za-z0-9]{32}$/);
      expect(rotated.secret).not.toBe(oldSecret);
      // Shown once: the API never shows it.
      const shown = await m.sb('GET', `/webhook_endpoints/${e.json.id}`);
      expect(Object.keys(shown.json).sort()).toEqual([...ENDPOINT_KEYS, ...META_KEYS].sort());

      const [, attempt2] = await r.waitFor((x) => x.length >= 2, 10_000, 'the retry');
      expect(eventIdOf(attempt2!)).toBe(t.json.event);
      expect(attempt2!.body).toBe(attempt1!.body);
      // The first attempt was signed before the rotation, the retry after it.
      expect(verifyServiceSignature(oldSecret, attempt1!.headers, attempt1!.body)).toBe(true);
      expect(verifyServiceSignature(rotated.secret, attempt1!.headers, attempt1!.body)).toBe(false);
      expect(verifyServiceSignature(rotated.secret, attempt2!.headers, attempt2!.body)).toBe(true);
      expect(verifyServiceSignature(oldSecret, attempt2!.headers, attempt2!.body)).toBe(false);
      expect(standardVerifies(rotated.secret, attempt2!)).toBe(true);
      expect(standardVerifies(oldSecret, attempt2!)).toBe(false);

      const later = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      const [, , next] = await r.waitFor((x) => x.length >= 3, 10_000, 'a later delivery');
      expect(eventIdOf(next!)).toBe(later.json.event);
      expect(verifyServiceSignature(rotated.secret, next!.headers, next!.body)).toBe(true);
      expect(verifyServiceSignature(oldSecret, next!.headers, next!.body)).toBe(false);
      expect(standardVerifies(rotated.secret, next!)).toBe(true);
      expect(standardVerifies(oldSecret, next!)).toBe(false);

      const insp = await waitFor(
        'the retried delivery recorded',
        () => m.sb('GET', `/webhook_events/${t.json.event}`),
        (x) => x.json.deliveries[0].status !== 'pending',
      );
      expect(insp.json.deliveries[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
      expect(insp.json.deliveries[0].attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);
    } finally {
      answerFirst();
      await r.close();
    }
  });

  it('pause and resume are idempotent; unknown, deleted and other merchants’ endpoints are missing', async () => {
    const m = await merchant();
    const other = await merchant();
    const e = await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
    const id = e.json.id as string;
    expect((await webhooks().pause(m.scope, id)).status).toBe('paused');
    expect((await webhooks().pause(m.scope, id)).status).toBe('paused');
    expect((await m.sb('GET', `/webhook_endpoints/${id}`)).json.status).toBe('paused');
    expect((await webhooks().resume(m.scope, id)).status).toBe('enabled');
    expect((await webhooks().resume(m.scope, id)).status).toBe('enabled');
    expect((await m.sb('GET', `/webhook_endpoints/${id}`)).json.status).toBe('enabled');
    const a = await webhooks().rotateSecret(m.scope, id);
    const b = await webhooks().rotateSecret(m.scope, id);
    expect(a.secret).not.toBe(b.secret);

    const gone = await m.sb('POST', '/webhook_endpoints', { url: receiver().url });
    expect((await m.sb('DELETE', `/webhook_endpoints/${gone.json.id}`)).status).toBe(200);
    const elsewhere: Array<[MerchantScope, string]> = [
      [m.scope, 'we_doesnotexist'],
      [m.scope, gone.json.id],
      [other.scope, id],
      [{ ...m.scope, environment: 'live' }, id],
    ];
    for (const [scope, target] of elsewhere) {
      for (const op of [pause, resume, rotate]) {
        const err = await refusal(op(scope, target));
        expect([err.code, err.status, err.param]).toEqual(['resource_missing', 404, 'id']);
      }
    }
    // Nothing was changed by the refusals.
    expect((await m.sb('GET', `/webhook_endpoints/${id}`)).json.status).toBe('enabled');
  });

  it('a disabled endpoint cannot be paused or resumed; its secret can still be rotated', async () => {
    const m = await merchant();
    const r = await startReceiver(() => ({ status: 410 }));
    try {
      const e = await m.sb('POST', '/webhook_endpoints', { url: r.url });
      const id = e.json.id as string;
      await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      await r.waitFor((x) => x.length >= 1);
      const ep = await waitFor(
        'the endpoint disabled by its 410',
        () => m.sb('GET', `/webhook_endpoints/${id}`),
        (x) => x.json.status === 'disabled',
      );
      expect(ep.json.status).toBe('disabled');
      for (const op of [pause, resume]) {
        const err = await refusal(op(m.scope, id));
        expect([err.code, err.status, err.param]).toEqual(['parameter_invalid', 400, 'id']);
        expect(err.message).toMatch(/disabled/);
      }
      expect((await m.sb('GET', `/webhook_endpoints/${id}`)).json.status).toBe('disabled');
      const rotated = await webhooks().rotateSecret(m.scope, id);
      expect(rotated).toMatchObject({ id, status: 'disabled' });
      expect(rotated.secret).not.toBe(e.json.secret);
      // Still disabled: later events make no delivery for it.
      const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      expect((await m.sb('GET', `/webhook_events/${t.json.event}`)).json.deliveries).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('deleting a paused endpoint cancels the deliveries that waited for it', async () => {
    const m = await merchant();
    const r = await startReceiver();
    try {
      const e = await m.sb('POST', '/webhook_endpoints', { url: r.url });
      await webhooks().pause(m.scope, e.json.id);
      const t = await m.sb('POST', '/sandbox/webhooks/trigger', { type: 'payment_intent.paid' });
      // Claimed and parked by the worker, not attempted.
      await deliveriesAtRest(server().running.database.db, m.merchant.id);
      expect((await m.sb('GET', `/webhook_events/${t.json.event}`)).json.deliveries[0]).toMatchObject({
        status: 'pending',
        attempt_count: 0,
      });
      expect((await m.sb('DELETE', `/webhook_endpoints/${e.json.id}`)).status).toBe(200);
      expect((await m.sb('GET', `/webhook_events/${t.json.event}`)).json.deliveries[0]).toMatchObject({
        status: 'cancelled',
        attempt_count: 0,
      });
      // The worker has claimed and sent since the deletion, and sent it nothing.
      await workerPass(server(), receiver());
      expect(r.received).toHaveLength(0);
    } finally {
      await r.close();
    }
  });
});
