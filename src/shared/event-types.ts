// Every type of event the server records: the event feed answers them, webhook endpoints subscribe to
// them, the sandbox triggers them. Vocabulary of the API, known to every module that names an event.
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.confirming',
  'payment_intent.paid',
  'payment_intent.failed',
  'payment_intent.expired',
  'payment_intent.cancelled',
  'payment_intent.underpaid',
  'payment_intent.overpaid',
  'payment_intent.review',
  'payment_intent.refunded',
  'payment_intent.disputed',
  'payment_intent.dispute_closed',
  'payment_intent.duplicate_payment',
  'payment_intent.payment_failed',
  'refund.created',
  'refund.updated',
  'payout.created',
  'payout.sent',
  'payout.paid',
  'payout.failed',
  'payout.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
