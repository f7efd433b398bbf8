// Money is a decimal string at the edges and a Decimal inside; never a JS number.
//
// Rounding rules, written down once:
// - amounts the merchant or customer sends must already fit their unit's decimals (never rounded);
// - an asset amount converted from fiat (pay_amount, a quote's target) is rounded UP to the asset's
//   decimals, so the merchant never receives less than the fiat price;
// - a fiat amount converted from an asset (a `merchant_receives` quote's source) is rounded UP to the
//   currency's decimals, for the same reason;
// - values are always returned with exactly their unit's number of decimals ("1500.00", "11.583012").
import { Decimal } from 'decimal.js';
import { AppError } from './errors.js';

export { Decimal };

// Enough precision for 18-decimal ETH amounts of any realistic size, and for rates.
Decimal.set({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });

export const DECIMAL_PATTERN = '^[0-9]+(\\.[0-9]+)?$';
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);

/** Digits an amount may have before its decimal point: past any real payment, within what every column keeps exactly. */
export const MAX_INTEGER_DIGITS = 15;
/** An amount as a request may spell it: DECIMAL_PATTERN with at most MAX_INTEGER_DIGITS digits before the point. */
export const AMOUNT_PATTERN = `^[0-9]{1,${MAX_INTEGER_DIGITS}}(\\.[0-9]+)?$`;
export const AMOUNT_TOO_LONG = `must have at most ${MAX_INTEGER_DIGITS} digits before the decimal point`;

/** Whether a decimal string has more than MAX_INTEGER_DIGITS digits before its point. */
export function isAmountTooLong(text: string): boolean {
  return DECIMAL_RE.test(text) && text.split('.')[0]!.length > MAX_INTEGER_DIGITS;
}

export const FIAT_DECIMALS = {
  KES: 2,
  USD: 2,
  EUR: 2,
  GBP: 2,
  NGN: 2,
  TZS: 2,
  GHS: 2,
  ZAR: 2,
  UGX: 0,
  RWF: 0,
} as const;
export type FiatCurrency = keyof typeof FIAT_DECIMALS;
export const FIAT_CURRENCIES = Object.keys(FIAT_DECIMALS) as FiatCurrency[];

export const ASSET_DECIMALS = { USDT: 6, USDC: 6, BTC: 8, ETH: 18, SOL: 9 } as const;
export type SettlementAsset = keyof typeof ASSET_DECIMALS;
export const SETTLEMENT_ASSETS = Object.keys(ASSET_DECIMALS) as SettlementAsset[];

export function isFiat(code: string): code is FiatCurrency {
  return Object.hasOwn(FIAT_DECIMALS, code);
}

export function isAsset(code: string): code is SettlementAsset {
  return Object.hasOwn(ASSET_DECIMALS, code);
}

export function decimalsOf(unit: FiatCurrency | SettlementAsset): number {
  return isFiat(unit) ? FIAT_DECIMALS[unit] : ASSET_DECIMALS[unit as SettlementAsset];
}

/** A positive decimal string (`^[0-9]+(\.[0-9]+)?$`, greater than zero), or null when it is not one. */
export function parsePositiveDecimal(text: string): Decimal | null {
  if (!DECIMAL_RE.test(text)) return null;
  const d = new Decimal(text);
  return d.gt(0) ? d : null;
}

export type AmountProblem = 'format' | 'size' | 'zero' | 'decimals';

/**
 * Parses an amount in a unit: a positive decimal string with at most MAX_INTEGER_DIGITS digits before its
 * point and no more decimals than the unit has.
 */
export function parseAmount(
  text: string,
  unit: FiatCurrency | SettlementAsset,
): { ok: true; value: Decimal } | { ok: false; problem: AmountProblem; message: string } {
  if (!DECIMAL_RE.test(text)) {
    return { ok: false, problem: 'format', message: 'must be a decimal string such as "1500.00"' };
  }
  if (isAmountTooLong(text)) return { ok: false, problem: 'size', message: AMOUNT_TOO_LONG };
  const d = new Decimal(text);
  if (!d.gt(0)) return { ok: false, problem: 'zero', message: 'must be greater than zero' };
  const places = decimalsOf(unit);
  if (d.decimalPlaces() > places) {
    return { ok: false, problem: 'decimals', message: `${unit} amounts have at most ${places} decimal${places === 1 ? '' : 's'}` };
  }
  return { ok: true, value: d };
}

/** The amount with exactly its unit's decimals. */
export function formatAmount(value: Decimal, unit: FiatCurrency | SettlementAsset): string {
  return value.toFixed(decimalsOf(unit));
}

/** Rounded up (away from zero) to the unit's decimals. */
export function roundUp(value: Decimal, unit: FiatCurrency | SettlementAsset): Decimal {
  return value.toDecimalPlaces(decimalsOf(unit), Decimal.ROUND_UP);
}

// Conversions between fiat and settlement assets at a rate (fiat per one unit of the asset). No fee or
// spread is added in this version; both round up, in the merchant's favour.

/** A non-negative decimal as an integer and its scale: the value is `int / 10^scale`. */
function scaled(value: Decimal): { int: bigint; scale: number } {
  const [whole, fraction = ''] = value.toFixed().split('.');
  return { int: BigInt(whole! + fraction), scale: fraction.length };
}

/**
 * Asset amount the customer pays for a fiat amount: fiat / rate rounded up to the asset's decimals,
 * exactly (in integers: the smallest amount of the asset worth at least the fiat amount, whatever the
 * rate's digits), and without a 60-digit division on every create.
 */
export function assetForFiat(fiat: Decimal, rate: Decimal, asset: SettlementAsset): Decimal {
  const places: number = ASSET_DECIMALS[asset];
  const f = scaled(fiat);
  const r = scaled(rate);
  if (r.int <= 0n || fiat.isNegative()) throw new RangeError('assetForFiat: needs a positive rate and an amount of zero or more');
  const numerator = f.int * 10n ** BigInt(r.scale + places);
  const denominator = r.int * 10n ** BigInt(f.scale);
  const digits = ((numerator + denominator - 1n) / denominator).toString().padStart(places + 1, '0');
  return new Decimal(places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`);
}

/** Fiat amount that buys an asset amount. */
export function fiatForAsset(assetAmount: Decimal, rate: Decimal, currency: FiatCurrency): Decimal {
  return roundUp(assetAmount.mul(rate), currency);
}

/** A fiat currency code in any case (answered upper case), or 400 parameter_invalid naming `param`. */
export function requireFiat(code: string, param: string): FiatCurrency {
  const upper = code.toUpperCase();
  if (!isFiat(upper))
    throw new AppError('parameter_invalid', `Invalid ${param}: '${code.slice(0, 20)}' is not a supported currency`, { param });
  return upper;
}

/** A settlement asset code in any case (answered upper case), or 400 parameter_invalid naming `param`. */
export function requireAsset(code: string, param: string): SettlementAsset {
  const upper = code.toUpperCase();
  if (!isAsset(upper)) {
    throw new AppError(
      'parameter_invalid',
      `Invalid ${param}: '${code.slice(0, 20)}' is not a supported settlement asset (USDT, USDC, BTC, ETH, SOL)`,
      {
        param,
      },
    );
  }
  return upper;
}

/** An amount in a unit (see parseAmount), or 400 parameter_invalid naming `param`. */
export function requireAmount(text: string, unit: FiatCurrency | SettlementAsset, param: string): Decimal {
  const parsed = parseAmount(text, unit);
  if (!parsed.ok) throw new AppError('parameter_invalid', `Invalid ${param}: ${parsed.message}`, { param });
  return parsed.value;
}
