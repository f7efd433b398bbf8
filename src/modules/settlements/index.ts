export { settlementRoutes, SettlementRecord, SETTLEMENT_STATUSES } from './settlements.routes.js';
export {
  DAY_MS,
  DEFAULT_SETTLEMENT_POLICY,
  creditDuplicatePayment,
  freezeSettlementForDispute,
  lockSettlementOfIntent,
  matureDueSettlements,
  releaseForRefund,
  settlePayment,
  settlementPolicy,
  settlementView,
  type Settlement,
  type SettlementPolicy,
} from './settlements.service.js';
