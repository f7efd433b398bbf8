export {
  createKey,
  createMerchant,
  merchantView,
  seedDemoMerchant,
  setMerchantLimits,
  setMerchantStatus,
  verifyMerchant,
} from './merchants.service.js';
export type { CreateKeyInput, CreatedMerchant, MerchantView } from './merchants.service.js';
export { findMerchantName, lockMerchant } from './merchants.repo.js';
