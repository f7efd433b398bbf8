// Where prices come from. Two providers answer the same questions: the rate table (COWRIE_RATES_SOURCE=file,
// the default: COWRIE_RATES_FILE, with a shipped default in config/rates.json), which never goes stale, and
// the book of live prices kept in the database (COWRIE_RATES_SOURCE=http, rate-book.ts), which does.
import { readFileSync } from 'node:fs';
import { AppError } from '../../shared/errors.js';
import { Decimal, FIAT_CURRENCIES, SETTLEMENT_ASSETS, type FiatCurrency, type SettlementAsset } from '../../shared/money.js';

export interface RateSnapshot {
  asset: SettlementAsset;
  /** Fiat price of one unit of the asset, per currency. */
  prices: Record<FiatCurrency, string>;
  /** Milliseconds since the epoch: when the oldest of these prices was fetched. */
  updatedAt: number;
}

/** How old an asset's prices are: its oldest price's fetch time (null: none yet), and whether any is stale. */
export interface AssetFreshness {
  asset: SettlementAsset;
  updatedAt: number | null;
  stale: boolean;
}

export interface RateProvider {
  readonly source: 'file' | 'http';
  /**
   * The price a new intent or quote is made with: fiat price of one unit of `asset` in `currency`.
   * Throws 503 `rates_unavailable` when it is stale or was never fetched.
   */
  price(asset: SettlementAsset, currency: FiatCurrency): Decimal;
  /**
   * The last good price however old, for valuing a payment already made (its receiving caps): a customer
   * who paid is never refused because a price source is down. Throws `rates_unavailable` only when no
   * price was ever fetched.
   */
  lastKnownPrice(asset: SettlementAsset, currency: FiatCurrency): Decimal;
  /** What GET /rates shows: each asset priced in every currency (an asset missing a price is left out). */
  snapshot(): RateSnapshot[];
  freshness(): AssetFreshness[];
}

export class RateTableError extends Error {}

/** A price the provider cannot give: none yet, or older than COWRIE_RATES_MAX_AGE_S. */
export function ratesUnavailable(asset: SettlementAsset, currency: FiatCurrency, updatedAt: number | null): AppError {
  return new AppError(
    'rates_unavailable',
    updatedAt === null
      ? `No reference price of ${asset} in ${currency} has been fetched yet, so nothing was created. Try again shortly.`
      : `The reference price of ${asset} in ${currency} is out of date (last fetched ${new Date(updatedAt).toISOString()}), so nothing was created. Try again shortly.`,
  );
}

/** Reads and checks a rate table: every settlement asset priced in every fiat currency, all positive. */
export function loadRateTable(path: string): RateProvider {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new RateTableError(`Cannot read rate table ${path}: ${(err as Error).message}`);
  }
  const table = raw as { updated_at?: unknown; prices?: Record<string, Record<string, unknown>> };
  const updatedAt = typeof table.updated_at === 'string' ? Date.parse(table.updated_at) : Number.NaN;
  if (!Number.isFinite(updatedAt)) throw new RateTableError(`Rate table ${path}: updated_at must be an ISO date-time`);
  const prices = new Map<string, Decimal>();
  const snapshot: RateSnapshot[] = [];
  for (const asset of SETTLEMENT_ASSETS) {
    const row = table.prices?.[asset];
    if (!row) throw new RateTableError(`Rate table ${path}: no prices for ${asset}`);
    const out = {} as Record<FiatCurrency, string>;
    for (const currency of FIAT_CURRENCIES) {
      const text = row[currency];
      if (typeof text !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(text) || !new Decimal(text).gt(0)) {
        throw new RateTableError(`Rate table ${path}: ${asset}/${currency} must be a positive decimal string`);
      }
      prices.set(`${asset}/${currency}`, new Decimal(text));
      out[currency] = text;
    }
    snapshot.push({ asset, prices: out, updatedAt });
  }
  const price = (asset: SettlementAsset, currency: FiatCurrency) => prices.get(`${asset}/${currency}`)!;
  // The table is the operator's statement of the prices: it never goes stale.
  const freshness = SETTLEMENT_ASSETS.map((asset) => ({ asset, updatedAt, stale: false }));
  return {
    source: 'file',
    price,
    lastKnownPrice: price,
    snapshot: () => snapshot,
    freshness: () => freshness,
  };
}
