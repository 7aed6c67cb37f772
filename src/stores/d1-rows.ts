/**
 * Values from the D1 store to its rows (records come back through `recordFromRow`, shared with the
 * Postgres store). Values are kept as JSON text: `JSON.stringify` writes `\u0000` and lone
 * surrogates as escapes, so the text is plain ASCII where they occur and comes back equal, whatever
 * D1's UTF-8 does to text.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import type { StoreJsonObject } from './store.js';

/** `value` (a JSON object, or nothing) as the JSON text of its column, or null. */
export function toColumn(value: StoreJsonObject | undefined, name: string): string | null {
  if (value === undefined) return null;
  if (!isRecord(value)) throw new PaymentsError(`d1Store: ${name} must be a JSON object.`);
  return JSON.stringify(value);
}
