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
 * How the name of a key ending in `id` can end in JSON text: as is, or with its `i` or its `d`
 * written as a `\u` escape (JSON has no other way to write either letter).
 */
const ID_KEY_ENDS = ['id"', '\\u0069d"', '\\u0064"'];

/**
 * Could the text hold an id that is not a safe integer: a key ending in `id` whose value is a number
 * of 16 digits or more, or with a fraction or an exponent? The reviver then checks the key exactly.
 * `indexOf` jumps from one end of such a key to the next, and only the few characters after each are
 * read: a regular expression would test every position of the text. Only JSON's own whitespace is
 * skipped, the only kind `JSON.parse` accepts between a key, its colon and its value.
 */
function mayHoldUnsafeId(text: string): boolean {
  for (const end of ID_KEY_ENDS) {
    for (let at = text.indexOf(end); at !== -1; at = text.indexOf(end, at + end.length)) {
      if (unsafeNumberAt(text, at + end.length)) return true;
    }
  }
  return false;
}

/** `true` when `: <number>` at `i` (JSON whitespace around the colon) is 16+ digits, a fraction or an exponent. */
function unsafeNumberAt(text: string, i: number): boolean {
  i = skipJsonSpace(text, i);
  if (text.charCodeAt(i) !== COLON) return false;
  i = skipJsonSpace(text, i + 1);
  if (text.charCodeAt(i) === MINUS) i++;
  const first = i;
  while (isDigit(text.charCodeAt(i))) i++;
  const next = text.charCodeAt(i);
  return i - first >= 16 || (i > first && (next === DOT || next === LOWER_E || next === UPPER_E));
}

const COLON = 58;
const MINUS = 45;
const DOT = 46;
const LOWER_E = 101;
const UPPER_E = 69;

/** The index of the first character at or after `i` that is not JSON whitespace (space, tab, LF, CR). */
function skipJsonSpace(text: string, i: number): number {
  let code = text.charCodeAt(i);
  while (code === 32 || code === 9 || code === 10 || code === 13) code = text.charCodeAt(++i);
  return i;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
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
