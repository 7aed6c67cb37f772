/**
 * `JSON.parse` that never rounds an identifier. A JSON number beyond 2^53 loses digits as a JS
 * number (`1234567890123456789` reads as `1234567890123456800`), and two events or payouts would
 * then share one id. So a number under a key named `id` or ending in `_id` that is not a safe
 * integer is kept exactly, as its text from the body (a string), where the runtime hands the reviver
 * that text (`context.source`: Node 22+, Bun, Deno, workerd and current browsers). Where it does
 * not, the number is left as parsed and the schemas refuse an id that is not a safe integer: an id
 * is either exact or refused, never rounded.
 */

/**
 * Could the text hold an id that is not a safe integer (16+ digits, a fraction or an exponent)? A
 * key ending in `id` followed by such a number; the reviver then checks the key exactly.
 */
const MAYBE_UNSAFE_ID = /id"\s*:\s*-?(?:\d{16}|\d+[.eE])/;

/** `true` when `key` names an identifier: `id`, or `…_id`. */
export function isIdKey(key: string): boolean {
  return key === 'id' || key.endsWith('_id');
}

function exactIds(this: unknown, key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && isIdKey(key) && typeof context?.source === 'string') {
    return context.source;
  }
  return value;
}

/** Parses JSON text like `JSON.parse`, keeping ids beyond 2^53 exact (see the module comment). */
export function parseJson(text: string): unknown {
  // The reviver costs a walk of the whole value: only a body that may hold such an id pays for it.
  return MAYBE_UNSAFE_ID.test(text) ? JSON.parse(text, exactIds as (key: string, value: unknown) => unknown) : JSON.parse(text);
}

/** `true` for an id as the SDK accepts it in a body: a string, or a number that is a safe integer. */
export function isExactId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}
