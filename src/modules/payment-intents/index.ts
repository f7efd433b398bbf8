export {
  INTENT_STATUSES,
  PaymentIntentRecord,
  checkoutUrlFor,
  intentView,
  paymentIntentProperties,
  type CheckoutUrlFor,
  type IntentStatus,
  type PaymentIntent,
} from './payment-intent.schema.js';
export { IntentService, type CreateIntentInput, type IntentServiceDeps, type NewIntent } from './payment-intents.service.js';
export {
  PaymentService,
  type Applied,
  type LinkCapCheck,
  type PaymentReport,
  type PaymentServiceDeps,
  type WithinOutcome,
} from './payments.service.js';
export {
  INTENT_EVENTS_IN_PLACE,
  INTENT_MOVES,
  IllegalIntentMove,
  IntentMoveConflict,
  OUTCOMES_BY_STATUS,
  PAYMENT_OUTCOMES,
  expireIfOverdue,
  isOverdue,
  moveIntent,
  recordIntentEventInPlace,
  type MoveContext,
  type PaymentOutcome,
} from './state-machine.js';
export { findIntent, findIntentWithMerchantName, latestIntent, lockIntent } from './payment-intents.repo.js';
export {
  FAILURE_CODES,
  MAX_FAILED_ATTEMPTS,
  defaultFailureFor,
  failureMessage,
  isFailureCode,
  type FailureCode,
} from './payment-failures.js';
export { PAYMENT_METHODS, methodAllowed, methodsFor, type PaymentMethod } from './payment-methods.js';
