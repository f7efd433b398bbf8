// The reference prices on the console's home page: each asset's price in every currency, when it was
// fetched and how long ago, and whether it is too old for new payments (live prices only; the rate table
// never goes stale).
import type { RatesConfig } from '../../../config.js';
import { FIAT_CURRENCIES } from '../../../shared/money.js';
import type { AssetFreshness, RateSnapshot } from '../../rates/index.js';
import { esc } from './layout.js';

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

export function pricesSection(v: PricesView): string {
  const live = v.rates.source === 'http';
  const hint =
    v.rates.source === 'http'
      ? `Live prices, fetched every ${Math.round(v.rates.refreshMs / 1000)} s. New payments and quotes need a price less than ${ageText(v.rates.maxAgeMs)} old.`
      : 'From the rate table on the server: these prices do not change until the operator changes the table.';
  const byAsset = new Map(v.snapshot.map((s) => [s.asset, s]));
  const rows = v.freshness
    .map((f) => {
      const prices = byAsset.get(f.asset);
      const cells = prices
        ? FIAT_CURRENCIES.map((c) => `<td>${esc(prices.prices[c])}</td>`).join('')
        : `<td colspan="${FIAT_CURRENCIES.length}">Not every price fetched yet</td>`;
      const when =
        f.updatedAt === null
          ? 'never'
          : live
            ? `<time datetime="${new Date(f.updatedAt).toISOString()}">${ageText(v.nowMs - f.updatedAt)} ago</time>`
            : `<time datetime="${new Date(f.updatedAt).toISOString()}">${new Date(f.updatedAt).toISOString().slice(0, 10)}</time>`;
      const stale = f.stale ? ' <span class="status">stale: new payments refused</span>' : '';
      return `<tr><th scope="row">${esc(f.asset)}</th>${cells}<td>${when}${stale}</td></tr>`;
    })
    .join('');
  return `<section aria-labelledby="h-prices"><h2 id="h-prices">Reference prices</h2><p class="hint">${esc(hint)}</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Reference prices"><table><caption class="hint">Fiat per one unit of each asset</caption><thead><tr><th scope="col">Asset</th>${FIAT_CURRENCIES.map(
    (c) => `<th scope="col">${c}</th>`,
  ).join('')}<th scope="col">${live ? 'Fetched' : 'As of'}</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}
