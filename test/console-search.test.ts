// The payments list for the shop owner, over real HTTP on both engines: one search box (an id or reference
// prefix, a customer's email or phone, an exact amount in any of its written forms), filters by days in
// the merchant's time zone, status and method, a refused date answered in words (400, nothing else shown),
// the CSV of exactly the filtered list, money with the currency's grouping, statuses in words and times in
// the merchant's zone.
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { consoleHttp } from './helpers/console.js';
import { ENGINE } from './helpers/harness.js';
import { serverAndReceiver } from './helpers/webhooks.js';

describe(`merchant console: payment search, filters and CSV (${ENGINE})`, () => {
  const { server } = serverAndReceiver({});
  let key: string;
  let merchantId: string;
  let cookie: string;
  const made: Record<string, string> = {};

  const { request, signedInUser } = consoleHttp(server);
  const api = (method: string, path: string, body?: unknown) => server().call('test', method, path, { key, body });
  const ids = (html: string) => [...html.matchAll(/<a href="\/console\/payments\/(pi_[0-9A-Za-z]+)\?env=test">/g)].map((m) => m[1]);
  const list = async (query: string) => ids((await request('GET', `/console/payments?env=test&${query}`, { cookie })).html);

  beforeAll(async () => {
    const m = await server().newMerchant({ name: 'Search shop', verified: false });
    key = m.keys.test_secret;
    merchantId = m.merchant.id;
    cookie = (await signedInUser(merchantId, 'owner@search.example', 'owner')).cookie;
    const customer = await api('POST', '/customers', { name: 'Akinyi', email: 'akinyi@shop.example', phone: '+254712345678' });
    expect(customer.status, customer.text).toBe(201);
    const intent = async (name: string, body: Record<string, unknown>) => {
      const r = await api('POST', '/payment-intents', { currency: 'KES', amount: '1000.00', ...body });
      expect(r.status, r.text).toBe(201);
      made[name] = r.json.id;
    };
    await intent('mpesa1', { merchant_reference: 'order_mpesa_1', amount: '1500.00' });
    await intent('mpesa2', { merchant_reference: 'order_mpesa_2', amount: '2500.00' });
    await intent('card', { merchant_reference: 'order_card_1', customer: customer.json.id, amount: '1234567.50' });
    await intent('usd', { merchant_reference: 'inv-9', currency: 'USD', amount: '40.00' });
    const paid = await api('POST', `/sandbox/payment-intents/${made['mpesa1']}/simulate`, { outcome: 'success', payment_method: 'mpesa' });
    expect(paid.json.status, paid.text).toBe('paid');
  });

  it('finds payments by reference or id prefix, customer email or phone, and exact amount', async () => {
    expect((await list('q=order_mpesa')).sort()).toEqual([made['mpesa1'], made['mpesa2']].sort());
    expect(await list('q=order_mpesa_2')).toEqual([made['mpesa2']]);
    expect(await list(`q=${made['usd']!.slice(0, 12)}`)).toContain(made['usd']);
    expect(await list(`q=${made['usd']}`)).toEqual([made['usd']]);
    expect(await list('q=AKINYI%40shop.example')).toEqual([made['card']]);
    expect(await list('q=0712%20345%20678')).toEqual([made['card']]);
    expect(await list('q=%2B254712345678')).toEqual([made['card']]);
    expect(await list('q=1%2C234%2C567.5')).toEqual([made['card']]);
    expect(await list('q=1500')).toEqual([made['mpesa1']]);
    expect(await list('q=40')).toEqual([made['usd']]);
    // Wildcards in the text are taken literally.
    expect(await list('q=order%25')).toEqual([]);
    expect(await list('q=order*')).toEqual([]);
    expect(await list('q=nobody%40else.example')).toEqual([]);
  });

  it('filters by status, method and days in the merchant time zone; a bad day is refused in words', async () => {
    expect(await list('status=paid')).toEqual([made['mpesa1']]);
    expect(await list('method=mpesa')).toEqual([made['mpesa1']]);
    expect(await list('method=card')).toEqual([]);
    expect((await list('status=awaiting_payment')).sort()).toEqual([made['mpesa2'], made['card'], made['usd']].sort());
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Africa/Nairobi' }).format(new Date());
    expect((await list(`from=${today}&to=${today}`)).length).toBe(4);
    expect(await list('from=2020-01-01&to=2020-01-31')).toEqual([]);
    const bad = await request('GET', '/console/payments?env=test&from=2026-02-30', { cookie });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('is not a date');
    expect(ids(bad.html)).toEqual([]);
    const backwards = await request('GET', '/console/payments?env=test&from=2026-03-02&to=2026-03-01', { cookie });
    expect(backwards.status).toBe(400);
    expect(backwards.html).toContain('The first day is after the last');
  });

  it('shows money with grouping, statuses in words and times in the merchant zone with its name', async () => {
    const page = await request('GET', '/console/payments?env=test', { cookie });
    expect(page.html).toContain('KES 1,234,567.50');
    expect(page.html).toContain('KES 1,500.00');
    expect(page.html).toContain('>Awaiting payment<');
    expect(page.html).toContain('>M-Pesa<');
    expect(page.html).toContain('Created<span class="tz"> (Africa/Nairobi)</span>');
    expect(page.html).not.toMatch(/>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    const detail = await request('GET', `/console/payments/${made['card']}?env=test`, { cookie });
    expect(detail.html).toContain('<h1>Payment</h1>');
    expect(detail.html).toMatch(
      /<time datetime="[^"]+Z">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}<\/time><span class="tz"> Africa\/Nairobi<\/span>/,
    );
  });

  it('downloads exactly the filtered list as CSV', async () => {
    const csv = await request('GET', '/console/payments/export.csv?env=test&q=order_mpesa', { cookie });
    expect(csv.status).toBe(200);
    expect(csv.type).toMatch(/^text\/csv/);
    expect(csv.disposition).toContain('attachment');
    const rows = parse(csv.html, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r['id']).sort()).toEqual([made['mpesa1'], made['mpesa2']].sort());
    expect(rows.find((r) => r['id'] === made['mpesa1'])).toMatchObject({
      status: 'paid',
      amount: '1500.00',
      currency: 'KES',
      payment_method: 'mpesa',
    });
    const all = parse((await request('GET', '/console/payments/export.csv?env=test', { cookie })).html, { columns: true });
    expect(all).toHaveLength(4);
    const none = parse((await request('GET', '/console/payments/export.csv?env=test&status=refunded', { cookie })).html, { columns: true });
    expect(none).toHaveLength(0);
    // The list page links to the CSV of what it shows.
    const page = await request('GET', '/console/payments?env=test&status=paid&q=order', { cookie });
    expect(page.html).toContain('href="/console/payments/export.csv?env=test&amp;q=order&amp;status=paid"');
  });

  it('the home page totals paid payments of 30 days per currency as money, with a chart drawn by the server', async () => {
    const home = await request('GET', '/console?env=test', { cookie });
    expect(home.status).toBe(200);
    expect(home.html).toContain('Paid in the last 30 days');
    expect(home.html).toMatch(
      /<div class="card" id="volume-KES"><h3><span class="total">KES 1,500.00<\/span><\/h3><p class="hint">1 paid payment in KES/,
    );
    expect(home.html).toMatch(/<svg class="chart"[^>]*role="img"[^>]*aria-label="KES paid per day/);
    expect(home.html).not.toContain('<script');
    expect(home.html).not.toContain('id="volume-USD"');
  });

  it('in another time zone set by the owner, times and days follow it', async () => {
    const team = await request('GET', '/console/team', { cookie });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(team.html)![1]!;
    const bad = await request('POST', '/console/team/time-zone', { cookie, form: { _csrf: csrf, time_zone: 'Mars/Olympus' } });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('is not a time zone');
    const ok = await request('POST', '/console/team/time-zone', { cookie, form: { _csrf: csrf, time_zone: 'America/Lima' } });
    expect(ok.status).toBe(303);
    // The message after the action comes once, from a short-lived cookie.
    expect(ok.setCookie).toMatch(/^cowrie_flash=[^;]+; Max-Age=60; Path=\/console; HttpOnly; SameSite=Lax$/);
    const flash = ok.setCookie!.split(';')[0]!;
    const page = await request('GET', '/console/payments?env=test', { cookie: `${cookie}; ${flash}` });
    expect(page.html).toContain('(America/Lima)');
    const lima = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/Lima', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const created = (await api('GET', `/payment-intents/${made['usd']}`)).json.created_at as string;
    expect(page.html).toContain(lima.format(Date.parse(created)));
    expect(page.html).toContain('Times are now shown in America/Lima.');
  });
});
