// The sandbox trigger: records a sample event of any type, built from the merchant's most recent sandbox
// payment intent (or a synthetic one when there is none), through recordEvent, so it reaches the feed and
// every subscribed sandbox endpoint like a real event. The sample changes nothing: the intent itself keeps
// its status.
import type { PaymentIntentRow } from '../../db/schema.js';
import { transaction, type CommitWith, type Db } from '../../db/transaction.js';
import { MINUTE_MS, isoTime, type MerchantClocks } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { recordEvent, type EventType } from '../events/index.js';
import { latestIntent, type IntentService, type IntentStatus, type PaymentIntent } from '../payment-intents/index.js';

/** The status a sample payload shows for each event type. */
const SAMPLE_STATUS: Record<string, IntentStatus> = {
  'payment_intent.created': 'awaiting_payment',
  'payment_intent.confirming': 'confirming',
  'payment_intent.paid': 'paid',
  'payment_intent.failed': 'failed',
  'payment_intent.expired': 'expired',
  'payment_intent.cancelled': 'cancelled',
  'payment_intent.underpaid': 'awaiting_payment',
  'payment_intent.overpaid': 'paid',
  'payment_intent.review': 'confirming',
  'payment_intent.refunded': 'refunded',
  'payment_intent.disputed': 'paid',
  'payment_intent.dispute_closed': 'paid',
  'payment_intent.duplicate_payment': 'paid',
};

function syntheticIntent(merchantId: string, at: number): PaymentIntentRow {
  return {
    id: newId('payment_intent'),
    merchant_id: merchantId,
    environment: 'test',
    status: 'awaiting_payment',
    amount: '1500.00',
    currency: 'KES',
    settlement_currency: 'USDT',
    pay_amount: '11.607590',
    rate: '129.2258',
    description: 'Sample payment',
    merchant_reference: 'sample-order',
    payment_methods: JSON.stringify(['service_balance', 'mpesa', 'card', 'external_wallet']),
    customer: null,
    metadata: '{}',
    return_url: null,
    payment_link: null,
    payment_method: null,
    amount_received: '0.000000',
    failure_code: null,
    last_payment_error: null,
    provider_reference: null,
    dispute: null,
    expires_at: at + 30 * MINUTE_MS,
    created_at: at,
    paid_at: null,
    cancelled_at: null,
    updated_at: at,
  };
}

function sampleData(type: EventType, intent: PaymentIntent, at: number): Record<string, unknown> {
  if (type.startsWith('refund.')) {
    return {
      id: newId('refund'),
      object: 'refund',
      payment_intent: intent.id,
      amount: intent.amount,
      currency: intent.currency,
      status: type === 'refund.created' ? 'requested' : 'succeeded',
      reason: null,
      return_address: null,
      provider_reference: null,
      failure_reason: null,
      created_at: isoTime(at),
      livemode: false,
    };
  }
  if (type.startsWith('payout.')) {
    const status = type.slice('payout.'.length);
    const sent = status === 'sent' || status === 'paid';
    return {
      id: newId('payout'),
      object: 'payout',
      amount: '10.000000',
      asset: 'USDT',
      network: 'tron',
      address: 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy',
      status: status === 'created' ? 'requested' : status,
      tx_hash: sent ? `0x${'0'.repeat(64)}` : null,
      failure_reason: status === 'failed' ? 'Sample failure' : null,
      created_at: isoTime(at),
      sent_at: sent ? isoTime(at) : null,
      paid_at: status === 'paid' ? isoTime(at) : null,
      livemode: false,
    };
  }
  const status = SAMPLE_STATUS[type] ?? intent.status;
  const paidLike = status === 'paid' || status === 'refunded';
  return {
    ...intent,
    status,
    payment_method: paidLike ? (intent.payment_method ?? intent.payment_methods[0] ?? 'card') : intent.payment_method,
    paid_at: paidLike ? (intent.paid_at ?? isoTime(at)) : intent.paid_at,
  };
}

export interface TriggerDeps {
  db: Db;
  clocks: MerchantClocks;
  intents: IntentService;
}

/** What a trigger answers: the sample event that was recorded. */
export interface TriggeredEvent {
  object: 'event_trigger';
  type: EventType;
  status: 'sent';
  event: string;
}

export async function triggerSampleEvent(
  deps: TriggerDeps,
  merchantId: string,
  type: EventType,
  commitWith?: CommitWith<TriggeredEvent>,
): Promise<TriggeredEvent> {
  const scope = { merchantId, environment: 'test' as const };
  const at = await deps.clocks.nowMs(scope);
  const latest = await latestIntent(deps.db, scope);
  const intent = deps.intents.view(latest ?? syntheticIntent(merchantId, at));
  return transaction(deps.db, async (tx) => {
    const event = await recordEvent(tx, {
      merchantId,
      environment: 'test',
      type,
      data: sampleData(type, intent, at),
      paymentIntentId: latest?.id ?? null,
      at,
    });
    const triggered: TriggeredEvent = { object: 'event_trigger', type, status: 'sent', event: event.id };
    await commitWith?.inTransaction(tx, triggered);
    return triggered;
  });
}
