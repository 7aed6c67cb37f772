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
 * Could the text hold an id that is not a safe integer? A key ending in `id` followed by a number of
 * 16+ digits, or with a fraction or an exponent (as `/id"\s*:\s*-?(?:\d{16}|\d+[.eE])/` reads it,
 * with JSON's whitespace); the reviver then checks the key exactly. A hand-written scan from one
 * `indexOf` to the next: a page of 100 payments has 100 `uuid` keys, and the regex took about
 * twice as long over such a page.
 */
function mayHoldUnsafeId(text: string): boolean {
  for (let at = text.indexOf('id"'); at >= 0; at = text.indexOf('id"', at)) {
    at = skipSpace(text, at + 3);
    if (text.charCodeAt(at) !== 0x3a /* : */) continue;
    at = skipSpace(text, at + 1);
    if (text.charCodeAt(at) === 0x2d /* - */) at++;
    const start = at;
    let c = text.charCodeAt(at);
    while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++at);
    const digits = at - start;
    if (digits >= 16 || (digits > 0 && (c === 0x2e /* . */ || c === 0x65 /* e */ || c === 0x45) /* E */)) return true;
  }
  return false;
}

/** The index of the first character at or after `at` that is not JSON whitespace. */
function skipSpace(text: string, at: number): number {
  let c = text.charCodeAt(at);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++at);
  return at;
}

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
  return mayHoldUnsafeId(text) ? JSON.parse(text, exactIds as (key: string, value: unknown) => unknown) : JSON.parse(text);
}

/** `true` for an id as the SDK accepts it in a body: a string, or a number that is a safe integer. */
export function isExactId(value: unknown): value is string | number {
  return typeof value === 'string' || Number.isSafeInteger(value);
}
