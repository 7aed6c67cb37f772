/**
 * Building blocks shared by every resource schema. Responses are read loosely (unknown fields kept,
 * enums open) but money is strict: an amount that is not an integer is an error.
 */

import * as z from 'zod/mini';
import { isKnownCurrency } from '../currencies.js';
import { isHttpUrl } from '../internal/http-url.js';
import { isRecord } from '../internal/is-record.js';
import { isExactId } from '../internal/json.js';
import { copyOtherKeys, parseFields } from './field-check.js';
import { type FieldKind, type FieldTable, PAGE_LINKS_FIELDS, PAGE_META_FIELDS } from './fields.js';

/** A string enum that stays open: the known literals, or any other string the service adds later. */
export type OpenEnum<T extends string> = T | (string & {});

/** Schema of an open enum: any string passes; the type lists the known values for autocompletion. */
export function openEnum<const T extends string>(_known: readonly T[]): z.ZodMiniType<OpenEnum<T>> {
  return z.string() as z.ZodMiniType<OpenEnum<T>>;
}

/**
 * The object schema of a response (a payment, a page...): zod/mini's `z.looseObject`, so unknown
 * keys are kept and a field the service adds later never breaks a merchant.
 *
 * zod/mini walks the shape field by field. zod's compiled object parser (the one classic `z.object`
 * uses) is several times faster per record, but it is reachable only through classic `zod`, which
 * brings its whole chainable API into the client bundle, or through zod's internal constructors,
 * which a zod minor release may change. The records a client reads most (payments, payouts and
 * their pages) are built by {@link tableObject} instead, whose fast path skips the walk for a
 * valid record; BENCHMARKS.md gives the figures.
 */
export function responseObject<S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$loose> {
  return z.looseObject(shape);
}

/** An amount in minor units, as the service sends it: a safe integer. */
export const minorUnits = z.int();

/** An amount a merchant may send: an integer ≥ 1. */
export const positiveMinorUnits = z.int().check(z.minimum(1, { error: 'must be an integer ≥ 1 (minor units)' }));

/**
 * An ISO 4217 currency code in capitals, as the platform's `Intl` data lists it: `'CFA'` or `'xof'`
 * is refused before anything is sent.
 */
export const currencyCode = z
  .string()
  .check(
    z.regex(/^[A-Z]{3}$/, { error: 'must be a 3-letter ISO 4217 code in capitals, e.g. "XOF"', abort: true }),
    z.refine(isKnownCurrency, { error: 'must be an ISO 4217 currency code, e.g. "XOF" or "GHS" (this one is not a currency)' }),
  );

/** ISO 3166-1 alpha-3 country code, e.g. `SEN`, `CIV`, `GHA`. */
export const countryCode = z
  .string()
  .check(z.regex(/^[A-Z]{3}$/, { error: 'must be an ISO 3166-1 alpha-3 code in capitals, e.g. "SEN" (not "SN")' }));

/** Phone number: country calling code and number, digits only, no `+`. */
export const phoneNumber = z
  .string()
  .check(z.regex(/^\d{6,15}$/, { error: 'must be digits only with the country calling code and no "+", e.g. "221771234567"' }));

/** A non-empty string of at most `max` characters. */
export function boundedString(max: number) {
  return z.string().check(z.minLength(1), z.maxLength(max));
}

/**
 * An http(s) URL of at most 2048 characters. Not `z.httpUrl()`: it demands a
 * dotted domain name and so refuses `http://localhost:3000/thanks` or `http://127.0.0.1/cb`, the
 * return URLs a merchant uses while developing. Not `z.url()` either: it is 0.5 KB gzip of the
 * client bundle for what the WHATWG parser below already decides.
 */
export const httpUrl = z.string().check(z.maxLength(2048), z.refine(isHttpUrl, { params: { format: 'url' } }));

/**
 * An object of string keys, as JSON has them (a `metadata` param). One check instead of
 * `z.record(z.string(), z.unknown())`, which costs 0.6 KB gzip of the client bundle.
 */
export function plainObject(error: string) {
  return z.custom<Record<string, unknown>>(isPlainObject, { error });
}

