/**
 * The zod-free reading of the field tables of ./fields.ts, shared by two places:
 * - the webhook entry, which checks an event's `data` with it and reports one issue per bad field
 *   (zod would more than double the size of `payments-sdk/webhooks`);
 * - the response fast path of ./shared.ts, which accepts a record when this check finds nothing
 *   wrong and builds the same value zod's `z.looseObject` would, so that zod runs only on a record
 *   that has a problem (and then reports it in its own words).
 *
 * The rules of a field kind are written once, in {@link fieldProblem}; the zod schemas that
 * `shapeOf` builds from the same tables must decide alike, which test/schemas/fast-path.test.ts checks.
 *
 * This module imports no zod.
 * @module
 */
import type { ValidationIssue } from '../core/errors.js';
import { isRecord } from '../internal/is-record.js';
import { isExactId } from '../internal/json.js';
import type { FieldKind, FieldTable } from './fields.js';

/** "an object", "a string", "null"...: what a value is, for messages (never the value itself). */
export function kind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** The problem with one value of a field, or `undefined` when it is fine; nested issues go to `issues`. */
function fieldProblem(rule: FieldKind, value: unknown, path: readonly (string | number)[], issues: ValidationIssue[]): string | undefined {
  if (typeof rule === 'object') {
    if (value === undefined) return rule.optional ? undefined : 'is required';
    if (!isRecord(value)) return `must be an object, got ${kind(value)}`;
    collectIssues(value, rule.fields, path, issues);
    return undefined;
  }
  if (value === undefined) return rule.includes('?') ? undefined : 'is required';
  if (value === null && rule.endsWith('|null')) return undefined;
  if (rule.startsWith('string')) return typeof value === 'string' ? undefined : `must be a string, got ${kind(value)}`;
  if (rule.startsWith('int')) {
    // Money is never guessed: a safe integer of minor units, as z.int() demands.
    if (Number.isSafeInteger(value)) return undefined;
    return typeof value === 'number' ? `must be an integer, got ${value}` : `must be an integer, got ${kind(value)}`;
  }
  // 'id?': a number id must be exact (a safe integer); the parser keeps a longer one as its digits, in a string.
  if (isExactId(value)) return undefined;
  return `must be a string or a safe integer, got ${typeof value === 'number' ? value : kind(value)}`;
}

/** Pushes to `issues` one issue per bad field of `record`, at `path` + the field's name. */
export function collectIssues(
  record: Record<string, unknown>,
  fields: FieldTable,
  path: readonly (string | number)[],
  issues: ValidationIssue[],
): void {
  // for…in, not Object.entries: no array per call on the hot path (the tables are plain literals).
  for (const name in fields) {
    const rule = fields[name] as FieldKind;
    // A path array only where it is used: a nested table or a bad field.
    const problem = fieldProblem(rule, record[name], typeof rule === 'object' ? [...path, name] : path, issues);
    if (problem) issues.push({ path: [...path, name], message: problem });
  }
}

// One array for every check of `parseFields`: the check is synchronous, and an accepted record
// leaves it empty, so no array is allocated per record.
const scratch: ValidationIssue[] = [];
const ROOT: readonly string[] = [];

/**
 * The value zod's `z.looseObject` of a field table returns for `value`, or `undefined` when the
 * table finds a problem with it (then zod must decide, and word the issues).
 *
 * The copy follows zod's object walk: a new object holding the table's fields in table order (an
 * optional field only when the key is there, `undefined` included), each nested table copied the
 * same way, then every other enumerable key of the input in `for…in` order, except `__proto__`.
 */
export function parseFields(value: unknown, fields: FieldTable): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  scratch.length = 0;
  collectIssues(value, fields, ROOT, scratch);
  if (scratch.length > 0) {
    scratch.length = 0;
    return undefined;
  }
  return copyFields(value, fields);
}

const hasOwn = Object.prototype.hasOwnProperty;

function copyFields(input: Record<string, unknown>, fields: FieldTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in fields) {
    if (!(name in input)) continue;
    const rule = fields[name] as FieldKind;
    const field = input[name];
    out[name] = typeof rule === 'object' && field !== undefined ? copyFields(field as Record<string, unknown>, rule.fields) : field;
  }
  copyOtherKeys(input, fields, out);
  return out;
}

/**
 * Copies into `out` every enumerable key of `input` that `known` does not own, as zod's loose
 * object does with keys outside its shape: `__proto__` is left out, since assigning it would
 * replace `out`'s prototype.
 */
export function copyOtherKeys(input: Record<string, unknown>, known: object, out: Record<string, unknown>): void {
  for (const key in input) {
    if (key === '__proto__' || hasOwn.call(known, key)) continue;
    out[key] = input[key];
  }
}
