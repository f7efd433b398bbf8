// The live prices as this process knows them (COWRIE_RATES_SOURCE=http): a snapshot in memory of the
// last good prices kept in the database, read at start and again every second, so that every process
// (and a restart) answers the same prices while no request reads the database for them. The one process
// holding the refresh lease writes them (rate-refresh.service.ts); a price older than
// COWRIE_RATES_MAX_AGE_S is stale and makes no new intent or quote.
import type { Logger } from 'pino';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import {
  Decimal,
  FIAT_CURRENCIES,
  SETTLEMENT_ASSETS,
  isAsset,
  isFiat,
  type FiatCurrency,
  type SettlementAsset,
} from '../../shared/money.js';
import { ratesUnavailable, type AssetFreshness, type RateProvider, type RateSnapshot } from './rate-provider.js';
import { readReferencePrices } from './reference-prices.repo.js';

/** How often each process reads the prices again (a new price reaches every process within it). */
export const RATES_RELOAD_MS = 1_000;

interface Known {
  price: Decimal;
  text: string;
  updatedAt: number;
}

export class RateBook implements RateProvider {
  readonly source = 'http' as const;
  private known = new Map<`${SettlementAsset}/${FiatCurrency}`, Known>();
  private reading: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(
    private readonly deps: {
      db: Db;
      /** Real time (or a test's clock): a merchant's sandbox clock never makes a price stale. */
      clock: Clock;
      maxAgeMs: number;
      logger: Logger;
    },
  ) {}

  /** Reads the prices now (one read at a time, so an older read never lands after a newer one). */
  reload(): Promise<void> {
    const run = this.reading.then(() => this.read());
    this.reading = run.catch(() => {});
    return run;
  }

  /** Reads the prices, then again every RATES_RELOAD_MS until close. */
  async open(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => {
      this.reload().then(
        () => {
          if (this.failing) this.deps.logger.info('reference prices readable again');
          this.failing = false;
        },
        (err: unknown) => {
          // Once per outage at warn; the snapshot keeps the prices read last (they go stale by their age).
          this.deps.logger[this.failing ? 'debug' : 'warn']({ err }, 'reading the reference prices failed; trying again');
          this.failing = true;
        },
      );
    }, RATES_RELOAD_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }

  private async read(): Promise<void> {
    const known = new Map<`${SettlementAsset}/${FiatCurrency}`, Known>();
    for (const row of await readReferencePrices(this.deps.db)) {
      // Rows of assets or currencies this version does not know are someone else's; never shown.
      if (!isAsset(row.asset) || !isFiat(row.currency)) continue;
      known.set(`${row.asset}/${row.currency}`, { price: new Decimal(row.price), text: row.price, updatedAt: row.updated_at });
    }
    this.known = known;
  }

  private isStale(updatedAt: number): boolean {
    return this.deps.clock.nowMs() - updatedAt > this.deps.maxAgeMs;
  }

  price(asset: SettlementAsset, currency: FiatCurrency): Decimal {
    const known = this.known.get(`${asset}/${currency}`);
    if (!known || this.isStale(known.updatedAt)) throw ratesUnavailable(asset, currency, known?.updatedAt ?? null);
    return known.price;
  }

  lastKnownPrice(asset: SettlementAsset, currency: FiatCurrency): Decimal {
    const known = this.known.get(`${asset}/${currency}`);
    if (!known) throw ratesUnavailable(asset, currency, null);
    return known.price;
  }

  snapshot(): RateSnapshot[] {
    const out: RateSnapshot[] = [];
    for (const asset of SETTLEMENT_ASSETS) {
      const prices = {} as Record<FiatCurrency, string>;
      let updatedAt = Number.POSITIVE_INFINITY;
      let complete = true;
      for (const currency of FIAT_CURRENCIES) {
        const known = this.known.get(`${asset}/${currency}`);
        if (!known) {
          complete = false;
          break;
        }
        prices[currency] = known.text;
        updatedAt = Math.min(updatedAt, known.updatedAt);
      }
      if (complete) out.push({ asset, prices, updatedAt });
    }
    return out;
  }

  freshness(): AssetFreshness[] {
    return SETTLEMENT_ASSETS.map((asset) => {
      let oldest: number | null = null;
      let stale = false;
      for (const currency of FIAT_CURRENCIES) {
        const known = this.known.get(`${asset}/${currency}`);
        if (!known) {
          stale = true;
          continue;
        }
        oldest = oldest === null ? known.updatedAt : Math.min(oldest, known.updatedAt);
        if (this.isStale(known.updatedAt)) stale = true;
      }
      return { asset, updatedAt: oldest, stale };
    });
  }
}