/** An object literal (or `Object.create(null)`): not an array, a `Date` or a `Map`, which JSON would mangle. */
function isPlainObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** E-mail address. */
export const email = z.email({ error: 'must be a valid e-mail address' });

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

/** A string or `null`, as the service sends optional text fields. */
export const nullableString = z.nullable(z.string());

/** A string with at least one character (operator codes, destination types, filters). */
export const nonEmptyString = z.string().check(z.minLength(1));

/** An id: a string, or a number that is a safe integer. One check rather than a union, so a bad id is reported at its own path. */
const exactId = z.custom<string | number>(isExactId, { error: 'must be a string or a safe integer' });

/** The zod schema of one field kind of ./fields.ts. */
function fieldSchema(kind: FieldKind): z.core.$ZodType {
  switch (kind) {
    case 'string':
      return z.string();
    case 'string?':
      return z.optional(z.string());
    case 'string|null':
      return nullableString;
    case 'string?|null':
      return z.optional(nullableString);
    case 'int':
      return minorUnits;
    case 'int?':
      return z.optional(minorUnits);
    case 'id?':
      return z.optional(exactId);
    default:
      return kind.optional ? z.optional(tableObject(kind.fields)) : tableObject(kind.fields);
  }
}

/**
 * The zod shape of a field table of ./fields.ts: the same table generates the webhook entry's
 * zod-free check, so the two always agree.
 */
export function shapeOf(fields: FieldTable): z.core.$ZodLooseShape {
  const shape: z.core.$ZodLooseShape = {};
  for (const name in fields) shape[name] = fieldSchema(fields[name] as FieldKind);
  return shape;
}

/**
 * A parser that skips zod's walk for a valid value: the value zod would return, or `undefined` when
 * zod must decide (the value has a problem, and zod words the issues).
 */
type FastParser = (value: unknown) => unknown;

/** The fast parsers of the schemas built from field tables (and of their list envelopes). */
const fastParsers = new WeakMap<object, FastParser>();

/**
 * The response object schema of a field table of ./fields.ts: `responseObject(shapeOf(fields))`,
 * with a fast path registered for {@link parseResponse}. zod/mini's object walk is interpreted,
 * field by field; the table's own check (./field-check.ts) decides a valid record several times
 * faster and builds the same value, so zod runs only on a record that has a problem.
 */
export function tableObject(fields: FieldTable): z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$loose> {
  const schema = responseObject(shapeOf(fields));
  fastParsers.set(schema, (value) => parseFields(value, fields));
  return schema;
}

/**
 * The fast path alone: what `schema` returns for `value` when its fast parser accepts it, or
 * `undefined` when there is no fast parser or it leaves the decision to zod.
 */
export function fastParse(schema: object, value: unknown): unknown {
  return fastParsers.get(schema)?.(value);
}

/**
 * Validates a response value against `schema`, as `schema.safeParse` does. A schema built by
 * {@link tableObject} (or a {@link listEnvelope} of one) first tries its fast path, which returns
 * the very value zod would for a valid input; any other input, and any other schema, goes to zod,
 * so a failure carries zod's own issues.
 */
export function parseResponse<T>(schema: z.ZodMiniType<T>, value: unknown): z.core.util.SafeParseResult<T> {
  const fast = fastParse(schema, value);
  if (fast !== undefined) return { success: true, data: fast as T };
  return schema.safeParse(value);
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

/** A calendar date for list filters: `'YYYY-MM-DD'` or a `Date` (sent as its UTC date). */
export type DateFilter = string | Date;

/** `'2026-02-30'` has the right shape but is no date: the service would answer 422 after a round trip. */
function isCalendarDate(value: string): boolean {
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
  per_page: z.optional(
    z.int().check(z.minimum(1, { error: 'must be between 1 and 100' }), z.maximum(100, { error: 'must be between 1 and 100' })),
  ),
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

// Type-only: a value re-export of the zod namespace defeats tree-shaking in merchants' bundlers
// (all of zod/mini, locales included, would ship). Schema files import zod/mini themselves.
export type { z };
