export { paymentLinkRoutes, PaymentLinkResponse } from './payment-links.routes.js';
export { createLink, getLink, linkStatus, linkUrlFor, openLink, type OpenLinkResult, type PaymentLink } from './payment-links.service.js';
export { findLinkInEnvironment } from './payment-links.repo.js';
export { countPaidIntents, paymentLinkFull } from './link-cap.js';
