// Live reference prices across a restart: the last good prices are in the database, so a
// server started again while every source is down answers them at once (same prices, same updated_at) and
// makes intents with them while they are fresh; the rate table (COWRIE_RATES_SOURCE=file) stays the default
// and ignores them. Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RatesPeer } from '../peers/rates/peer.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { liveRatesEnv, ratesOf, startRatesPeers, waitForPrice, waitForRounds } from './helpers/rates.js';
import { readFileSync } from 'node:fs';

const TABLE = JSON.parse(readFileSync(new URL('../config/rates.json', import.meta.url), 'utf8')) as {
  updated_at: string;
  prices: Record<string, Record<string, string>>;
};

describe(`live reference prices across a restart (${ENGINE})`, () => {
  let db: TestDatabase;
  let peer: RatesPeer;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const s = await startTestServer({ databaseUrl: db.url, env });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    [peer] = (await startRatesPeers(1)) as [RatesPeer];
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await peer?.close();
    await db?.drop();
  });

  it('a restart answers the last good prices at once, with their updated_at, and makes intents with them', async () => {
    peer.setPrice('USDT', 'KES', '131.5');
    const first = await start(liveRatesEnv([peer]));
    await waitForPrice(first, 'USDT', 'KES', '131.5');
    // Every source fails from now on: once a whole refresh has failed, the prices are the last good ones.
    peer.setMode('error');
    await waitForRounds([peer], 1);
    const before = await ratesOf(first);
    await first.stop();

    const second = await start(liveRatesEnv([peer]));
    // Read at start, before any refresh could have answered (every source fails anyway).
    expect(await ratesOf(second)).toEqual(before);
    const r = await second.sandbox('POST', '/payment-intents', { body: { amount: '263.00', currency: 'KES' } });
    expect(r.status, r.text).toBe(201);
    expect(r.json.rate).toBe('131.5');
    expect(r.json.pay_amount).toBe('2.000000');
    await waitForRounds([peer], 1);
    expect(await ratesOf(second)).toEqual(before);
    expect(await (await fetch(second.url('test', '/readyz'))).json()).toEqual({
      status: 'ready',
      rates: { status: 'fresh', stale_assets: [] },
    });
    await second.stop();
  });

  it('the rate table stays the default: without COWRIE_RATES_SOURCE the server answers it, whatever the database holds', async () => {
    const s = await start({});
    const data = await ratesOf(s);
    expect(data.map((d) => d.asset)).toEqual(['USDT', 'USDC', 'BTC', 'ETH', 'SOL']);
    for (const entry of data) {
      expect(entry.prices).toEqual(TABLE.prices[entry.asset]);
      expect(entry.updated_at).toBe(TABLE.updated_at);
    }
    // Never stale, and /readyz says nothing about prices.
    expect(await (await fetch(s.url('test', '/readyz'))).json()).toEqual({ status: 'ready' });
    const rows = await s.running.database.db.selectFrom('reference_prices').select('asset').execute();
    expect(rows.length).toBe(50);
    await s.stop();
  });
});
