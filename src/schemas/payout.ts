import * as z from 'zod/mini';
import type { CurrencyCode } from '../currencies.js';
import { PAYOUT_FIELDS } from './fields.js';
import { type ListParamsBase, listParamsShape } from './list-params.js';
import { countryCode, currencyCode, nonEmptyString, type OpenEnum, phoneNumber, positiveMinorUnits } from './primitives.js';
import { tableObject } from './response-objects.js';

/** Where a payout goes. Only the mobile-money shape is documented. */
export interface PayoutDestination {
  /** Destination kind, e.g. `mobile_money`. */
  type: OpenEnum<'mobile_money'>;
  /** ISO 3166-1 alpha-3. */
  country?: string;
  /** Operator code. */
  provider?: string;
  /** Digits with the country calling code, without `+`. */
  phone?: string;
  /** Undocumented fields pass through. */
  [key: string]: unknown;
}

/**
 * A payout. Its record is only partly documented: the known fields are
 * typed (and checked when present), everything else passes through untouched.
 */
export interface Payout {
  /**
   * Identifier used by `payouts.retrieve` (its name on the wire is not documented). A number id
   * beyond 2^53 is kept exact, as a string of its digits (a runtime that cannot read it exactly
   * refuses the response instead of rounding it): pass it back to `payouts.retrieve` as it is.
   */
  id?: string | number;
  /** Minor units. */
  amount?: number;
  /** ISO 4217 code. */
  currency?: CurrencyCode;
  /** State; names not documented (awaiting approval, then sent to the operator). */
  status?: OpenEnum<string>;
  destination?: PayoutDestination;
  /** Fields the SDK does not know yet are kept. */
  [key: string]: unknown;
}

/** Schema of {@link Payout}: every known field optional but typed; amount must be an integer. */
export const PayoutSchema: z.ZodMiniType<Payout> = tableObject(PAYOUT_FIELDS) as unknown as z.ZodMiniType<Payout>;

/** Body of `POST /api/v1/payouts`. Live keys only. Unknown keys pass through. */
export interface PayoutCreateParams {
  /** Minor units, at least 1. */
  amount: number;
  /** ISO 4217 code. */
  currency: CurrencyCode;
  destination: PayoutDestination;
  /** Undocumented fields pass through to the service. */
  [key: string]: unknown;
}

/** Schema of {@link PayoutCreateParams}: known fields checked, other keys passed through. */
export const PayoutCreateParamsSchema: z.ZodMiniType<PayoutCreateParams> = z.looseObject({
  amount: positiveMinorUnits,
  currency: currencyCode,
  destination: z.looseObject({
    type: nonEmptyString,
    country: z.optional(countryCode),
    provider: z.optional(nonEmptyString),
    phone: z.optional(phoneNumber),
  }),
}) as z.ZodMiniType<PayoutCreateParams>;

/** Filters of `GET /api/v1/payouts`. Other filters pass through (the full list is not documented). */
export interface PayoutListParams extends ListParamsBase {
  status?: OpenEnum<string>;
  [key: string]: unknown;
}

/** Schema of {@link PayoutListParams}: loose. */
export const PayoutListParamsSchema: z.ZodMiniType<PayoutListParams> = z.looseObject({
  status: z.optional(nonEmptyString),
  ...listParamsShape,
});
