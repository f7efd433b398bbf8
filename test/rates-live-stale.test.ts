// Stale live reference prices: once the last good fetch is older than COWRIE_RATES_MAX_AGE_S (the server's
// clock moved past it while every source fails), creating an intent, a quote or a link-minted intent answers
// 503 rates_unavailable and writes nothing at all; GET /rates still answers, with the old prices and
// updated_at; /readyz stays 200 and says which prices are stale; the console home shows the prices, their age
// and the stale mark; an intent made before still pays (valued at the last known price), and its embedded
// rate and a locked quote's never change when prices come back. Runs on SQLite and PostgreSQL.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RatesPeer } from '../peers/rates/peer.js';
import { ManualClock } from '../src/shared/clock.js';
import { sendLinkForm, visitLink } from './helpers/checkout.js';
import { consoleHttp } from './helpers/console.js';
import { expectError } from './helpers/expect.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import {
  everyRow,
  liveRatesEnv,
  ratesOf,
  startRatesPeers,
  waitForAllAssets,
  waitForPrice,
  waitForRounds,
  type RatesEntry,
} from './helpers/rates.js';
import { waitFor } from './helpers/wait.js';

const MAX_AGE_S = 60;

describe(`stale live reference prices (${ENGINE})`, () => {
  let s: TestServer;
  let peer: RatesPeer;
  const clock = new ManualClock(Date.now());
  let fresh: RatesEntry[];
  let intent: { id: string; rate: string; pay_amount: string };
  let quote: { id: string; rate: string; target_amount: string };
  let linkUrl: string;
  const { request, signedInUser } = consoleHttp(() => s);

  beforeAll(async () => {
    [peer] = (await startRatesPeers(1)) as [RatesPeer];
    s = await startTestServer({ clock, env: liveRatesEnv([peer], MAX_AGE_S) });
    fresh = await waitForAllAssets(s);
    const i = await s.sandbox('POST', '/payment-intents', { body: { amount: '1500.00', currency: 'KES' } });
    expect(i.status, i.text).toBe(201);
    intent = i.json;
    const q = await s.sandbox('POST', '/quotes', { body: { source_currency: 'KES', target_asset: 'USDT', amount: '1500' } });
    expect(q.status, q.text).toBe(200);
    quote = q.json;
    const l = await s.sandbox('POST', '/payment-links', { body: { amount: '250.00', currency: 'KES', title: 'Basket' } });
    expect(l.status, l.text).toBe(201);
    linkUrl = l.json.url;
    // Every source fails from now on; once a whole refresh has failed, the clock moves past the limit.
    peer.setMode('error');
    await waitForRounds([peer], 1);
    clock.advance((MAX_AGE_S + 1) * 1000);
    await waitFor(
      'readyz to say the prices are stale',
      async () => (await fetch(s.url('test', '/readyz'))).json(),
      (b: any) => b.rates?.status === 'stale',
    );
  });
  afterAll(async () => {
    await s?.stop();
    await peer?.close();
  });

  it('creating an intent, a quote or a link-minted intent answers 503 rates_unavailable and writes nothing', async () => {
    const db = s.running.database.db;
    const before = await everyRow(db);
    const i = await s.sandbox('POST', '/payment-intents', {
      body: { amount: '1500.00', currency: 'KES' },
      headers: { 'idempotency-key': 'stale-intent-1' },
    });
    expectError(i, 503, 'rates_unavailable', null, { type: 'api_error' });
    expect(i.json.error.message).toMatch(
      /^The reference price of USDT in KES is out of date \(last fetched \d{4}-.*\), so nothing was created/,
    );
    const usd = await s.sandbox('POST', '/payment-intents', { body: { amount: '10.00', currency: 'USD', settlement_currency: 'BTC' } });
    expectError(usd, 503, 'rates_unavailable', null, { type: 'api_error' });
    expect(usd.json.error.message).toContain('BTC in USD');
    const q = await s.sandbox('POST', '/quotes', {
      body: { source_currency: 'EUR', target_asset: 'ETH', amount: '0.5', side: 'merchant_receives' },
    });
    expectError(q, 503, 'rates_unavailable', null, { type: 'api_error' });
    const visit = await visitLink(s, linkUrl);
    expect(visit.status).toBe(200);
    const sent = await sendLinkForm(s, visit);
    expect(sent.status).toBe(503);
    expect(sent.headers.get('content-type')).toMatch(/^text\/html/);
    expect(sent.headers.get('location')).toBeNull();
    expect(sent.text).toContain('Prices are being updated, so nothing was charged. Try again in a few minutes.');
    expect(s.logs.some((l) => l['msg'] === 'payment link minted nothing: rates_unavailable')).toBe(true);
    // Not an intent, a quote, a link visit, an event, an idempotency key or a price: nothing.
    expect(await everyRow(db)).toEqual(before);
  });

  it('rates_unavailable is in the error catalogue and in the OpenAPI document of the routes that answer it', async () => {
    const errors = await s.call('test', 'GET', '/docs/errors');
    expect(errors.text).toMatch(/<tr id="rates_unavailable">.*<td>503<\/td><td><code>api_error<\/code><\/td>/);
    const doc = (await s.call('test', 'GET', '/v1/openapi.json')).json;
    for (const path of ['/payment-intents', '/quotes']) {
      expect(JSON.stringify(doc.paths[path].post.responses['503']), path).toContain(
        '[`rates_unavailable`](/docs/errors#rates_unavailable)',
      );
    }
  });

  it('GET /rates still answers, with the old prices and updated_at', async () => {
    expect(await ratesOf(s)).toEqual(fresh);
    for (const entry of fresh) expect(Date.parse(entry.updated_at)).toBeLessThan(clock.nowMs() - MAX_AGE_S * 1000);
  });

  it('/readyz stays 200 and says which prices are stale; /healthz is unchanged', async () => {
    const r = await fetch(s.url('live', '/readyz'));
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: 'ready', rates: { status: 'stale', stale_assets: ['USDT', 'USDC', 'BTC', 'ETH', 'SOL'] } });
    expect(await (await fetch(s.url('live', '/healthz'))).json()).toEqual({ status: 'ok' });
  });

  it('the console home shows the prices, their age and that they are stale', async () => {
    const { cookie } = await signedInUser(s.merchant.merchant.id, 'owner@stale.example', 'owner');
    const home = await request('GET', '/console?env=test', { cookie });
    expect(home.status).toBe(200);
    expect(home.html).toContain('<h2 id="h-prices">Reference prices</h2>');
    expect(home.html).toContain('Live prices, fetched every 1 s. New payments and quotes need a price less than 60 s old.');
    const usdt = /<tr><th scope="row">USDT<\/th>(.*?)<\/tr>/.exec(home.html)?.[1] ?? '';
    expect(usdt).toContain(`<td>${fresh[0]!.prices['KES']}</td>`);
    expect(usdt).toMatch(
      /<time datetime="[^"]+">(6[1-9]|[7-9][0-9]) s ago<\/time> <span class="status">stale: new payments refused<\/span>/,
    );
  });

  it('an intent made before still pays, valued at the last known price', async () => {
    const paid = await s.sandbox('POST', `/sandbox/payment-intents/${intent.id}/simulate`, {
      body: { outcome: 'success', payment_method: 'card' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json.status).toBe('paid');
    expect(paid.json.rate).toBe(intent.rate);
  });

  it('when a source answers again, new prices make intents again; earlier intents and locked quotes keep their rate', async () => {
    peer.setMode('ok');
    peer.scale('1.01');
    const kes = fresh.find((e) => e.asset === 'USDT')!.prices['KES']!;
    const moved = new Decimal(kes).mul('1.01').toFixed();
    await waitForPrice(s, 'USDT', 'KES', moved);
    expect(await (await fetch(s.url('test', '/readyz'))).json()).toEqual({ status: 'ready', rates: { status: 'fresh', stale_assets: [] } });
    // The same Idempotency-Key as the refused request: a 5xx was not remembered, so it runs now.
    const i = await s.sandbox('POST', '/payment-intents', {
      body: { amount: '1500.00', currency: 'KES' },
      headers: { 'idempotency-key': 'stale-intent-1' },
    });
    expect(i.status, i.text).toBe(201);
    expect(i.json.rate).toBe(moved);
    const before = await s.sandbox('GET', `/payment-intents/${intent.id}`);
    expect(before.json.rate).toBe(intent.rate);
    expect(before.json.pay_amount).toBe(intent.pay_amount);
    const locked = await s.running.database.db.selectFrom('quotes').selectAll().where('id', '=', quote.id).executeTakeFirstOrThrow();
    expect(locked.rate).toBe(quote.rate);
    expect(locked.target_amount).toBe(quote.target_amount);
    expect(quote.rate).toBe(kes);
  });
});
