// Conversions between fiat and settlement assets at a rate (fiat per one unit of the asset). No fee or
// spread is added in this version. Rounding follows src/shared/money.ts: always up, in the merchant's
// favour.
import type { Decimal, FiatCurrency, SettlementAsset } from '../../shared/money.js';
import { roundUp } from '../../shared/money.js';

/** Asset amount the customer pays for a fiat amount. */
export function assetForFiat(fiat: Decimal, rate: Decimal, asset: SettlementAsset): Decimal {
  return roundUp(fiat.div(rate), asset);
}

/** Fiat amount that buys an asset amount. */
export function fiatForAsset(assetAmount: Decimal, rate: Decimal, currency: FiatCurrency): Decimal {
  return roundUp(assetAmount.mul(rate), currency);
}
