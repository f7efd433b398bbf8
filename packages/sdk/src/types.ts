// Names for the generated types (src/openapi.ts, made from the server's OpenAPI document by
// openapi-typescript): request bodies, query parameters and answers of each operation, and the resources.
import type { operations } from './openapi.js';

export type { operations, paths, components } from './openapi.js';

export type OperationId = keyof operations;

type Json<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type SuccessStatus<O extends OperationId> = Extract<keyof operations[O]['responses'], 200 | 201>;

/** The JSON answer of an operation's success (the resource plus `request_id`, `environment`, `livemode`). */
export type ResponseOf<O extends OperationId> = Json<operations[O]['responses'][SuccessStatus<O>]>;
/** The JSON request body of an operation. */
export type BodyOf<O extends OperationId> = operations[O] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
/** The query parameters of an operation. */
export type QueryOf<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

/** One item of a list operation's `data`. */
export type ItemOf<O extends OperationId> = ResponseOf<O> extends { data: Array<infer T> } ? T : never;

/** What every answer carries besides the resource. */
export interface ResponseMeta {
  request_id: string;
  environment: 'test' | 'live';
  livemode: boolean;
}

export type PaymentIntent = ItemOf<'listPaymentIntents'>;
export type PaymentIntentStatus = PaymentIntent['status'];
export type Customer = ItemOf<'listCustomers'>;
export type PaymentLink = ItemOf<'listPaymentLinks'>;
export type Refund = ItemOf<'listRefunds'>;
export type Payout = ItemOf<'listPayouts'>;
export type Settlement = ItemOf<'listSettlements'>;
export type Balance = ItemOf<'listBalances'>;
export type WalletDeposit = ItemOf<'listWalletDeposits'>;
export type WebhookEndpoint = ItemOf<'listWebhookEndpoints'>;
export type WebhookEvent = ItemOf<'listWebhookEvents'>;
export type Quote = ResponseOf<'createQuote'>;
export type PaymentReportRow = ItemOf<'reportPayments'>;
export type SettlementReportRow = ItemOf<'reportSettlements'>;

type FeedEvent = ItemOf<'listEvents'>;
export type EventType = FeedEvent['type'];
/** An event whose `data` is a payment intent (`payment_intent.*`). */
export type PaymentIntentEvent = Omit<FeedEvent, 'type' | 'data'> & {
  type: Extract<EventType, `payment_intent.${string}`>;
  data: PaymentIntent;
};
/** An event whose `data` is a refund (`refund.*`). */
export type RefundEvent = Omit<FeedEvent, 'type' | 'data'> & { type: Extract<EventType, `refund.${string}`>; data: Refund };
/** An event whose `data` is a payout (`payout.*`). */
export type PayoutEvent = Omit<FeedEvent, 'type' | 'data'> & { type: Extract<EventType, `payout.${string}`>; data: Payout };
/** An event of the feed and the body of a webhook delivery; narrow on `type` to type `data`. */
export type Event = PaymentIntentEvent | RefundEvent | PayoutEvent;
