export {
  LINK_STATUSES,
  PaymentLinkRecord,
  linkUrlFor,
  type CreateLinkInput,
  type LinkStatus,
  type LinkUrlFor,
  type PaymentLink,
} from './payment-link.schema.js';
export { LinkService, type LinkServiceDeps, type OpenLinkResult } from './payment-links.service.js';
