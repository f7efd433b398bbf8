// Where prices come from. The built-in provider reads a table (COWRIE_RATES_FILE, with a shipped default
// in config/rates.json); a provider that fetches a feed implements the same interface.
import { readFileSync } from 'node:fs';
import { Decimal, FIAT_CURRENCIES, SETTLEMENT_ASSETS, type FiatCurrency, type SettlementAsset } from '../../shared/money.js';

export interface RateSnapshot {
  asset: SettlementAsset;
  /** Fiat price of one unit of the asset, per currency. */
  prices: Record<FiatCurrency, string>;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

export interface RateProvider {
  /** Fiat price of one unit of `asset` in `currency`. */
  price(asset: SettlementAsset, currency: FiatCurrency): Decimal;
  snapshot(): RateSnapshot[];
}

export class RateTableError extends Error {}

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
  return {
    price(asset, currency) {
      return prices.get(`${asset}/${currency}`)!;
    },
    snapshot: () => snapshot,
  };
}
