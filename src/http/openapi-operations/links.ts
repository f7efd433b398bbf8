// The operation table's rows for payment links and wallet deposits.
import { list, single, type OperationDoc } from './common.js';

const PAYMENT_LINK = {
  id: 'pl_0VbxkE9AY8AVYKVWrgvenY9q',
  object: 'payment_link',
  url: 'https://sandbox.cowrie.example/pay/pl_0VbxkE9AY8AVYKVWrgvenY9q',
  status: 'active',
  active: true,
  title: 'Basket of mangoes',
  amount: '750.00',
  currency: 'KES',
  settlement_currency: 'USDT',
  paid_count: 0,
  max_payments: 100,
  expires_at: null,
  metadata: { campaign: 'june' },
  created_at: '2026-06-15T07:10:39.184Z',
  livemode: false,
};

export const LINK_OPERATIONS: Record<string, OperationDoc> = {
  // Payment links
  'POST /payment-links': {
    operationId: 'createPaymentLink',
    description: 'A reusable link to a hosted payment page, with a fixed amount or one the customer enters.',
    requestExample: {
      title: 'Basket of mangoes',
      currency: 'KES',
      amount: '750.00',
      settlement_currency: 'USDT',
      max_payments: 100,
      metadata: { campaign: 'june' },
    },
    responseExample: single(PAYMENT_LINK, 'req_0VbxkE97AI02mnso1Cr5ycj0'),
  },
  'GET /payment-links': {
    operationId: 'listPaymentLinks',
    description: 'Payment links of this environment, newest first, a page at a time (`limit`, `starting_after`).',
    responseExample: list([PAYMENT_LINK], 'req_0Vbxm1aQ7nLZ4kXoJt2Wc8Rb'),
  },
  'GET /payment-links/{id}': {
    operationId: 'retrievePaymentLink',
    description: 'One payment link by its `pl_` id, with how many payments it has taken.',
    responseExample: single(PAYMENT_LINK, 'req_0VbxkE9Po3xsYIPKUZ5qJL1P'),
  },
  'POST /payment-links/{id}': {
    operationId: 'updatePaymentLink',
    description: 'Changes the title, amount, cap, expiry or `active` flag of a link; fields not sent are kept.',
    requestExample: {
      title: 'Basket of ripe mangoes',
      amount: '800.00',
      max_payments: 200,
      expires_at: '2026-07-31T23:59:59.000Z',
      active: true,
    },
    responseExample: single(
      { ...PAYMENT_LINK, title: 'Basket of ripe mangoes', amount: '800.00', max_payments: 200, expires_at: '2026-07-31T23:59:59.000Z' },
      'req_0Vbxm1bR4pVw8sD2fH6jK0Lm',
    ),
  },

  // Wallet deposits
  'GET /wallet-deposits': {
    operationId: 'listWalletDeposits',
    description: 'Deposits to the merchant’s wallet addresses, newest first.',
    responseExample: list(
      [
        {
          id: 'wd_0VbxkF1s9aZkq3LwTr8uYb2N',
          object: 'wallet_deposit',
          status: 'credited',
          reason: null,
          network: 'tron',
          asset: 'USDT',
          address: 'TQ5NFCcTRmAwo2KQLZ2bMnX2tqTqq9sZBk',
          amount: '11.607590',
          tx_hash: '7c2d1f9a4b3e8d6c5a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b',
          sender: 'TN3W4H6rK2ce4vX9YnFQHwKENnHjoxb3m9',
          payment_intent: 'pi_0VbxkE5hfIvSGWEUBuuHC70u',
          created_at: '2026-06-15T06:12:04.000Z',
          livemode: false,
        },
      ],
      'req_0VbxkE9dgtMxVbcmP438n5he',
    ),
  },
};
