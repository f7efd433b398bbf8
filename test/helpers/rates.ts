// What the live reference price tests share: local price sources (peers/rates), the variables that point a
// server at them, reading GET /rates, waiting for a price to arrive, and every row of the database to show
// that a refused request wrote nothing.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { startRatesPeer, type RatesPeer } from '../../peers/rates/peer.js';
import type { TestServer } from './harness.js';
import { waitFor } from './wait.js';

export async function startRatesPeers(n: number): Promise<RatesPeer[]> {
  return Promise.all(Array.from({ length: n }, () => startRatesPeer()));
}

/** A server fetching from these sources every second (the shortest refresh), stale after `maxAgeS`. */
export function liveRatesEnv(peers: readonly RatesPeer[], maxAgeS = 600): Record<string, string> {
  return {
    COWRIE_RATES_SOURCE: 'http',
    COWRIE_RATES_URLS: peers.map((p) => p.url).join(','),
    COWRIE_RATES_REFRESH_S: '1',
    COWRIE_RATES_MAX_AGE_S: String(maxAgeS),
  };
}

export interface RatesEntry {
  asset: string;
  prices: Record<string, string>;
  updated_at: string;
}

export async function ratesOf(s: TestServer): Promise<RatesEntry[]> {
  const r = await s.sandbox('GET', '/rates');
  if (r.status !== 200) throw new Error(`GET /rates answered ${r.status}: ${r.text}`);
  return r.json.data as RatesEntry[];
}

export async function priceOf(s: TestServer, asset: string, currency: string): Promise<string | undefined> {
  return (await ratesOf(s)).find((e) => e.asset === asset)?.prices[currency];
}

/** Waits until GET /rates shows `expected` for the asset in the currency (a refresh and a reload later). */
export function waitForPrice(s: TestServer, asset: string, currency: string, expected: string, timeoutMs = 15_000): Promise<unknown> {
  return waitFor(
    `${asset}/${currency} at ${expected}`,
    () => priceOf(s, asset, currency),
    (p) => p === expected,
    { timeoutMs },
  );
}

/** Waits until GET /rates prices every asset (the first refresh has been read). */
export function waitForAllAssets(s: TestServer): Promise<RatesEntry[]> {
  return waitFor(
    'every asset priced',
    () => ratesOf(s),
    (d) => d.length === 5,
  );
}

/**
 * Every row of every table but the rate limiter's buckets, the migration bookkeeping and the leases (the
 * background jobs renew theirs whatever the requests do).
 */
export async function everyRow(db: Kysely<DB>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await db.introspection.getTables()) {
    if (table.name.startsWith('kysely_') || table.name === 'rate_limit_buckets' || table.name === 'leases') continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    out[table.name] = rows.rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}

/** Waits until each peer has been asked for every asset `rounds` more times than now (whole refreshes ran). */
export async function waitForRounds(peers: readonly RatesPeer[], rounds = 1, timeoutMs = 15_000): Promise<void> {
  const assets = ['USDT', 'USDC', 'BTC', 'ETH', 'SOL'];
  const before = peers.map((p) => assets.map((a) => p.callsFor(a)));
  await waitFor(
    `${rounds} more refresh${rounds === 1 ? '' : 'es'}`,
    () => peers.map((p, i) => assets.every((a, j) => p.callsFor(a) >= before[i]![j]! + rounds)),
    (done) => done.every(Boolean),
    { timeoutMs },
  );
}
