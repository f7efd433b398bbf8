// Locked quotes: a fiat-to-asset conversion held for 10 minutes of the merchant's clock.
import type { Kysely } from 'kysely';
import type { DB, QuoteRow } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { isoTime } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { formatAmount, isAsset, isFiat, parseAmount, type FiatCurrency, type SettlementAsset } from '../../shared/money.js';
import type { RateProvider } from '../rates/index.js';
import { assetForFiat, fiatForAsset } from './pricing.js';

export const QUOTE_LOCK_MS = 10 * 60_000;

export interface QuoteInput {
  source_currency: string;
  target_asset: string;
  amount: string;
  side?: 'customer_pays' | 'merchant_receives';
}

export interface Quote {
  id: string;
  object: 'quote';
  source_currency: string;
  target_asset: string;
  side: 'customer_pays' | 'merchant_receives';
  rate: string;
  source_amount: string;
  target_amount: string;
  expires_at: string;
  created_at: string;
  livemode: boolean;
}

export function quoteView(row: QuoteRow): Quote {
  return {
    id: row.id,
    object: 'quote',
    source_currency: row.source_currency,
    target_asset: row.target_asset,
    side: row.side,
    rate: row.rate,
    source_amount: row.source_amount,
    target_amount: row.target_amount,
    expires_at: isoTime(row.expires_at),
    created_at: isoTime(row.created_at),
    livemode: row.environment === 'live',
  };
}

export function requireFiat(code: string, param: string): FiatCurrency {
  if (!isFiat(code)) throw new AppError('parameter_invalid', `Invalid ${param}: '${code.slice(0, 20)}' is not a supported currency`, { param });
  return code;
}

export function requireAsset(code: string, param: string): SettlementAsset {
  if (!isAsset(code)) {
    throw new AppError('parameter_invalid', `Invalid ${param}: '${code.slice(0, 20)}' is not a supported settlement asset (USDT, USDC, BTC, ETH, SOL)`, {
      param,
    });
  }
  return code;
}

export function requireAmount(text: string, unit: FiatCurrency | SettlementAsset, param: string) {
  const parsed = parseAmount(text, unit);
  if (!parsed.ok) throw new AppError('parameter_invalid', `Invalid ${param}: ${parsed.message}`, { param });
  return parsed.value;
}

export async function createQuote(
  db: Kysely<DB>,
  clock: Clock,
  rates: RateProvider,
  scope: { merchantId: string; environment: 'live' | 'test' },
  input: QuoteInput,
): Promise<Quote> {
  const currency = requireFiat(input.source_currency, 'source_currency');
  const asset = requireAsset(input.target_asset, 'target_asset');
  const side = input.side ?? 'customer_pays';
  const rate = rates.price(asset, currency);
  let source: string;
  let target: string;
  if (side === 'customer_pays') {
    const amount = requireAmount(input.amount, currency, 'amount');
    source = formatAmount(amount, currency);
    target = formatAmount(assetForFiat(amount, rate, asset), asset);
  } else {
    const amount = requireAmount(input.amount, asset, 'amount');
    target = formatAmount(amount, asset);
    source = formatAmount(fiatForAsset(amount, rate, currency), currency);
  }
  const now = clock.nowMs();
  const row: QuoteRow = {
    id: newId('quote'),
    merchant_id: scope.merchantId,
    environment: scope.environment,
    source_currency: currency,
    target_asset: asset,
    side,
    rate: rate.toFixed(),
    source_amount: source,
    target_amount: target,
    expires_at: now + QUOTE_LOCK_MS,
    created_at: now,
  };
  await db.insertInto('quotes').values(row).execute();
  return quoteView(row);
}
