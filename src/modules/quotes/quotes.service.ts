// Locked quotes: a fiat-to-asset conversion held for 10 minutes of the merchant's clock.
import { Type, type Static } from 'typebox';
import type { QuoteRow } from '../../db/schema.js';
import type { Db } from '../../db/transaction.js';
import { MINUTE_MS, isoTime, type MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { assetForFiat, fiatForAsset, formatAmount, requireAmount, requireAsset, requireFiat } from '../../shared/money.js';
import { DateTime, StringEnum } from '../../shared/schema.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { RateProvider } from '../rates/index.js';
import * as repo from './quotes.repo.js';

export const QUOTE_LOCK_MS = 10 * MINUTE_MS;

export interface QuoteInput {
  source_currency: string;
  target_asset: string;
  amount: string;
  side?: 'customer_pays' | 'merchant_receives';
}

export const QuoteRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `qt_`' }),
    object: Type.Literal('quote'),
    source_currency: Type.String(),
    target_asset: Type.String(),
    side: StringEnum(['customer_pays', 'merchant_receives'] as const),
    rate: Type.String({ description: 'Fiat price of one unit of the asset' }),
    source_amount: Type.String(),
    target_amount: Type.String(),
    expires_at: DateTime({ description: '10 minutes after creation' }),
    created_at: DateTime(),
    livemode: Type.Boolean(),
  },
  { title: 'Quote' },
);
export type Quote = Static<typeof QuoteRecord>;

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

export class QuoteService {
  constructor(private readonly deps: { db: Db; clocks: MerchantClocks; rates: RateProvider }) {}

  async create(scope: MerchantScope & { sandboxOffsetMs?: number }, input: QuoteInput): Promise<Quote> {
  const { rates } = this.deps;
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
  const now = await this.deps.clocks.nowMs(scope);
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
  await repo.insertQuote(this.deps.db, row);
  return quoteView(row);
  }
}
