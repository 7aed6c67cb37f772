/**
 * The fields of the response records (a payment, a payout, a list envelope's `links` and `meta`),
 * described once, as plain data. The zod schemas of `payments-sdk/schemas` are built from these
 * tables (`tableObject` in ./response-objects.ts); the zod-free check of ./field-check.ts reads the same tables,
 * for the webhook entry (which must stay free of zod to stay small) and for the responses' fast path.
 * Both checkers are generated from one table and so cannot disagree.
 *
 * This module imports nothing.
 * @module
 */

/**
 * What a field must hold. A trailing `?` means the field may be absent; `|null` that it may be `null`.
 * - `string`: any string (open enums included: a value the SDK does not know yet is kept).
 * - `string?|null`: a string or `null`, or absent.
 * - `int`: a safe integer (money in minor units is never a float).
 * - `id`: a string, or a number that is a safe integer (a longer one arrives as its digits, in a string).
 * - `object`: an object with at least the nested fields; its unknown fields are kept.
 */
export type FieldKind = 'string' | 'string?' | 'string|null' | 'string?|null' | 'int' | 'int?' | 'id?' | NestedFields;

/** An object field described by its own table; `optional` when the field may be absent. */
export interface NestedFields {
  /** The nested object's fields. */
  readonly fields: FieldTable;
  /** The field may be absent. */
  readonly optional: boolean;
}

/** Field name → what it must hold. Fields not listed are kept as they come. */
export type FieldTable = Readonly<Record<string, FieldKind>>;

/** The fields of a payment: all required. */
export const PAYMENT_FIELDS = {
  uuid: 'string',
  checkout_session: 'string|null',
  gross_amount: 'int',
  psp_fee_amount: 'int',
  platform_fee_amount: 'int',
  net_amount_to_merchant: 'int',
  currency: 'string',
  payment_method: 'string',
  mobile_money_country: 'string|null',
  mobile_money_provider: 'string|null',
  psp_reference: 'string',
  status: 'string',
  failure_reason: 'string|null',
  created_at: 'string',
} as const satisfies FieldTable;

/** The fields of a payout: its record is documented only in part, so every field is optional. */
export const PAYOUT_FIELDS = {
  id: 'id?',
  amount: 'int?',
  currency: 'string?',
  status: 'string?',
  destination: { fields: { type: 'string' }, optional: true },
} as const satisfies FieldTable;

/** The `links` of a list envelope: the addresses of the neighbouring pages, `next` `null` on the last one. */
export const PAGE_LINKS_FIELDS = {
  first: 'string?|null',
  last: 'string?|null',
  prev: 'string?|null',
  next: 'string|null',
} as const satisfies FieldTable;

/** The `meta` of a list envelope: page counters. */
export const PAGE_META_FIELDS = {
  current_page: 'int',
  last_page: 'int',
  per_page: 'int',
  total: 'int',
} as const satisfies FieldTable;
