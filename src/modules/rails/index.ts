export { askDueRailPayments } from './rail-questions.js';
export { SandboxRail, DEFAULT_MPESA_ANSWER_MS, type SandboxRailOptions } from './sandbox-rail.js';
export { insertRailPayment, latestRailPayment } from './rail-payments.repo.js';
export {
  checkCard,
  luhnValid,
  normalizeMpesaPhone,
  maskPhone,
  WALLET_NETWORKS,
  WALLET_NETWORK_NAMES,
  WALLET_ASSETS,
  type WalletNetwork,
} from './payment-details.js';
export { sandboxDepositAddress } from './wallet-addresses.js';
export { reserveTaggedAmount, withAllocationRetries, type AllocationOwner } from './sandbox-wallet.js';
export { listWalletDeposits, WalletDepositRecord, type WalletDeposit } from './wallet-deposits.service.js';
export { paymentUri, TOKEN_CONTRACTS, CHAIN_IDS, type StableAsset } from './payment-uri.js';
export { MpesaRail, type CallbackAnswer, type DarajaApi, type MpesaRailOptions } from './mpesa/mpesa-rail.js';
export { DarajaClient, DarajaError, outcomeOfResultCode, parseStkCallback, type StkCallback } from './mpesa/daraja-client.js';
export { MpesaReversals } from './mpesa/mpesa-reversals.js';
export { CardRail, CARD_CURRENCIES, type CardRailOptions, type PaystackApi } from './card/card-rail.js';
export { PaystackClient } from './card/paystack-client.js';
export { PaystackWebhooks } from './card/paystack-webhooks.js';
export { PaypalRail, paypalValue, type PaypalApi, type PaypalRailOptions } from './paypal/paypal-rail.js';
export { PaypalClient } from './paypal/paypal-client.js';
export { PaypalWebhooks } from './paypal/paypal-webhooks.js';
export { ChainWatcher, type ChainWatcherDeps, type TickResult } from './chain/chain-watcher.js';
export { ChainRail, railNetworkOf, type ChainRailNetwork, type ChainRefundSender } from './chain/chain-rail.js';
// viem (about 20 MB resident) loads only where an EVM network is configured.
export const loadEvmSource = async () => (await import('./chain/evm-source.js')).EvmSource;
/** The EVM payout client loads viem only when a payout key is configured. */
export const loadEvmPayoutClient = async () => (await import('./chain/evm-payout.js')).EvmPayoutClient;
export type { EvmPayoutClient } from './chain/evm-payout.js';
export type { PayoutLookup, PayoutNetworkClient, PayoutTransfer, SignedPayout, SignOptions } from './chain/payout-client.js';
export { TronSource } from './chain/tron-source.js';
export { SolanaSource } from './chain/solana-source.js';
// The payout sender's TRON and Solana clients, loaded only when a network sends (their signing libraries are large).
export const loadTronPayoutClient = async () => (await import('./chain/tron-payout.js')).TronPayoutClient;
export const loadSolanaPayoutClient = async () => (await import('./chain/solana-payout.js')).SolanaPayoutClient;
export { ChainRpcError, type ChainSource } from './chain/chain-source.js';
export { ChainDeposits, chainDepositView, type ChainDepositView } from './chain/chain-deposits.js';
