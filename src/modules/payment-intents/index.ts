export {
  INTENT_STATUSES,
  PaymentIntentRecord,
  checkoutUrlFor,
  intentView,
  paymentIntentProperties,
  type CheckoutUrlFor,
  type IntentStatus,
  type PaymentIntent,
  type StoredDispute,
} from './payment-intent.schema.js';
export { IntentService, creationBatch, type CreateIntentInput, type IntentServiceDeps, type NewIntent } from './payment-intents.service.js';
export {
  RailRegistry,
  type DepositResult,
  type PaymentRail,
  type RefundRequest,
  type RefundResult,
  type RefundToSend,
  type ProviderRefund,
  type SimulatedDeposit,
  type StartPaymentRequest,
  type StartPaymentResult,
} from './rails.js';
export {
  INTENT_EVENTS_IN_PLACE,
  INTENT_MOVES,
  IllegalIntentMove,
  IntentMoveConflict,
  OUTCOMES_BY_STATUS,
  PAYMENT_OUTCOMES,
  acceptsOutcome,
  expireIfOverdue,
  isOverdue,
  isPayable,
  outcomeFor,
  moveIntent,
  recordIntentEventInPlace,
  type MoveContext,
  type PaymentOutcome,
} from './state-machine.js';
export {
  countPaidIntentsOfLink,
  countPaidIntentsOfLinks,
  findIntent,
  findIntentById,
  findIntentWithMerchantName,
  intentsEndedBefore,
  latestIntent,
  lockIntent,
} from './payment-intents.repo.js';
export {
  FAILURE_CODES,
  MAX_FAILED_ATTEMPTS,
  defaultFailureFor,
  failureMessage,
  isFailureCode,
  type FailureCode,
} from './payment-failures.js';
export { PAYMENT_METHODS, methodAllowed, methodsFor, type PaymentMethod } from './payment-methods.js';
export {
  PAYMENT_REPORT_COLUMNS,
  countPaidPayments,
  paidPaymentCursor,
  paidPaymentsPage,
  type PaymentReportRow,
} from './paid-payments.repo.js';
