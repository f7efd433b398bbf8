export {
  LINK_STATUSES,
  PaymentLinkRecord,
  linkUrlFor,
  type CreateLinkInput,
  type LinkStatus,
  type LinkUrlFor,
  type PaymentLink,
} from './payment-link.schema.js';
export {
  LINK_MINTS_PER_MINUTE,
  LinkService,
  type LinkServiceDeps,
  type MintLimiter,
  type OpenLinkResult,
} from './payment-links.service.js';
