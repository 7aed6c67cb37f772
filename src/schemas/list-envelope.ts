/**
 * The Laravel-style list envelope every list answers with (`data`, `links`, `meta`): its types,
 * the schemas of its page links and counters, and {@link listEnvelope}, which builds the envelope
 * schema of an item schema once and gives it a fast path when the item schema has one.
 */

import * as z from 'zod/mini';
import { isRecord } from '../internal/is-record.js';
import { copyOtherKeys, parseFields } from './field-check.js';
import { PAGE_LINKS_FIELDS, PAGE_META_FIELDS } from './fields.js';
import { type FastParser, fastParsers, responseObject, tableObject } from './response-objects.js';

/** Page addresses of the list envelope. */
export interface PageLinks {
  first: string | null;
  last: string | null;
  prev: string | null;
  /** `null` on the last page. */
  next: string | null;
  [key: string]: unknown;
}

/** Page counters of the list envelope. */
export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  /** Total number of items across all pages. */
  total: number;
  [key: string]: unknown;
}

/** The Laravel-style list envelope every list answers with. */
export interface ListEnvelope<T> {
  data: T[];
  links: PageLinks;
  meta: PageMeta;
  [key: string]: unknown;
}

/** Schema of {@link PageLinks}. */
export const PageLinksSchema: z.ZodMiniType<PageLinks> = tableObject(PAGE_LINKS_FIELDS) as unknown as z.ZodMiniType<PageLinks>;

/** Schema of {@link PageMeta}. */
export const PageMetaSchema: z.ZodMiniType<PageMeta> = tableObject(PAGE_META_FIELDS) as unknown as z.ZodMiniType<PageMeta>;

const envelopes = new WeakMap<object, z.ZodMiniType<ListEnvelope<unknown>>>();
const ENVELOPE_KEYS = { data: true, links: true, meta: true };

/**
 * Schema of a {@link ListEnvelope} of `item`, built once per item schema: zod compiles an object
 * schema on its first parse, and `list()` would otherwise pay that on every call. When `item` has
 * a fast path, so has the envelope.
 */
export function listEnvelope<T>(item: z.ZodMiniType<T>): z.ZodMiniType<ListEnvelope<T>> {
  let schema = envelopes.get(item);
  if (!schema) {
    schema = responseObject({ data: z.array(item), links: PageLinksSchema, meta: PageMetaSchema }) as z.ZodMiniType<ListEnvelope<unknown>>;
    envelopes.set(item, schema);
    const fastItem = fastParsers.get(item);
    if (fastItem) fastParsers.set(schema, (value) => parseEnvelope(value, fastItem));
  }
  return schema as z.ZodMiniType<ListEnvelope<T>>;
}

/** The fast path of a list envelope: what its zod schema returns for a valid page, else `undefined`. */
function parseEnvelope(value: unknown, parseItem: FastParser): unknown {
  if (!isRecord(value)) return undefined;
  const items = value.data;
  if (!Array.isArray(items)) return undefined;
  const data: unknown[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const parsed = parseItem(items[i]);
    if (parsed === undefined) return undefined;
    data[i] = parsed;
  }
  const links = parseFields(value.links, PAGE_LINKS_FIELDS);
  const meta = links && parseFields(value.meta, PAGE_META_FIELDS);
  if (!meta) return undefined;
  const out: Record<string, unknown> = { data, links, meta };
  copyOtherKeys(value, ENVELOPE_KEYS, out);
  return out;
}
