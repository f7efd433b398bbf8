export {
  ACCOUNTS,
  UnbalancedMovement,
  accountBalances,
  postMovement,
  transfer,
  type Account,
  type Movement,
  type MovementKind,
} from './ledger.service.js';
export {
  PAYER_ACCOUNTS,
  creditRefundToPayer,
  PAYER_ASSETS,
  payerBalances,
  payerMovements,
  payerOfPayment,
  payerTransfer,
  postPayerMovement,
  type PayerAccount,
  type PayerAsset,
  type PayerMovement,
  type PayerMovementKind,
} from './payer-ledger.js';
