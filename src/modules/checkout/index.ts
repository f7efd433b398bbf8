export { checkoutRoutes, CHECKOUT_CSP, type CheckoutRouteDeps } from './checkout.routes.js';
