/**
 * The filters every list accepts (a date range and paging) and the `status` filter of a list:
 * their types and the zod shapes each resource's list params extend. A filter the service would
 * refuse (an impossible date, a page size over 100) is refused before anything is sent.
 */

import * as z from 'zod/mini';

/** A calendar date for list filters: `'YYYY-MM-DD'` or a `Date` (sent as its UTC date). */
export type DateFilter = string | Date;

/** `'2026-02-30'` has the right shape but is no date: the service would answer 422 after a round trip. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(value);
}

/** A Date that can be sent as a filter: valid, in years 0–9999, where toISOString() starts with its `YYYY-MM-DD`. */
export function isSendableDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime()) && value.getUTCFullYear() >= 0 && value.getUTCFullYear() <= 9999;
}

// One check rather than a union of string and Date, so a wrong value gets one message that names
// both accepted forms.
const dateFilter = z.custom<DateFilter>((value) => (typeof value === 'string' && isCalendarDate(value)) || isSendableDate(value), {
  error: 'must be a "YYYY-MM-DD" date or a valid Date',
});

/** Filters every list accepts. */
export interface ListParamsBase {
  /** Only items created on or after this date (inclusive). */
  from?: DateFilter;
  /** Only items created on or before this date (inclusive). */
  to?: DateFilter;
  /** Items per page, 1–100 (default 20 on the service). */
  per_page?: number;
  /** Page number, from 1. */
  page?: number;
}

/** Shape of the common list filters, to extend per resource. */
export const listParamsShape = {
  from: z.optional(dateFilter),
  to: z.optional(dateFilter),
  per_page: z.optional(z.int().check(z.minimum(1), z.maximum(100))),
  page: z.optional(z.int().check(z.minimum(1))),
};

/**
 * The `status` filter of a list. It stays open like the enum it filters (a state the service adds
 * later can be filtered on before the SDK knows it), but the one spelling trap of the service is
 * caught before sending: payments are `canceled`, checkout sessions `cancelled`.
 */
export function statusFilter(resource: string, right: string, wrong: string) {
  return z.string().check(
    z.minLength(1),
    z.refine((value) => value !== wrong, { error: `must be "${right}" for ${resource} ("${wrong}" is not one of its states)` }),
  );
}
