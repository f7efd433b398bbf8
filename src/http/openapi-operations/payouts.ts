// The operation table's rows for payouts and the sandbox's failure of one.
import { list, single, type OperationDoc } from './common.js';

const PAYOUT = {
  id: 'po_0VbxkE9lr8RnB4ofqZeKwt6k',
  object: 'payout',
  amount: '25.000000',
  asset: 'USDT',
  network: 'TRON',
  address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  status: 'sent',
  tx_hash: 'sandbox_6f1c2a0d9e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c',
  failure_reason: null,
  created_at: '2026-06-15T07:10:39.220Z',
  sent_at: '2026-06-15T07:10:39.220Z',
  paid_at: null,
  livemode: false,
};

export const PAYOUT_OPERATIONS: Record<string, OperationDoc> = {
  'POST /payouts': {
    operationId: 'createPayout',
    description: 'Takes stablecoins out of the available balance to an address of the merchant’s own.',
    requestExample: { amount: '25', asset: 'USDT', network: 'TRON', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
    responseExample: single(PAYOUT, 'req_0VbxkE9iLd00FH2jwKCIiaZV'),
  },
  'GET /payouts': {
    operationId: 'listPayouts',
    description: 'Payouts of this environment, newest first, a page at a time; `status` filters.',
    responseExample: list([PAYOUT], 'req_0VbxkEA0l3sT4h6ZHD4vxKBb'),
  },
  'GET /payouts/{id}': {
    operationId: 'retrievePayout',
    description: 'One payout by its `po_` id, with its transaction hash once sent.',
    responseExample: single(PAYOUT, 'req_0VbxkEAErS1zLR17jS8CFdUp'),
  },
  'POST /sandbox/payouts/{id}/fail': {
    operationId: 'failSandboxPayout',
    description: 'Sandbox only: fails a payout that is not paid yet; its hold is released.',
    responseExample: single(
      { ...PAYOUT, status: 'failed', failure_reason: 'Failed by the sandbox test driver' },
      'req_0VbxkEAErS1zLR17jS8CFdUq',
    ),
  },
};
