/**
 * `payments-sdk/schemas`: the zod (`zod/mini`) schemas the client validates with, for code that
 * validates a payload it stored or received some other way (a queue message, a database row, a
 * fixture) the way the client validates a response:
 *
 * ```ts
 * import { PaymentSchema } from 'payments-sdk/schemas';
 * import * as z from 'zod/mini';
 * const payment = z.parse(PaymentSchema, JSON.parse(row.payload));
 * ```
 * Response schemas keep unknown fields and accept new enum values; params schemas refuse what the
 * service would refuse. The types they produce (`Payment`, …) are exported by `payments-sdk`.
 * @packageDocumentation
 */
export { CheckoutSessionCreateParamsSchema, CheckoutSessionListParamsSchema, CheckoutSessionSchema } from './checkout-session.js';
export { type ListEnvelope, listEnvelope, PageLinksSchema, PageMetaSchema } from './list-envelope.js';
export type { DateFilter, ListParamsBase } from './list-params.js';
export { PaymentCreateParamsSchema, PaymentListParamsSchema, PaymentSchema } from './payment.js';
export { PaymentLinkCreateParamsSchema, PaymentLinkListParamsSchema, PaymentLinkSchema } from './payment-link.js';
export { PayoutCreateParamsSchema, PayoutListParamsSchema, PayoutSchema } from './payout.js';
export type { OpenEnum } from './primitives.js';
export { WalletListSchema, WalletSchema } from './wallet.js';
