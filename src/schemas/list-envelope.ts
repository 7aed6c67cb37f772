/**
 * The Laravel-style list envelope every list answers with (`data`, `links`, `meta`): its types, the
 * schemas of its page links and counters, and {@link listEnvelope}, the schema of a page of items.
 */

import * as z from 'zod/mini';
import { type KnownFields, minorUnits, type Proof, type Same } from './primitives.js';

/**
 * Page addresses of a list page. A field the service adds later is still kept on the object: read
 * it with `readField`.
 */
export interface PageLinks {
  /** Address of the first page. */
  first?: string | null;
  /** Address of the last page. */
  last?: string | null;
  /** Address of the previous page; `null` on the first page. */
  prev?: string | null;
  /** Address of the next page; `null` on the last page. */
  next: string | null;
}

/**
 * Page counters of a list page. A field the service adds later is still kept on the object: read it
 * with `readField`.
 */
export interface PageMeta {
  /** This page's number, from 1. */
  current_page: number;
  /** Number of the last page. */
  last_page: number;
  /** Items per page. */
  per_page: number;
  /** Total number of items across all pages. */
  total: number;
}

/** A page of a list, as the service answers it: the items, the page addresses and the counters. */
export interface ListEnvelope<T> {
  /** The items of this page. */
  data: T[];
  /** Page addresses. */
  links: PageLinks;
  /** Page counters. */
  meta: PageMeta;
}

const nullableUrl = z.nullable(z.string());

const pageLinksObject = z.looseObject({
  first: z.optional(nullableUrl),
  last: z.optional(nullableUrl),
  prev: z.optional(nullableUrl),
  next: nullableUrl,
});

const pageMetaObject = z.looseObject({
  current_page: minorUnits,
  last_page: minorUnits,
  per_page: minorUnits,
  total: minorUnits,
});

/** Schema of {@link PageLinks}: loose (unknown fields kept). */
export const PageLinksSchema: z.ZodMiniType<PageLinks> = pageLinksObject;

/** Schema of {@link PageMeta}: loose (unknown fields kept), integer counters. */
export const PageMetaSchema: z.ZodMiniType<PageMeta> = pageMetaObject;

function envelopeObject<T>(item: z.ZodMiniType<T>) {
  return z.looseObject({ data: z.array(item), links: PageLinksSchema, meta: PageMetaSchema });
}

// biome-ignore lint/correctness/noUnusedVariables: a compile-time proof, checked by tsc: the three types list exactly the fields their schemas check.
type EnvelopeMatchesSchema = Proof<
  [
    Same<PageLinks, KnownFields<z.output<typeof pageLinksObject>>>,
    Same<PageMeta, KnownFields<z.output<typeof pageMetaObject>>>,
    Same<ListEnvelope<{ id: string }>, KnownFields<z.output<ReturnType<typeof envelopeObject<{ id: string }>>>>>,
  ] extends [true, true, true]
    ? true
    : false
>;

/**
 * Schema of a {@link ListEnvelope} of `item`: loose, like every response schema. Building it is a
 * few object literals (zod/mini reads a shape when it first parses), so a list builds its own.
 *
 * ```ts
 * import { listEnvelope, PaymentSchema } from 'payments-sdk/schemas';
 * import * as z from 'zod/mini';
 * const page = z.parse(listEnvelope(PaymentSchema), JSON.parse('{"data":[],"links":{"next":null},"meta":{"current_page":1,"last_page":1,"per_page":20,"total":0}}'));
 * ```
 */
export function listEnvelope<T>(item: z.ZodMiniType<T>): z.ZodMiniType<ListEnvelope<T>> {
  return envelopeObject(item);
}
