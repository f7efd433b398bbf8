export {
  PayoutService,
  SANDBOX_PAID_AFTER_MS,
  type CreatePayoutInput,
  type PayoutNetworks,
  type PayoutRequester,
} from './payouts.service.js';
export { PAYOUT_ASSETS, PAYOUT_NETWORKS, PAYOUT_STATUSES, PayoutRecord, payoutView, type Payout } from './payout.schema.js';
export { PayoutSender, type SenderNetwork, type SenderStep } from './payout-sender.js';
export { buildSenderNetworks, SenderRegistry } from './network-clients.js';
export { PAYOUT_STATUS_WORDS, PayoutFields } from './payout-fields.js';
