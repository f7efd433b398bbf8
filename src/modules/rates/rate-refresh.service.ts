// One refresh of the live reference prices: every source in COWRIE_RATES_URLS is asked for every settlement
// asset, all at once; each price is the median of the sources that answered it, with any source more than 2 %
// from that median left out of it; the prices are written to the database with the time of this refresh, and
// this process's book reads them at once. A price no source could give keeps its last good value (and ages
// towards stale). Run every COWRIE_RATES_REFRESH_S by the one process holding the refresh lease
// (src/jobs/rates-refresh.ts).
import type { Logger } from 'pino';
import type { Db } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { countRateFetch } from '../../shared/metrics.js';
import { Decimal, FIAT_CURRENCIES, SETTLEMENT_ASSETS, type SettlementAsset } from '../../shared/money.js';
import type { RateBook } from './rate-book.js';
import { fetchSourcePrices, RATE_SOURCE_TIMEOUT_MS, type SourceAnswer } from './rate-source.js';
import { saveReferencePrices, type ReferencePrice } from './reference-prices.repo.js';

/** A source further than this from the median (as a fraction of it) is left out of it. */
export const OUTLIER_FRACTION = new Decimal('0.02');

/** The median of a non-empty list: the middle value, or the mean of the two middle values. */
export function medianOf(values: readonly Decimal[]): Decimal {
  const sorted = [...values].sort((a, b) => a.comparedTo(b));
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : sorted[mid - 1]!.plus(sorted[mid]!).div(2);
}

export interface Combined {
  /** null when every source was left out (two sources more than 4 % apart, say): no agreed price. */
  price: Decimal | null;
  median: Decimal;
  /** The sources left out, with what they said. */
  left: Array<{ source: string; price: Decimal }>;
}

/** One price from what the sources answered: the median of those within 2 % of the median of all. */
export function combinePrices(answers: ReadonlyArray<{ source: string; price: Decimal }>): Combined {
  const median = medianOf(answers.map((a) => a.price));
  const limit = median.mul(OUTLIER_FRACTION);
  const kept = answers.filter((a) => a.price.minus(median).abs().lte(limit));
  const left = answers.filter((a) => !kept.includes(a));
  return { price: kept.length === 0 ? null : medianOf(kept.map((a) => a.price)), median, left };
}

export interface RefreshResult {
  /** Prices written by this refresh. */
  updated: number;
  /** Prices none of the sources gave (they keep their last good value). */
  missing: string[];
}

export class RateRefresher {
  constructor(
    private readonly deps: {
      db: Db;
      book: RateBook;
      clock: Clock;
      logger: Logger;
      urls: readonly string[];
      timeoutMs?: number;
    },
  ) {}

  async refresh(): Promise<RefreshResult> {
    const { logger, urls } = this.deps;
    const calls = SETTLEMENT_ASSETS.flatMap((asset) => urls.map((source) => ({ asset, source })));
    const answers = await Promise.all(
      calls.map(async ({ asset, source }) => {
        const answer = await fetchSourcePrices(source, asset, this.deps.timeoutMs ?? RATE_SOURCE_TIMEOUT_MS);
        countRateFetch(source, answer.outcome);
        if (answer.problems.length > 0) {
          logger.warn(
            { source, asset, outcome: answer.outcome, problems: answer.problems },
            answer.prices.size > 0 ? 'reference price source: prices skipped' : 'reference price source skipped',
          );
        }
        return { asset, source, answer };
      }),
    );
    const now = this.deps.clock.nowMs();
    const rows: ReferencePrice[] = [];
    const missing: string[] = [];
    for (const asset of SETTLEMENT_ASSETS) {
      const mine = answers.filter((a) => a.asset === asset);
      // One log line per source and asset, naming each price left out and the median it was far from.
      const leftOut = new Map<string, Record<string, { price: string; median: string }>>();
      for (const currency of FIAT_CURRENCIES) {
        const given = priced(mine, currency);
        if (given.length === 0) {
          missing.push(`${asset}/${currency}`);
          continue;
        }
        const { price, median, left } = combinePrices(given);
        for (const l of left) {
          const entry = leftOut.get(l.source) ?? {};
          entry[currency] = { price: l.price.toFixed(), median: median.toFixed() };
          leftOut.set(l.source, entry);
        }
        if (price === null) {
          missing.push(`${asset}/${currency}`);
          continue;
        }
        rows.push({ asset, currency, price: price.toFixed(), updated_at: now });
      }
      for (const [source, prices] of leftOut) {
        logger.warn({ asset, source, left_out: prices }, 'reference prices left out: more than 2 % from the median of the sources');
      }
    }
    await saveReferencePrices(this.deps.db, rows);
    await this.deps.book.reload();
    const result = { updated: rows.length, missing };
    if (missing.length > 0) logger.warn(result, 'reference prices refreshed, some without any source');
    else logger.info({ updated: rows.length }, 'reference prices refreshed');
    return result;
  }
}

function priced(
  answers: ReadonlyArray<{ asset: SettlementAsset; source: string; answer: SourceAnswer }>,
  currency: (typeof FIAT_CURRENCIES)[number],
) {
  const out: Array<{ source: string; price: Decimal }> = [];
  for (const a of answers) {
    const price = a.answer.prices.get(currency);
    if (price) out.push({ source: a.source, price });
  }
  return out;
}
