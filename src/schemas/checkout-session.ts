import * as z from 'zod/mini';
import type { CurrencyCode } from '../currencies.js';
import { type ListParamsBase, listParamsShape, statusFilter } from './list-params.js';
import {
  boundedString,
  currencyCode,
  email,
  httpUrl,
  type KnownFields,
  minorUnits,
  nullableString,
  type OpenEnum,
  openEnum,
  type Proof,
  plainObject,
  positiveMinorUnits,
  responseCurrency,
  type Same,
} from './primitives.js';

/** Known checkout-session states. Note the spelling `cancelled`, with two l's. */
export const CHECKOUT_SESSION_STATUSES = ['created', 'pending_payment', 'completed', 'expired', 'cancelled'] as const;

/** A checkout-session state; new values from the service pass through as plain strings. */
export type CheckoutSessionStatus = OpenEnum<(typeof CHECKOUT_SESSION_STATUSES)[number]>;

/**
 * A hosted checkout session.
 *
 * The type lists the fields the SDK knows, so a misspelt name does not compile. A field the service
 * adds later is still kept on the object: read it with `readField`.
 */
export interface CheckoutSession {
  /** Session identifier (ULID-shaped). */
  reference: string;
  /** Minor units. */
  amount: number;
  /** ISO 4217 code. */
  currency: CurrencyCode;
  description: string | null;
  payer_name: string | null;
  payer_email: string | null;
  payer_phone: string | null;
  success_url: string | null;
  cancel_url: string | null;
  /** See {@link CheckoutSessionStatus}. */
  status: CheckoutSessionStatus;
  /** Free-form object given at creation. */
  metadata: Record<string, unknown>;
  /** Hosted payment page: redirect the customer here. */
  checkout_url: string;
  /** ISO 8601 timestamp. */
  expires_at: string;
  /** ISO 8601 timestamp. */
  created_at: string;
}

const checkoutSessionObject = z.looseObject({
  reference: z.string(),
  amount: minorUnits,
  currency: responseCurrency,
  description: nullableString,
  payer_name: nullableString,
  payer_email: nullableString,
  payer_phone: nullableString,
  success_url: nullableString,
  cancel_url: nullableString,
  status: openEnum(CHECKOUT_SESSION_STATUSES),
  // Laravel serialises an empty PHP array as `[]`: accept it (and null) as an empty object. One
  // check rather than a union, so a bad value is reported at `metadata` with one message; the
  // replacement is an overwrite check, not a pipe into a transform, which would bring both into the
  // client bundle for this one field. The type given is the value after that check: an object.
  metadata: z
    .custom<Record<string, unknown>>(
      (value) => value === null || (typeof value === 'object' && (!Array.isArray(value) || value.length === 0)),
      { error: 'must be an object (an empty one may come as [] or null)' },
    )
    .check(z.overwrite((value) => (value && !Array.isArray(value) ? value : {}))),
  checkout_url: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
});

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: CheckoutSession lists exactly the fields the schema checks, with the same types.
type CheckoutSessionMatchesSchema = Proof<Same<CheckoutSession, KnownFields<z.output<typeof checkoutSessionObject>>>>;

/** Schema of {@link CheckoutSession}: loose (unknown fields kept), integer amount, open status. */
export const CheckoutSessionSchema: z.ZodMiniType<CheckoutSession> = checkoutSessionObject;

/** Body of `POST /api/v1/checkout-sessions`. */
export interface CheckoutSessionCreateParams {
  /** Minor units, at least 1. */
  amount: number;
  /** ISO 4217 code. */
  currency: CurrencyCode;
  /** At most 500 characters. */
  description?: string;
  /** At most 255 characters. */
  payer_name?: string;
  /** A valid e-mail address. */
  payer_email?: string;
  /** At most 20 characters. */
  payer_phone?: string;
  /** Where the hosted page sends the customer after paying; http(s), at most 2048 characters. */
  success_url?: string;
  /** Where the hosted page sends the customer on cancel; http(s), at most 2048 characters. */
  cancel_url?: string;
  /** Free-form object, returned as given. */
  metadata?: Record<string, unknown>;
}

/** Schema of {@link CheckoutSessionCreateParams}: strict, so a misspelt key is caught before sending. */
export const CheckoutSessionCreateParamsSchema: z.ZodMiniType<CheckoutSessionCreateParams> = z.strictObject({
  amount: positiveMinorUnits,
  currency: currencyCode,
  description: z.optional(boundedString(500)),
  payer_name: z.optional(boundedString(255)),
  payer_email: z.optional(email),
  payer_phone: z.optional(boundedString(20)),
  success_url: z.optional(httpUrl),
  cancel_url: z.optional(httpUrl),
  metadata: z.optional(plainObject('must be an object of keys to values')),
});

/** Filters of `GET /api/v1/checkout-sessions`. */
export interface CheckoutSessionListParams extends ListParamsBase {
  /** Only sessions in this state. */
  status?: CheckoutSessionStatus;
}

/** Schema of {@link CheckoutSessionListParams}: strict. */
export const CheckoutSessionListParamsSchema: z.ZodMiniType<CheckoutSessionListParams> = z.strictObject({
  status: z.optional(statusFilter('checkout sessions', 'cancelled', 'canceled')),
  ...listParamsShape,
});
