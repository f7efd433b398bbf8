// The reference prices on the console's home page: each asset's price in every currency, when it was
// fetched and how long ago, and whether it is too old for new payments (live prices only; the rate table
// never goes stale).
import type { RatesConfig } from '../../../config.js';
import { FIAT_CURRENCIES } from '../../../shared/money.js';
import type { AssetFreshness, RateSnapshot } from '../../rates/index.js';
import type { Html } from './layout.js';

export interface PricesView {
  rates: RatesConfig;
  snapshot: RateSnapshot[];
  freshness: AssetFreshness[];
  nowMs: number;
}

/** "42 s", "12 min", "5 h", "3 days": how long ago, roughly. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

function PriceRow({ f, prices, v }: { f: AssetFreshness; prices: RateSnapshot | undefined; v: PricesView }) {
  const live = v.rates.source === 'http';
  const at = f.updatedAt === null ? null : new Date(f.updatedAt).toISOString();
  return (
    <tr>
      <th scope="row">{f.asset}</th>
      {prices ? (
        FIAT_CURRENCIES.map((c) => <td>{prices.prices[c]}</td>)
      ) : (
        <td colSpan={FIAT_CURRENCIES.length}>Not every price fetched yet</td>
      )}
      <td>
        {at === null ? 'never' : <time datetime={at}>{live ? `${ageText(v.nowMs - f.updatedAt!)} ago` : at.slice(0, 10)}</time>}
        {f.stale ? (
          <>
            {' '}
            <span class="status">stale: new payments refused</span>
          </>
        ) : null}
      </td>
    </tr>
  );
}

export function pricesSection(v: PricesView): Html {
  const live = v.rates.source === 'http';
  const hint =
    v.rates.source === 'http'
      ? `Live prices, fetched every ${Math.round(v.rates.refreshMs / 1000)} s. New payments and quotes need a price less than ${ageText(v.rates.maxAgeMs)} old.`
      : 'From the rate table on the server: these prices do not change until the operator changes the table.';
  const byAsset = new Map(v.snapshot.map((s) => [s.asset, s]));
  return (
    <section aria-labelledby="h-prices">
      <h2 id="h-prices">Reference prices</h2>
      <p class="hint">{hint}</p>
      <div class="table-wrap" tabindex={0} role="region" aria-label="Reference prices">
        <table>
          <caption class="hint">Fiat per one unit of each asset</caption>
          <thead>
            <tr>
              <th scope="col">Asset</th>
              {FIAT_CURRENCIES.map((c) => (
                <th scope="col">{c}</th>
              ))}
              <th scope="col">{live ? 'Fetched' : 'As of'}</th>
            </tr>
          </thead>
          <tbody>
            {v.freshness.map((f) => (
              <PriceRow f={f} prices={byAsset.get(f.asset)} v={v} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
