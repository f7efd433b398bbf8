// The operation table's rows for refunds, settlements, balances and reports.
import { list, single, type OperationDoc } from './common.js';

const REFUND = {
  id: 're_0VbxkE9lr8RnB4ofqZeKwt6j',
  object: 'refund',
  payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
  amount: '1500.00',
  currency: 'KES',
  status: 'succeeded',
  reason: 'Customer returned the baskets',
  return_address: null,
  provider_reference: null,
  failure_reason: null,
  created_at: '2026-06-15T07:10:39.220Z',
  livemode: false,
};

const SETTLEMENT = {
  id: 'stl_0VbxkEAX5jRaALK1FF82kWjc',
  payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
  asset: 'USDT',
  amount: '11.607590',
  status: 'available',
};

export const MONEY_OPERATIONS: Record<string, OperationDoc> = {
  // Refunds
  'POST /refunds': {
    operationId: 'createRefund',
    description: 'Refunds a paid payment in full.',
    requestExample: { payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u', reason: 'Customer returned the baskets' },
    responseExample: single(REFUND, 'req_0VbxkE9iLd00FH2jwKCIiaZU'),
  },
  'GET /refunds': {
    operationId: 'listRefunds',
    description: 'Refunds of this environment, newest first, a page at a time; `payment_intent` filters.',
    responseExample: list([REFUND], 'req_0VbxkEA0l3sT4h6ZHD4vxKBa'),
  },
  'GET /refunds/{id}': {
    operationId: 'retrieveRefund',
    description: 'One refund by its `re_` id.',
    responseExample: single(REFUND, 'req_0VbxkEAErS1zLR17jS8CFdUo'),
  },

  // Settlements, balances and reports
  'GET /settlements': {
    operationId: 'listSettlements',
    description: 'One settlement per paid payment, newest first.',
    responseExample: list(
      [
        {
          ...SETTLEMENT,
          object: 'settlement',
          available_at: '2026-06-18T06:12:04.269Z',
          settled_at: '2026-06-15T06:12:04.269Z',
          status: 'pending',
          livemode: false,
        },
      ],
      'req_0VbxkEq5EifYtH2sIhwAHq9T',
    ),
  },
  'GET /balances': {
    operationId: 'listBalances',
    description: 'The merchant’s balance in each asset it has held: total, available and on hold.',
    responseExample: list(
      [{ asset: 'USDT', total: '11.607590', available: '0.000000', on_hold: '11.607590' }],
      'req_0VbxkEqKiQdChl77lPZ66Egv',
      undefined,
    ),
  },
  'GET /reports/payments': {
    operationId: 'reportPayments',
    description: 'Paid payments in a window of UTC dates, as JSON pages or CSV.',
    responseExample: list(
      [
        {
          id: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
          created_at: '2026-06-15T06:10:38.969Z',
          paid_at: '2026-06-15T06:12:04.097Z',
          status: 'paid',
          amount: '1500.00',
          currency: 'KES',
          settlement_currency: 'USDT',
          pay_amount: '11.607590',
          payment_method: 'mpesa',
          merchant_reference: 'order_1001',
        },
      ],
      'req_0VbxkEqMGDqgrAzZwsN6zU9Z',
    ),
  },
  'GET /reports/settlements': {
    operationId: 'reportSettlements',
    description: 'Settlements in a window of UTC dates, as JSON pages or CSV.',
    responseExample: list(
      [{ ...SETTLEMENT, settled_at: '2026-06-15T06:12:04.269Z', available_at: '2026-06-18T06:12:04.269Z' }],
      'req_0VbxkEqbpLmBqhNfdy2VlzrJ',
    ),
  },
};
