// Live reference prices from several sources, three local sources speaking Coinbase's exchange-rates protocol
// (peers/rates): a price is the median of the sources that answered, a source more than 2 % from it left out
// (exactly 2 % stays in), and new quotes and intents use it; a malformed or non-positive price is skipped and
// logged and the rest of that answer kept; a source that answers no usable JSON, errors, or answers after 5 s
// is skipped and logged; two sources too far apart give no price, and the last good one stays; metrics count
// every call by source and outcome and show each asset's price age. Runs on SQLite and PostgreSQL.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RatesPeer } from '../peers/rates/peer.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { liveRatesEnv, priceOf, startRatesPeers, waitForAllAssets, waitForPrice, waitForRounds } from './helpers/rates.js';
import { freePorts } from './helpers/server-process.js';
import { waitFor } from './helpers/wait.js';

/** Sample values of a metric, by their label text. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\S+?)(\{.*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

describe(`live reference prices from several sources (${ENGINE})`, () => {
  let s: TestServer;
  let peers: RatesPeer[];
  let metricsPort: number;

  const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const fetches = async (peer: RatesPeer, outcome: string) =>
    samples(await scrape(), 'cowrie_rates_fetches_total').get(`{source="${peer.url}",outcome="${outcome}"}`) ?? 0;
  const logged = (msg: string, where: Record<string, unknown>) =>
    s.logs.filter((l) => l['msg'] === msg && Object.entries(where).every(([k, v]) => l[k] === v));
  const setEverywhere = (asset: string, currency: string, values: unknown[]) =>
    values.forEach((v, i) => peers[i]!.setPrice(asset, currency, v));

  beforeAll(async () => {
    peers = await startRatesPeers(3);
    [metricsPort] = (await freePorts(1)) as [number];
    s = await startTestServer({ env: { ...liveRatesEnv(peers), COWRIE_METRICS_PORT: String(metricsPort) } });
    await waitForAllAssets(s);
  });
  afterEach(() => peers.forEach((p) => p.reset()));
  afterAll(async () => {
    await s?.stop();
    await Promise.all(peers?.map((p) => p.close()) ?? []);
  });

  it('a price is the median of the sources, and new quotes and intents are made with it', async () => {
    setEverywhere('USDT', 'KES', ['129', '131', '130']);
    await waitForPrice(s, 'USDT', 'KES', '130');
    const quote = await s.sandbox('POST', '/quotes', { body: { source_currency: 'KES', target_asset: 'USDT', amount: '1300.00' } });
    expect(quote.status, quote.text).toBe(200);
    expect(quote.json.rate).toBe('130');
    expect(quote.json.target_amount).toBe('10.000000');
    const intent = await s.sandbox('POST', '/payment-intents', { body: { amount: '1300.00', currency: 'KES' } });
    expect(intent.status, intent.text).toBe(201);
    expect(intent.json.rate).toBe('130');
    expect(intent.json.pay_amount).toBe('10.000000');
  });

  it('a source more than 2 % from the median is left out of it (and logged); exactly 2 % stays in', async () => {
    // Median 100; 102 is exactly 2 % from it: all three count, the median stays 100.
    setEverywhere('USDC', 'GBP', ['99', '100', '102']);
    await waitForPrice(s, 'USDC', 'GBP', '100');
    // 102.01 is past 2 %: left out, the median of the other two is 99.5.
    setEverywhere('USDC', 'GBP', ['99', '100', '102.01']);
    await waitForPrice(s, 'USDC', 'GBP', '99.5');
    const lines = logged('reference prices left out: more than 2 % from the median of the sources', {
      asset: 'USDC',
      source: peers[2]!.url,
    });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)!['left_out']).toEqual({ GBP: { price: '102.01', median: '100' } });
    // Two answers (the third source fails): their mean.
    peers[2]!.setMode('error', 'USDC');
    setEverywhere('USDC', 'GBP', ['0.79', '0.80', '0.8']);
    await waitForPrice(s, 'USDC', 'GBP', '0.795');
  });

  it('a malformed or non-positive price is skipped and logged; the rest of that answer still counts', async () => {
    setEverywhere('BTC', 'KES', ['0', '12000000', 'a lot']);
    setEverywhere('BTC', 'USD', ['95000', '95100', '95200']);
    await waitForPrice(s, 'BTC', 'KES', '12000000');
    await waitForPrice(s, 'BTC', 'USD', '95100');
    for (const [peer, value] of [
      [peers[0]!, '"0"'],
      [peers[2]!, '"a lot"'],
    ] as const) {
      const lines = logged('reference price source: prices skipped', { source: peer.url, asset: 'BTC', outcome: 'partial' });
      expect(lines.length, peer.url).toBeGreaterThan(0);
      expect(lines.at(-1)!['problems']).toEqual([`KES price ${value} is not a positive decimal string`]);
      expect(await fetches(peer, 'partial')).toBeGreaterThan(0);
    }
    // A negative price, a JSON number and an empty string are not positive decimal strings either.
    setEverywhere('BTC', 'KES', ['-12000000', 12_100_000, '']);
    await waitForRounds(peers, 2);
    expect(await priceOf(s, 'BTC', 'KES')).toBe('12000000');
    expect(logged('reference prices refreshed, some without any source', {}).at(-1)!['missing']).toEqual(['BTC/KES']);
  });

  it('an answer that is not the protocol gives no price: not JSON, another currency, no data', async () => {
    setEverywhere('ETH', 'USD', ['3000', '3010', '2000']);
    peers[2]!.setMode('not_json', 'ETH');
    await waitForPrice(s, 'ETH', 'USD', '3005');
    peers[2]!.setMode('wrong_currency', 'ETH');
    setEverywhere('ETH', 'USD', ['3100', '3110', '2000']);
    await waitForPrice(s, 'ETH', 'USD', '3105');
    peers[2]!.setMode('no_data', 'ETH');
    setEverywhere('ETH', 'USD', ['3200', '3210', '2000']);
    await waitForPrice(s, 'ETH', 'USD', '3205');
    const lines = logged('reference price source skipped', { source: peers[2]!.url, asset: 'ETH', outcome: 'malformed' });
    const problems = new Set(lines.flatMap((l) => l['problems'] as string[]));
    expect(problems).toEqual(
      new Set(['answered something that is not JSON', 'answered the rates of "ETHX", not ETH', 'answered without data.rates']),
    );
    expect(await fetches(peers[2]!, 'malformed')).toBeGreaterThanOrEqual(3);
  });

  it('a source that errors is skipped and logged; two left that are more than 4 % apart give no price, and the last good one stays', async () => {
    const before = await priceOf(s, 'SOL', 'EUR');
    peers[2]!.setMode('error', 'SOL');
    setEverywhere('SOL', 'EUR', ['150', '160', '155']);
    await waitForRounds(peers, 2);
    // Median 155: both answers are more than 2 % from it, so neither counts.
    expect(await priceOf(s, 'SOL', 'EUR')).toBe(before);
    const skipped = logged('reference price source skipped', { source: peers[2]!.url, asset: 'SOL', outcome: 'error' });
    expect(skipped.at(-1)!['problems']).toEqual(['answered HTTP 500']);
    expect(await fetches(peers[2]!, 'error')).toBeGreaterThan(0);
    expect(logged('reference prices refreshed, some without any source', {}).at(-1)!['missing']).toContain('SOL/EUR');
    // Once they agree again, the price follows.
    setEverywhere('SOL', 'EUR', ['150', '151', '155']);
    await waitForPrice(s, 'SOL', 'EUR', '150.5');
  });

  it('a source answering after 5 s is skipped and logged; the others make the price', async () => {
    // All three count: 152. Without the late one: 151.
    setEverywhere('SOL', 'USD', ['150', '152', '152']);
    await waitForPrice(s, 'SOL', 'USD', '152');
    peers[2]!.setDelay(6_000, 'SOL');
    setEverywhere('SOL', 'USD', ['150', '152', '153']);
    const started = Date.now();
    await waitForPrice(s, 'SOL', 'USD', '151', 20_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    const lines = logged('reference price source skipped', { source: peers[2]!.url, asset: 'SOL', outcome: 'timeout' });
    expect(lines.at(-1)!['problems']).toEqual(['did not answer within 5000 ms']);
    expect(await fetches(peers[2]!, 'timeout')).toBeGreaterThan(0);
  });

  it('metrics: fetches by source and outcome, and the age of each asset’s prices', async () => {
    await waitForRounds(peers, 1);
    for (const peer of peers) expect(await fetches(peer, 'ok')).toBeGreaterThan(0);
    const text = await scrape();
    expect(text).toContain('# TYPE cowrie_rates_fetches_total counter');
    expect(text).toContain('# TYPE cowrie_rates_price_age_seconds gauge');
    const ages = samples(text, 'cowrie_rates_price_age_seconds');
    expect([...ages.keys()].sort()).toEqual(['{asset="BTC"}', '{asset="ETH"}', '{asset="SOL"}', '{asset="USDC"}', '{asset="USDT"}']);
    for (const age of ages.values()) {
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThan(10);
    }
    // The metrics listener's /readyz (a worker process's probe) says so too.
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).json()).toEqual({
      status: 'ready',
      rates: { status: 'fresh', stale_assets: [] },
    });
    // The age grows while no source answers.
    for (const p of peers) p.setMode('error');
    await waitForRounds(peers, 1);
    const first = samples(await scrape(), 'cowrie_rates_price_age_seconds').get('{asset="USDT"}')!;
    await waitFor(
      'the USDT price age to grow',
      async () => samples(await scrape(), 'cowrie_rates_price_age_seconds').get('{asset="USDT"}')!,
      (age) => age >= first + 1,
    );
  });
});
