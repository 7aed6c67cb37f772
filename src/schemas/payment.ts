import * as z from 'zod/mini';
import type { CurrencyCode } from '../currencies.js';
import { type ListParamsBase, listParamsShape, statusFilter } from './list-params.js';
import {
  boundedString,
  countryCode,
  currencyCode,
  email,
  type KnownFields,
  minorUnits,
  nonEmptyString,
  nullableString,
  type OpenEnum,
  openEnum,
  type Proof,
  phoneNumber,
  positiveMinorUnits,
  responseCurrency,
  type Same,
} from './primitives.js';

/** Known payment states. Note the spelling `canceled`, with one l. */
export const PAYMENT_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'canceled', 'expired', 'refunded', 'disputed'] as const;

/** A payment state; new values from the service pass through as plain strings. */
export type PaymentStatus = OpenEnum<(typeof PAYMENT_STATUSES)[number]>;

/**
 * A payment, from a checkout session or a direct charge. Amounts in minor units.
 *
 * The type lists the fields the SDK knows, so a misspelt name does not compile. A field the service
 * adds later is still kept on the object: read it with `readField`.
 */
export interface Payment {
  /** Payment identifier (UUID). */
  uuid: string;
  /** Reference of the originating checkout session; `null` for a direct charge. */
  checkout_session: string | null;
  /** Amount paid by the customer. For a converted direct charge, in the operator's currency. */
  gross_amount: number;
  /** Informative part of the fee. */
  psp_fee_amount: number;
  /** Informative part of the fee. */
  platform_fee_amount: number;
  /** Amount credited to the merchant balance. */
  net_amount_to_merchant: number;
  /** ISO 4217 code of the amounts: the operator's currency for a converted direct charge. */
  currency: CurrencyCode;
  /** `mobile_money` is the value shown by the service. */
  payment_method: OpenEnum<'mobile_money'>;
  /** Country; `null` for a card payment. */
  mobile_money_country: string | null;
  /** Operator code; `null` for a card payment. */
  mobile_money_provider: string | null;
  /** Reference at the payment processor. */
  psp_reference: string;
  /** See {@link PaymentStatus}. */
  status: PaymentStatus;
  /** Reason of failure when `status` is `failed`, otherwise `null`. */
  failure_reason: string | null;
  /** ISO 8601 timestamp with offset. */
  created_at: string;
}

const paymentObject = z.looseObject({
  uuid: z.string(),
  checkout_session: nullableString,
  gross_amount: minorUnits,
  psp_fee_amount: minorUnits,
  platform_fee_amount: minorUnits,
  net_amount_to_merchant: minorUnits,
  currency: responseCurrency,
  payment_method: openEnum(['mobile_money']),
  mobile_money_country: nullableString,
  mobile_money_provider: nullableString,
  psp_reference: z.string(),
  status: openEnum(PAYMENT_STATUSES),
  failure_reason: nullableString,
  created_at: z.string(),
});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: Payment lists exactly the fields the schema checks, with the same types.
type PaymentMatchesSchema = Proof<Same<Payment, KnownFields<z.output<typeof paymentObject>>>>;

/** Schema of {@link Payment}: loose (unknown fields kept), integer amounts, open status. */
export const PaymentSchema: z.ZodMiniType<Payment> = paymentObject;

/** Body of a direct mobile-money charge, `POST /api/v1/payments`. */
export interface PaymentCreateParams {
  /** Minor units, at least 1. */
  amount: number;
  /** ISO 4217 code. When it differs from the country's currency the service converts. */
  currency: CurrencyCode;
  /** ISO 3166-1 alpha-3, e.g. `SEN`. */
  country: string;
  /** Operator code. */
  provider: string;
  /** Digits with the country calling code, without `+`. */
  phone: string;
  /** At most 255 characters. */
  payer_name?: string;
  /** A valid e-mail address. */
  payer_email?: string;
  /** At most 500 characters. */
  description?: string;
}

/** Schema of {@link PaymentCreateParams}: strict, so `payerEmail` is caught before sending. */
export const PaymentCreateParamsSchema: z.ZodMiniType<PaymentCreateParams> = z.strictObject({
  amount: positiveMinorUnits,
  currency: currencyCode,
  country: countryCode,
  provider: nonEmptyString,
  phone: phoneNumber,
  payer_name: z.optional(boundedString(255)),
  payer_email: z.optional(email),
  description: z.optional(boundedString(500)),
});

/** Filters of `GET /api/v1/payments`. */
export interface PaymentListParams extends ListParamsBase {
  /** Only payments in this state. */
  status?: PaymentStatus;
}

/** Schema of {@link PaymentListParams}: strict (the list is fully specified). */
export const PaymentListParamsSchema: z.ZodMiniType<PaymentListParams> = z.strictObject({
  status: z.optional(statusFilter('payments', 'canceled', 'cancelled')),
  ...listParamsShape,
});
