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
export { findMerchant, findMerchantName, listMerchants, lockMerchant } from './merchants.repo.js';
