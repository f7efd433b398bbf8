// assetForFiat: the smallest amount of the asset, in its decimals, worth at least the fiat amount at the
// rate; checked exactly (products of finite decimals) over many amounts and rates, and on known values.
import { describe, expect, it } from 'vitest';
import { ASSET_DECIMALS, Decimal, assetForFiat, type SettlementAsset } from '../src/shared/money.js';

/** A random decimal with up to `int` digits before the point and up to `frac` after (not zero). */
function randomDecimal(rand: () => number, int: number, frac: number): Decimal {
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 10)).join('');
  const text = `${digits(1 + Math.floor(rand() * int)) || '0'}.${digits(Math.floor(rand() * (frac + 1)))}`.replace(/\.$/, '');
  const d = new Decimal(text);
  return d.isZero() ? new Decimal('0.01') : d;
}

describe('assetForFiat', () => {
  it('rounds fiat / rate up to the asset decimals: known values', () => {
    expect(assetForFiat(new Decimal('1500.00'), new Decimal('129.35'), 'USDT').toFixed(6)).toBe('11.596444');
    expect(assetForFiat(new Decimal('100'), new Decimal('100'), 'USDC').toFixed(6)).toBe('1.000000');
    expect(assetForFiat(new Decimal('1'), new Decimal('3'), 'USDT').toFixed(6)).toBe('0.333334');
    expect(assetForFiat(new Decimal('0.01'), new Decimal('8500000'), 'BTC').toFixed(8)).toBe('0.00000001');
    expect(assetForFiat(new Decimal('0'), new Decimal('129.35'), 'USDT').toFixed(6)).toBe('0.000000');
    expect(assetForFiat(new Decimal('999999999999999.99'), new Decimal('0.000001'), 'ETH').toFixed(18)).toBe(
      '999999999999999990000.000000000000000000',
    );
  });

  it('is the smallest amount in the asset decimals worth at least the fiat amount, over 2,000 random cases', () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const assets = Object.keys(ASSET_DECIMALS) as SettlementAsset[];
    for (let i = 0; i < 2000; i++) {
      const fiat = randomDecimal(rand, 15, 2);
      const rate = randomDecimal(rand, 8, 12);
      const asset = assets[i % assets.length]!;
      const pay = assetForFiat(fiat, rate, asset);
      const ulp = new Decimal(10).pow(-ASSET_DECIMALS[asset]);
      // Exact: every product here has fewer significant digits than the 60 of Decimal's precision.
      expect(pay.decimalPlaces()).toBeLessThanOrEqual(ASSET_DECIMALS[asset]);
      expect(pay.mul(rate).gte(fiat), `${fiat} / ${rate} in ${asset} = ${pay}`).toBe(true);
      expect(pay.minus(ulp).mul(rate).lt(fiat), `${fiat} / ${rate} in ${asset} = ${pay}`).toBe(true);
    }
  });

  it('refuses a rate of zero or less and a negative amount', () => {
    expect(() => assetForFiat(new Decimal('1'), new Decimal('0'), 'USDT')).toThrow(RangeError);
    expect(() => assetForFiat(new Decimal('-1'), new Decimal('2'), 'USDT')).toThrow(RangeError);
    expect(() => assetForFiat(new Decimal('1'), new Decimal('-2'), 'USDT')).toThrow(RangeError);
  });
});
