export { paymentIntentRoutes, PaymentIntentResponse } from './payment-intents.routes.js';
export { intentContext, checkoutUrlFor } from './context.js';
export {
  cancelIntent,
  createIntent,
  expireOverdueIntents,
  getIntent,
  getIntentRow,
  insertNewIntent,
  buildIntentRow,
  type IntentContext,
  type CreateIntentInput,
} from './payment-intents.service.js';
export { applyPaymentOutcome, PAYMENT_OUTCOMES, type PaymentOutcome, type PaymentReport } from './payments.service.js';
export { intentView, type PaymentIntent } from './intent-view.js';
export { INTENT_MOVES, INTENT_EVENTS_IN_PLACE, moveIntent, IllegalIntentMove, IntentMoveConflict } from './state-machine.js';
export { PAYMENT_METHODS, methodAllowed, methodsFor, type PaymentMethod } from './payment-methods.js';
