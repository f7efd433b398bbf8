// The refund as the API shows it.
import { Type, type Static } from 'typebox';
import type { RefundRow } from '../../db/schema.js';
import { isoTime } from '../../shared/clock.js';
import { DateTime, Nullable, StringEnum } from '../../shared/schema.js';

export const REFUND_STATUSES = ['requested', 'pending', 'succeeded', 'failed'] as const;

export const refundProperties = {
  id: Type.String({ description: 'Identifier, prefix `re_`' }),
  object: Type.Literal('refund'),
  payment_intent: Type.String(),
  amount: Type.String({ description: "The payment intent's full amount" }),
  currency: Type.String({ description: "The payment intent's currency" }),
  status: StringEnum(REFUND_STATUSES),
  reason: Nullable(Type.String()),
  return_address: Nullable(Type.String(), { description: 'External-wallet refunds: where the on-chain send goes' }),
  provider_reference: Nullable(Type.String(), { description: "The provider's reference of the refund (Paystack's refund id), once sent" }),
  failure_reason: Nullable(Type.String(), { description: "Why a failed refund failed (the operator's reason, or the provider's words)" }),
  created_at: DateTime(),
  livemode: Type.Boolean(),
};

export const RefundRecord = Type.Object(refundProperties, { title: 'Refund' });
export type Refund = Static<typeof RefundRecord>;

export function refundView(row: RefundRow): Refund {
  return {
    id: row.id,
    object: 'refund',
    payment_intent: row.payment_intent_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    return_address: row.return_address,
    provider_reference: row.rail_reference,
    failure_reason: row.failure_reason,
    created_at: isoTime(row.created_at),
    livemode: row.environment === 'live',
  };
}
