// The merchant console's record pages, over real HTTP on both engines: refunds, settlements, customers,
// payment links (created in the console, with the URL to copy and a QR code), events with resend (seen by a
// real webhook receiver: the same event id again), and the CSV report of a date range; the live side closed
// until the business is verified.
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleHttp, csrfOf } from './helpers/console.js';
import { ENGINE } from './helpers/harness.js';
import { serverAndReceiver } from './helpers/webhooks.js';

describe(`merchant console: records (${ENGINE})`, () => {
  const { server, receiver } = serverAndReceiver();
  let key: string;
  let cookie: string;
  let paid: string;
  let merchantId: string;

  const http = consoleHttp(server);
  const request = (method: 'GET' | 'POST', path: string, o: { form?: Record<string, string> } = {}) =>
    http.request(method, path, { ...o, cookie });
  const api = (method: string, path: string, body?: unknown) => server().call('test', method, path, { key, body });

  beforeAll(async () => {
    const m = await server().newMerchant({ name: 'Records shop', verified: false });
    key = m.keys.test_secret;
    merchantId = m.merchant.id;
    expect((await api('POST', '/webhook_endpoints', { url: `${receiver().url}/records` })).status).toBe(201);
    cookie = (await http.signedInUser(m.merchant.id, 'owner@records.example', 'owner')).cookie;
    const pi = await api('POST', '/payment-intents', { amount: '12.00', currency: 'USD' });
    paid = pi.json.id;
    await api('POST', `/sandbox/payment-intents/${paid}/simulate`, { outcome: 'success', payment_method: 'card' });
  });

  it('refunds, settlements and customers are listed as the API has them', async () => {
    const refund = await api('POST', '/refunds', { payment_intent: paid });
    expect(refund.status, refund.text).toBe(201);
    const customer = await api('POST', '/customers', { name: 'Wanjiru Kamau', email: 'wanjiru@example.com' });
    const refunds = await request('GET', '/console/refunds?env=test');
    expect(refunds.html).toContain(refund.json.id);
    expect(refunds.html).toContain(`href="/console/payments/${paid}?env=test"`);
    const settlements = await request('GET', '/console/settlements?env=test');
    const st = (await api('GET', `/settlements?payment_intent=${paid}`)).json.data[0];
    expect(settlements.html).toContain(st.id);
    const customers = await request('GET', '/console/customers?env=test');
    expect(customers.html).toContain(customer.json.id);
    expect(customers.html).toContain('Wanjiru Kamau');
    // Live is closed until the business is verified.
    expect((await request('GET', '/console/refunds?env=live')).html).toContain('Live payments open once your business is verified');
  });

  it('a payment link created in the console: its URL to copy, its QR code, and it works', async () => {
    const page = await request('GET', '/console/links?env=test');
    const created = await request('POST', '/console/links?env=test', {
      form: { _csrf: csrfOf(page.html), title: 'Yoga class', currency: 'KES', amount: '1500' },
    });
    expect(created.status).toBe(303);
    const links = (await api('GET', '/payment-links')).json.data;
    expect(links[0]).toMatchObject({ title: 'Yoga class', currency: 'KES', amount: '1500.00' });
    const list = await request('GET', '/console/links?env=test');
    expect(list.html).toContain(`readonly value="${links[0].url}"`);
    expect(list.html).toMatch(/<img src="data:image\/png;base64,[^"]+" alt="QR code of Yoga class"/);
    expect((await fetch(server().url('test', new URL(links[0].url).pathname))).status).toBe(200);
    const bad = await request('POST', '/console/links?env=test', { form: { _csrf: csrfOf(page.html), title: 'X', currency: 'XXX' } });
    expect(bad.status).toBe(400);
    // A developer reads links but does not create them: links are among what a developer only reads.
    const devCookie = (await http.signedInUser(merchantId, 'dev@records.example', 'developer')).cookie;
    const devHtml = (await http.request('GET', '/console/links?env=test', { cookie: devCookie })).html;
    expect(devHtml).toContain('Yoga class');
    expect(devHtml).not.toContain('Create link');
    const refused = await http.request('POST', '/console/links?env=test', {
      cookie: devCookie,
      form: { _csrf: csrfOf(devHtml), title: 'Dev link', currency: 'KES' },
    });
    expect(refused.status).toBe(403);
  });

  it('events are listed with their deliveries; resend sends the same event again', async () => {
    await receiver().waitFor((r) => r.some((x) => JSON.parse(x.body).type === 'payment_intent.paid'), 5000);
    const paidEvent = receiver().received.find((x) => JSON.parse(x.body).type === 'payment_intent.paid')!;
    const eventId = String(paidEvent.headers['service-event-id']);
    const events = await request('GET', '/console/events?env=test');
    expect(events.html).toContain(eventId);
    const resent = await request('POST', `/console/events/${eventId}/resend?env=test`, { form: { _csrf: csrfOf(events.html) } });
    expect(resent.status).toBe(303);
    await receiver().waitFor((r) => r.filter((x) => x.headers['service-event-id'] === eventId).length === 2, 5000);
  });

  it('reports: the CSV of a date range downloads with the paid payment in it', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const csv = await request('GET', `/console/reports/download?env=test&kind=payments&from=${today}&to=${today}`);
    expect(csv.status).toBe(200);
    expect(csv.type).toBe('text/csv; charset=utf-8');
    expect(csv.disposition).toMatch(/^attachment; filename=".+\.csv"$/);
    expect(csv.html).toContain(paid);
    const bad = await request('GET', '/console/reports/download?env=test&kind=payments&from=2026-13-01');
    expect(bad.status).toBe(400);
    expect((await request('GET', '/console/reports?env=test')).html).toContain('Download CSV');
  });
});
