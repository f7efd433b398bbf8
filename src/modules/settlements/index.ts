export { SETTLEMENT_STATUSES, SettlementRecord, settlementView, type Settlement, type SettlementStatus } from './settlement.schema.js';
export {
  creditDuplicatePayment,
  closeDisputeOnSettlement,
  freezeSettlementForDispute,
  listSettlements,
  matureDueSettlements,
  releaseForRefund,
  settlePayment,
  settlementPolicy,
  type SettlementPolicy,
} from './settlements.service.js';
export { lockSettlementOfIntent } from './settlements.repo.js';
