import * as z from 'zod/mini';
import type { CurrencyCode } from '../currencies.js';
import { type ListParamsBase, listParamsShape } from './list-params.js';
import {
  currencyCode,
  minorUnits,
  nonEmptyString,
  type OpenEnum,
  type Proof,
  positiveMinorUnits,
  responseCurrency,
  type Same,
} from './primitives.js';

/**
 * A reusable payment link. Only partly documented: known fields typed, the rest
 * passes through. Share `url` as it is; build nothing from `uuid` or other fields.
 */
export interface PaymentLink {
  /** The address to share, as it is. */
  url: string;
  /** Link identifier. */
  uuid: string;
  /** Title shown to the customer. */
  title?: string | null;
  /** ISO 4217 code. */
  currency?: CurrencyCode;
  /** Fixed price in minor units; `null` or absent when the customer chooses the amount. */
  amount?: number | null;
  /** Smallest amount a customer may pay, in minor units. */
  minimum_amount?: number | null;
  /** State, as the service names it (active, deactivated or expired; the names are not documented). */
  status?: string;
  /** The service documents a link only in part: its other fields are kept, typed `unknown`. */
  [key: string]: unknown;
}

const paymentLinkObject = z.looseObject({
  url: z.string(),
  uuid: z.string(),
  title: z.optional(z.nullable(z.string())),
  currency: z.optional(responseCurrency),
  amount: z.optional(z.nullable(minorUnits)),
  minimum_amount: z.optional(z.nullable(minorUnits)),
  status: z.optional(z.string()),
});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: PaymentLink lists exactly the fields the schema checks, with the same types.
type PaymentLinkMatchesSchema = Proof<Same<PaymentLink, z.output<typeof paymentLinkObject>>>;

/** Schema of {@link PaymentLink}: loose (unknown fields kept), integer amounts. */
export const PaymentLinkSchema: z.ZodMiniType<PaymentLink> = paymentLinkObject;

/** Body of `POST /api/v1/payment-links`. Unknown keys pass through. */
export interface PaymentLinkCreateParams {
  title?: string;
  /** ISO 4217 code. */
  currency?: CurrencyCode;
  /** Set it for a fixed price; leave it out so the customer chooses. Minor units, at least 1. */
  amount?: number;
  /** A payment below it is refused. Minor units, at least 1. */
  minimum_amount?: number;
  /** Undocumented fields pass through to the service. */
  [key: string]: unknown;
}

/** Schema of {@link PaymentLinkCreateParams}: known fields checked, other keys passed through. */
export const PaymentLinkCreateParamsSchema: z.ZodMiniType<PaymentLinkCreateParams> = z.looseObject({
  // No length limit of its own: the service documents none for links, and inventing one could
  // refuse a title the service accepts.
  title: z.optional(nonEmptyString),
  currency: z.optional(currencyCode),
  amount: z.optional(positiveMinorUnits),
  minimum_amount: z.optional(positiveMinorUnits),
});

/** Filters of `GET /api/v1/payment-links`. Other filters pass through. */
export interface PaymentLinkListParams extends ListParamsBase {
  status?: OpenEnum<string>;
  [key: string]: unknown;
}

/** Schema of {@link PaymentLinkListParams}: loose. */
export const PaymentLinkListParamsSchema: z.ZodMiniType<PaymentLinkListParams> = z.looseObject({
  status: z.optional(nonEmptyString),
  ...listParamsShape,
});
