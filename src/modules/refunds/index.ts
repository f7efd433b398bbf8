export { refundRoutes, RefundRecord } from './refunds.routes.js';
export { createRefund, getRefund, listRefunds, refundView, reviewRefund, type Refund, type RefundDeps } from './refunds.service.js';
