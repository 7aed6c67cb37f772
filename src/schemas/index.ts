export * from './checkout-session.js';
export * from './payment.js';
export * from './payment-link.js';
export * from './payout.js';
export {
  type DateFilter,
  type ListEnvelope,
  type ListParamsBase,
  listEnvelope,
  type OpenEnum,
  type PageLinks,
  PageLinksSchema,
  type PageMeta,
  PageMetaSchema,
} from './shared.js';
export * from './wallet.js';
