export { paymentLinkRoutes, PaymentLinkResponse } from './payment-links.routes.js';
export { LINK_STATUSES, PaymentLinkRecord, linkUrlFor, type LinkStatus, type LinkUrlFor, type PaymentLink } from './payment-link.view.js';
export { LinkService, type CreateLinkInput, type LinkServiceDeps, type OpenLinkResult } from './payment-links.service.js';
