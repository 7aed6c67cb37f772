/**
 * The primitive schemas resource schemas are built from: open enums, amounts in minor units,
 * currency and country codes, phone numbers, URLs, e-mail addresses and the string and object
 * checks params use. Money is strict: an amount that is not an integer is an error.
 */

import * as z from 'zod/mini';
import { type CurrencyCode, isKnownCurrency } from '../currencies.js';
import { kind } from '../internal/article.js';
import { MAX_TIMER_MS } from '../internal/durations.js';
import { isHttpUrl } from '../internal/http-url.js';
import { isExactId } from '../internal/json.js';

/** A string enum that stays open: the known literals, or any other string the service adds later. */
export type OpenEnum<T extends string> = T | (string & {});

/** Schema of an open enum: any string passes; the type lists the known values for autocompletion. */
export function openEnum<const T extends string>(_known: readonly T[]): z.ZodMiniType<OpenEnum<T>> {
  return z.string();
}

/** A currency code as the service sends it: any string, typed as {@link CurrencyCode} for autocompletion. */
export const responseCurrency: z.ZodMiniType<CurrencyCode> = z.string();

/** An id: a string, or a number that is a safe integer. One check rather than a union, so a bad id is reported at its own path. */
export const exactId = z.custom<string | number>(isExactId, {
  error: (issue) => `must be a string or a safe integer, got ${typeof issue.input === 'number' ? issue.input : kind(issue.input)}`,
});

/**
 * The fields a type names, without its index signature: `KnownFields<z.output<typeof schema>>` of a
 * `z.looseObject` is the record with the fields its shape lists, and no `[key: string]: unknown`.
 */
export type KnownFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * `true` when `A` and `B` are the same type (not merely assignable one way): the compile-time proof
 * that a documented interface lists exactly the fields its schema checks, with the same types.
 */
export type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

/** Compiles only when given `true`: `type _ = Proof<Same<A, B>>`. */
export type Proof<T extends true> = T;

/** A delay in milliseconds that a timer honours: from 1 to 2^31 - 1 (a longer `setTimeout` fires at once). */
export const milliseconds = z.number().check(z.minimum(1), z.maximum(MAX_TIMER_MS));

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
 * An http(s) URL of at most 2048 characters, without spaces around it or control characters in it
 * (the URL parser would drop them silently, so the URL checked would not be the URL sent). Not `z.httpUrl()`: it demands a
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

/** A string or `null`, as the service sends optional text fields. */
export const nullableString = z.nullable(z.string());

/** A string with at least one character (operator codes, destination types, filters). */
export const nonEmptyString = z.string().check(z.minLength(1));
