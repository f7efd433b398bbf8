// Locked quotes: a fiat-to-asset conversion held for 10 minutes of the merchant's clock.
import type { QuoteRow } from '../../db/schema.js';
import { transaction, type CommitWith, type Db } from '../../db/transaction.js';
import { MINUTE_MS, type MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { assetForFiat, fiatForAsset, formatAmount, requireAmount, requireAsset, requireFiat } from '../../shared/money.js';
import type { MerchantScope } from '../../shared/scope.js';
import type { RateProvider } from '../rates/index.js';
import { quoteView, type Quote, type QuoteInput } from './quote.schema.js';
import * as repo from './quotes.repo.js';

export const QUOTE_LOCK_MS = 10 * MINUTE_MS;

export class QuoteService {
  constructor(private readonly deps: { db: Db; clocks: MerchantClocks; rates: RateProvider }) {}

  async create(scope: MerchantScope & { sandboxOffsetMs?: number }, input: QuoteInput, commitWith?: CommitWith<Quote>): Promise<Quote> {
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
    const view = quoteView(row);
    await transaction(this.deps.db, async (tx) => {
      await repo.insertQuote(tx, row);
      await commitWith?.inTransaction(tx, view);
    });
    return view;
  }
}
