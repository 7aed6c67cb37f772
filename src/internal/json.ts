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
 * What follows the end of an id key when its value may not be a safe integer: JSON whitespace, the
 * colon, JSON whitespace, and a number of 16 digits or more, or with a fraction or an exponent.
 * Sticky (`y`): it is tried at one position only, right after a key.
 */
const UNSAFE_NUMBER_AFTER_KEY = /[ \t\n\r]*:[ \t\n\r]*-?(?:\d{16}|\d+[.eE])/y;

/**
 * Could the text hold an id that is not a safe integer? The reviver then checks the key exactly.
 * `indexOf` jumps from one end of an id key to the next, and the pattern is tried only there: a
 * pattern searched over the whole text would be tried at every position of it. Only JSON's own
 * whitespace is allowed around the colon, the only kind `JSON.parse` accepts there.
 */
function mayHoldUnsafeId(text: string): boolean {
  for (const end of ID_KEY_ENDS) {
    for (let at = text.indexOf(end); at !== -1; at = text.indexOf(end, at + end.length)) {
      UNSAFE_NUMBER_AFTER_KEY.lastIndex = at + end.length;
      if (UNSAFE_NUMBER_AFTER_KEY.test(text)) return true;
    }
  }
  return false;
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

/**
 * Why `JSON.parse` refused a text, without the piece of the text its message may quote (V8 quotes
 * the start of it: `Unexpected token 'p', "phone=2217"... is not valid JSON`): a file or body may
 * hold a customer's phone or e-mail, and the reason ends up in errors and logs.
 */
export function jsonSyntaxReason(error: unknown): string {
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : '';
  return message.replace(/, ".*" is not valid JSON$/, ' (not valid JSON)') || 'not valid JSON';
}
