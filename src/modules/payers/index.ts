export {
  PayerAuth,
  WALLET_COOKIE,
  checkNewPin,
  checkNewPassword,
  type PayerIdentity,
  type PayerSession,
  type PinCheck,
} from './payer-auth.service.js';
export { PayerAccounts, lockPayer, movementView, payerView, requirePayerAsset } from './payers.service.js';
export { BalanceRail } from './balance-rail.js';
export { PayerChainTopups, type TopupNetwork, type TopupView } from './chain-topups.service.js';
export { PayerMpesaTopups, type MpesaTopupView } from './mpesa-topups.service.js';
export { PayerWithdrawals, type WithdrawalRequest } from './payer-withdrawals.service.js';
