import * as z from 'zod/mini';
import type { CurrencyCode } from '../currencies.js';
import { type ListParamsBase, listParamsShape } from './list-params.js';
import {
  countryCode,
  currencyCode,
  exactId,
  minorUnits,
  nonEmptyString,
  type OpenEnum,
  openEnum,
  type Proof,
  phoneNumber,
  positiveMinorUnits,
  responseCurrency,
  type Same,
} from './primitives.js';

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
  /** State, as the service names it (awaiting approval, then sent to the operator; the names are not documented). */
  status?: string;
  /** Where the payout goes. */
  destination?: PayoutDestination;
  /** The service documents a payout only in part: its other fields are kept, typed `unknown`. */
  [key: string]: unknown;
}

const payoutObject = z.looseObject({
  id: z.optional(exactId),
  amount: z.optional(minorUnits),
  currency: z.optional(responseCurrency),
  status: z.optional(z.string()),
  destination: z.optional(
    z.looseObject({
      type: openEnum(['mobile_money']),
      country: z.optional(z.string()),
      provider: z.optional(z.string()),
      phone: z.optional(z.string()),
    }),
  ),
});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: Payout lists exactly the fields the schema checks, with the same types.
type PayoutMatchesSchema = Proof<Same<Payout, z.output<typeof payoutObject>>>;

/** Schema of {@link Payout}: every known field optional but typed; amount must be an integer. */
export const PayoutSchema: z.ZodMiniType<Payout> = payoutObject;

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
});

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
