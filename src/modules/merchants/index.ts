export {
  createMerchant,
  merchantView,
  seedDemoMerchant,
  setMerchantLimits,
  setMerchantStatus,
  verifyMerchant,
} from './merchants.service.js';
export type { CreatedMerchant, MerchantView } from './merchants.service.js';
