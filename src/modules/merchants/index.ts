export {
  createKey,
  createMerchant,
  merchantView,
  seedDemoMerchant,
  setMerchantLimits,
  setMerchantStatus,
  verifyMerchant,
  checkVerification,
  submitVerification,
  rejectMerchant,
  verificationOf,
} from './merchants.service.js';
export type { CreateKeyInput, CreatedMerchant, MerchantView, VerificationDetails } from './merchants.service.js';
export { findMerchant, findMerchantName, listMerchants, lockMerchant } from './merchants.repo.js';
