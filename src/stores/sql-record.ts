/**
 * The record columns of the SQL stores (Postgres, D1) as a {@link StoreRecord}. Values live in text
 * columns as JSON: `JSON.stringify` writes `\u0000` and lone surrogates as escapes, so they come back
 * equal whatever the database's text encoding does.
 *
 * @module
 */
import type { StoreJsonObject, StoreRecord } from './store.js';

/** A JSON text column as its value; absent for SQL NULL. */
function fromColumn(text: unknown): StoreJsonObject | undefined {
  return typeof text === 'string' ? (JSON.parse(text) as StoreJsonObject) : undefined;
}

/**
 * A row of `key`, `claims`, `age` (ms, the database's clock), `settled` (a boolean, or SQLite's 0 or
 * 1), `data`, `result`, `note` (JSON text or NULL) and `owner` (the owner of a live lease, or NULL)
 * as a record: absent fields are left out.
 */
export function recordFromRow(row: Record<string, unknown>): StoreRecord {
  const record: StoreRecord = {
    key: String(row.key),
    claims: Number(row.claims),
    age: Math.max(0, Number(row.age)),
    settled: row.settled === true || row.settled === 1,
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
