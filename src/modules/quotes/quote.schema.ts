// The quote as the API shows it, and the body that asks for one.
import { Type, type Static } from 'typebox';
import type { QuoteRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { DateTime, DecimalString, StringEnum } from '../../shared/schema.js';

/** The body of `POST /quotes`. */
export const QuoteBody = Type.Object(
  {
    source_currency: Type.String({ maxLength: 10, description: 'Fiat currency code, for example KES' }),
    target_asset: Type.String({ maxLength: 10, description: 'USDT, USDC, BTC, ETH or SOL' }),
    amount: DecimalString('In `source_currency` for `customer_pays`, in `target_asset` for `merchant_receives`'),
    side: Type.Optional(StringEnum(['customer_pays', 'merchant_receives'] as const, { default: 'customer_pays' })),
  },
  { additionalProperties: false },
);
export type QuoteInput = Static<typeof QuoteBody>;

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
