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
 * service would refuse. The types they produce are exported by `payments-sdk` too.
 * @packageDocumentation
 */
export * from './checkout-session.js';
export { type ListEnvelope, listEnvelope, type PageLinks, PageLinksSchema, type PageMeta, PageMetaSchema } from './list-envelope.js';
export type { DateFilter, ListParamsBase } from './list-params.js';
export * from './payment.js';
export * from './payment-link.js';
export * from './payout.js';
export type { OpenEnum } from './primitives.js';
export { type Wallet, WalletListSchema, WalletSchema } from './wallet.js';
