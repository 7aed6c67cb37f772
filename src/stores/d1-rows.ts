/**
 * Values and records between the D1 store and its rows. Values are kept as JSON text: `JSON.stringify`
 * writes `\u0000` and lone surrogates as escapes, so the text is plain ASCII where they occur and
 * comes back equal, whatever D1's UTF-8 does to text.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import type { StoreJsonObject, StoreRecord } from './store.js';

/** `value` (a JSON object, or nothing) as the JSON text of its column, or null. */
export function toColumn(value: StoreJsonObject | undefined, name: string): string | null {
  if (value === undefined) return null;
  if (!isRecord(value)) throw new PaymentsError(`d1Store: ${name} must be a JSON object.`);
  return JSON.stringify(value);
}

function fromColumn(text: unknown): StoreJsonObject | undefined {
  return typeof text === 'string' ? (JSON.parse(text) as StoreJsonObject) : undefined;
}

/** A row of the store's `read` statement as a {@link StoreRecord}: absent fields are left out. */
export function toRecord(row: Record<string, unknown>): StoreRecord {
  const record: StoreRecord = {
    key: String(row.key),
    claims: Number(row.claims),
    age: Math.max(0, Number(row.age)),
    settled: row.settled === 1,
  };
  const data = fromColumn(row.data);
  if (data !== undefined) record.data = data;
  const result = fromColumn(row.result);
  if (result !== undefined) record.result = result;
  const note = fromColumn(row.note);
  if (note !== undefined) record.note = note;
  if (typeof row.owner === 'string') record.owner = row.owner;
  return record;
}
