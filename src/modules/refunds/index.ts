export { REFUND_STATUSES, RefundRecord, refundView, type Refund } from './refund.schema.js';
export { RefundService, type RefundServiceDeps } from './refunds.service.js';
export { RefundDecisions, type RefundDecisionsDeps } from './refund-decisions.service.js';
