// The settlement as the API shows it.
import { Type, type Static } from 'typebox';
import type { SettlementRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { DateTime, Nullable, StringEnum } from '../../shared/schema.js';

export const SETTLEMENT_STATUSES = ['pending', 'available', 'frozen'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

export const SettlementRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `stl_`' }),
    object: Type.Literal('settlement'),
    payment_intent: Type.String({ description: 'The paid payment intent' }),
    asset: Type.String({ description: 'Settlement asset' }),
    amount: Nullable(Type.String(), { description: "Asset amount settled: the intent's pay_amount" }),
    status: StringEnum(SETTLEMENT_STATUSES),
    available_at: Nullable(DateTime(), { description: 'When the funds are (or became) spendable; null while frozen' }),
    settled_at: DateTime({ description: 'When the payment settled into the wallet' }),
    livemode: Type.Boolean(),
  },
  { title: 'Settlement' },
);
export type Settlement = Static<typeof SettlementRecord>;

export function settlementView(row: SettlementRow): Settlement {
  return {
    id: row.id,
    object: 'settlement',
    payment_intent: row.payment_intent_id,
    asset: row.asset,
    amount: row.amount,
    status: row.status,
    available_at: row.available_at === null ? null : isoTime(row.available_at),
    settled_at: isoTime(row.settled_at),
    livemode: row.environment === 'live',
  };
}
