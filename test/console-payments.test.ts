// The merchant console's payments and sandbox tools, over real HTTP on both engines: the payments list with
// its status filter, search by id and merchant_reference and keyset paging; a payment's page with its
// timeline of events, webhook deliveries with every attempt, and pay attempts; the sandbox driver taking a
// test payment to every outcome through the API's own code path (the effect checked through the API and a
// real webhook receiver); the sandbox clock; a viewer offered neither.
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleHttp } from './helpers/console.js';
import { ENGINE } from './helpers/harness.js';
import { waitFor } from './helpers/wait.js';
import { serverAndReceiver } from './helpers/webhooks.js';

describe(`merchant console: payments and sandbox tools (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver({ COWRIE_ALLOW_PRIVATE_WEBHOOKS: '1', COWRIE_WEBHOOK_BACKOFF_SCALE: '0.001' });
  let key: string;
  let merchantId: string;
  let ownerCookie: string;
  let viewerCookie: string;

  const { request, signedInUser, csrfOf } = consoleHttp(server);
  const signIn = async (role: 'owner' | 'viewer') => (await signedInUser(merchantId, `${role}@pay.example`, role)).cookie;
  const api = (method: string, path: string, body?: unknown) => server().call('test', method, path, { key, body });
  const intent = async (body: Record<string, unknown> = {}) => {
    const r = await api('POST', '/payment-intents', { amount: '100.00', currency: 'USD', ...body });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };

  beforeAll(async () => {
    const m = await server().newMerchant({ name: 'Console pay shop', verified: false });
    key = m.keys.test_secret;
    merchantId = m.merchant.id;
    expect((await api('POST', '/webhook_endpoints', { url: `${receiver().url}/hook` })).status).toBe(201);
    ownerCookie = await signIn('owner');
    viewerCookie = await signIn('viewer');
  });

  it('lists payments with a status filter, search by id or merchant reference, and keyset paging', async () => {
    const made = [];
    for (let i = 0; i < 27; i++) made.push(await intent({ merchant_reference: `order-${i}` }));
    await api('POST', `/payment-intents/${made[3].id}/cancel`);
    const first = await request('GET', '/console/payments?env=test', { cookie: ownerCookie });
    expect(first.status).toBe(200);
    const ids = (html: string) => [...html.matchAll(/<a href="\/console\/payments\/(pi_[0-9A-Za-z]+)\?env=test">/g)].map((m) => m[1]);
    const page1 = ids(first.html);
    expect(page1).toHaveLength(25);
    expect(page1[0]).toBe(made[26].id);
    const next = /href="(\/console\/payments\?env=test&amp;after=pi_[0-9A-Za-z]+)"/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    const page2 = ids((await request('GET', next, { cookie: ownerCookie })).html);
    expect(page2).toEqual([made[1].id, made[0].id]);
    const cancelled = ids((await request('GET', '/console/payments?env=test&status=cancelled', { cookie: ownerCookie })).html);
    expect(cancelled).toEqual([made[3].id]);
    expect(ids((await request('GET', '/console/payments?env=test&q=order-7', { cookie: ownerCookie })).html)).toEqual([made[7].id]);
    expect(ids((await request('GET', `/console/payments?env=test&q=${made[9].id}`, { cookie: ownerCookie })).html)).toEqual([made[9].id]);
    expect((await request('GET', '/console/payments?env=test&q=nothing-like-it', { cookie: ownerCookie })).html).toContain(
      'No payments match.',
    );
    // Another merchant's payment is not found by id.
    const other = await server().sandbox('POST', '/payment-intents', { body: { amount: '5.00', currency: 'USD' } });
    expect(ids((await request('GET', `/console/payments?env=test&q=${other.json.id}`, { cookie: ownerCookie })).html)).toEqual([]);
    expect((await request('GET', `/console/payments/${other.json.id}?env=test`, { cookie: ownerCookie })).status).toBe(404);
  });

  it('drives a test payment to every outcome of the sandbox driver, with the effect seen over the API and by webhook', async () => {
    const expected: Record<string, string> = {
      success: 'paid',
      attempt_failed: 'awaiting_payment',
      failed: 'failed',
      underpaid: 'awaiting_payment',
      overpaid: 'paid',
      review: 'confirming',
      expired: 'expired',
      cancelled: 'cancelled',
    };
    for (const [outcome, status] of Object.entries(expected)) {
      const pi = await intent();
      const page = await request('GET', `/console/payments/${pi.id}?env=test`, { cookie: ownerCookie });
      expect(page.html).toContain('Sandbox: drive this payment');
      const r = await request('POST', `/console/payments/${pi.id}/simulate?env=test`, {
        cookie: ownerCookie,
        form: { _csrf: csrfOf(page.html), outcome, payment_method: 'card' },
      });
      expect(r.status, `${outcome}: ${r.html.slice(0, 300)}`).toBe(303);
      expect((await api('GET', `/payment-intents/${pi.id}`)).json.status, outcome).toBe(status);
    }
    // Duplicate and dispute need a paid payment first.
    const paid = await intent();
    const csrf = csrfOf((await request('GET', `/console/payments/${paid.id}?env=test`, { cookie: ownerCookie })).html);
    for (const outcome of ['success', 'duplicate', 'dispute']) {
      const r = await request('POST', `/console/payments/${paid.id}/simulate?env=test`, {
        cookie: ownerCookie,
        form: { _csrf: csrf, outcome, payment_method: 'card' },
      });
      expect(r.status, outcome).toBe(303);
    }
    const types = async () =>
      receiver()
        .received.filter((x) => JSON.parse(x.body).data?.id === paid.id)
        .map((x) => JSON.parse(x.body).type as string);
    await waitFor('the disputed event delivered', types, (t) => t.includes('payment_intent.disputed'));
    expect(await types()).toEqual(
      expect.arrayContaining([
        'payment_intent.created',
        'payment_intent.paid',
        'payment_intent.duplicate_payment',
        'payment_intent.disputed',
      ]),
    );
    // A refused outcome is shown on the page, nothing changes.
    const refused = await request('POST', `/console/payments/${paid.id}/simulate?env=test`, {
      cookie: ownerCookie,
      form: { _csrf: csrf, outcome: 'cancelled', payment_method: 'card' },
    });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('role="alert"');
    expect((await api('GET', `/payment-intents/${paid.id}`)).json.status).toBe('paid');
  });

  it('a payment’s page shows its timeline: events, webhook deliveries with every attempt, and pay attempts', async () => {
    receiver().setHandler(() => ({ status: 500 }));
    const pi = await intent();
    await receiver().waitFor((r) => r.some((x) => JSON.parse(x.body).data?.id === pi.id), 5000);
    receiver().setHandler(() => ({ status: 200 }));
    const page = await request('GET', `/console/payments/${pi.id}?env=test`, { cookie: ownerCookie });
    const csrf = csrfOf(page.html);
    await request('POST', `/console/payments/${pi.id}/simulate?env=test`, {
      cookie: ownerCookie,
      form: { _csrf: csrf, outcome: 'attempt_failed', payment_method: 'card' },
    });
    await request('POST', `/console/payments/${pi.id}/simulate?env=test`, {
      cookie: ownerCookie,
      form: { _csrf: csrf, outcome: 'success', payment_method: 'card' },
    });
    // The first delivery failed once (500), then succeeded on its retry.
    const html = await waitFor(
      'the retried delivery on the page',
      async () => (await request('GET', `/console/payments/${pi.id}?env=test`, { cookie: ownerCookie })).html,
      (page) => /Attempt 2: succeeded \(HTTP 200\)/.test(page),
      { intervalMs: 100 },
    );
    expect(html).toMatch(/Attempt 1: failed \(HTTP 500\)/);
    expect(html).toMatch(/Attempt 2: succeeded \(HTTP 200\)/);
    for (const t of ['payment_intent.created', 'payment_intent.payment_failed', 'payment_intent.confirming', 'payment_intent.paid']) {
      expect(html).toContain(`<strong>${t}</strong>`);
    }
    expect(html).toContain('card_declined');
    // The rails' own attempts: an M-Pesa push through the checkout's sandbox rail, pending until the phone answers.
    const mpesa = await intent({ amount: '1500.00', currency: 'KES' });
    const rail = server().running.services.rails.railFor('test', 'mpesa')!;
    const row = await server().running.services.intents.getRow({ merchantId, environment: 'test' }, mpesa.id);
    await rail.startPayment({
      scope: { merchantId, environment: 'test' },
      intent: row,
      method: 'mpesa',
      details: { phone: '+254700000003' },
    });
    const mpesaPage = (await request('GET', `/console/payments/${mpesa.id}?env=test`, { cookie: ownerCookie })).html;
    expect(mpesaPage).toMatch(/<h2 id="h-rail">Rail attempts<\/h2>.*<td[^>]*>mpesa<\/td><td[^>]*>pending<\/td>/s);
    expect(html.indexOf('payment_intent.created')).toBeLessThan(html.indexOf('payment_intent.paid'));
  });

  it('advances the sandbox clock through the same path as the API: an intent past its expiry is expired at once', async () => {
    const pi = await intent();
    const home = await request('GET', '/console?env=test', { cookie: ownerCookie });
    expect(home.html, home.html.slice(0, 2000)).toContain('Sandbox clock');
    const bad = await request('POST', '/console/sandbox/clock?env=test', {
      cookie: ownerCookie,
      form: { _csrf: csrfOf(home.html), seconds: 'soon' },
    });
    expect(bad.status).toBe(400);
    const r = await request('POST', '/console/sandbox/clock?env=test', {
      cookie: ownerCookie,
      form: { _csrf: csrfOf(home.html), seconds: '7200' },
    });
    expect(r.status).toBe(303);
    const clock = await api('GET', '/sandbox/clock');
    expect(clock.json.offset_seconds).toBe(7200);
    expect((await api('GET', `/payment-intents/${pi.id}`)).json.status).toBe('expired');
  });

  it('a viewer is offered neither tool and is refused if it sends them anyway', async () => {
    const pi = await intent();
    const page = await request('GET', `/console/payments/${pi.id}?env=test`, { cookie: viewerCookie });
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('Sandbox: drive this payment');
    expect((await request('GET', '/console?env=test', { cookie: viewerCookie })).html).not.toContain('Sandbox clock');
    const csrf = csrfOf(page.html);
    expect(
      (
        await request('POST', `/console/payments/${pi.id}/simulate?env=test`, {
          cookie: viewerCookie,
          form: { _csrf: csrf, outcome: 'success', payment_method: 'card' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await request('POST', '/console/sandbox/clock?env=test', { cookie: viewerCookie, form: { _csrf: csrf, seconds: '60' } })).status,
    ).toBe(403);
    expect((await api('GET', `/payment-intents/${pi.id}`)).json.status).toBe('awaiting_payment');
  });
});
