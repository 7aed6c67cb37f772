/**
 * The zod-free reading of the field tables of ./fields.ts, shared by two places:
 * - the webhook entry, which checks an event's `data` with it and reports one issue per bad field
 *   (zod would more than double the size of `payments-sdk/webhooks`);
 * - the response fast path of ./response-objects.ts, which accepts a record when this check finds nothing
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
import { withArticle } from '../internal/article.js';
import { isRecord } from '../internal/is-record.js';
import { isExactId } from '../internal/json.js';
import type { FieldKind, FieldTable } from './fields.js';

/** "an object", "a string", "null"...: what a value is, for messages (never the value itself). */
export function kind(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === '') return 'an empty string';
  return withArticle(typeof value);
}

/** The problem with one value of a field, or `undefined` when it is fine; nested issues go to `issues`. */
function fieldProblem(rule: FieldKind, value: unknown, path: readonly (string | number)[], issues: ValidationIssue[]): string | undefined {
  if (typeof rule === 'object') {
    if (value === undefined) return rule.optional ? undefined : 'is required';
    if (!isRecord(value)) return `must be an object, got ${kind(value)}`;
    collectIssues(value, rule.fields, path, issues);
    return undefined;
  }
  // The value a kind is named after first: one comparison of a table's own string per field, as
  // every record of a page passes here.
  switch (rule) {
    case 'string':
    case 'string?':
    case 'string|null':
    case 'string?|null':
      if (typeof value === 'string') return undefined;
      break;
    case 'int':
    case 'int?':
      // Money is never guessed: a safe integer of minor units, as z.int() demands.
      if (Number.isSafeInteger(value)) return undefined;
      break;
    default:
      // 'id?': a number id must be exact (a safe integer); the parser keeps a longer one as its digits, in a string.
      if (isExactId(value)) return undefined;
  }
  if (value === undefined) return rule.includes('?') ? undefined : 'is required';
  if (value === null && rule.endsWith('|null')) return undefined;
  if (rule.startsWith('string')) return `must be a string, got ${kind(value)}`;
  if (rule.startsWith('int'))
    return typeof value === 'number' ? `must be an integer, got ${value}` : `must be an integer, got ${kind(value)}`;
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
  // The common case, a record whose own keys start with the table's fields in table order: zod's
  // copy then has the input's own order, which a spread gives at a fraction of a keyed copy's cost.
  const out: Record<string, unknown> = inOrder(input, fields) ? { ...input } : copyByName(input, fields);
  for (const name in fields) {
    const rule = fields[name] as FieldKind;
    const field = out[name];
    if (typeof rule === 'object' && field !== undefined) out[name] = copyFields(field as Record<string, unknown>, rule.fields);
  }
  return out;
}

/**
 * Whether a spread of `input` has the keys, in the order, of zod's copy: its own keys begin with
 * the table fields it has, in table order, no other key is `__proto__` (zod leaves it out), and it
 * inherits no enumerable key (zod's `for…in` would copy one). Symbol keys are not looked for: a
 * spread would copy one and zod would not, but a response is parsed JSON, which has none.
 */
function inOrder(input: Record<string, unknown>, fields: FieldTable): boolean {
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype || !plainPrototype()) return false;
  const keys = Object.keys(input);
  let i = 0;
  for (const name in fields) {
    if (!(name in input)) continue;
    if (keys[i] !== name) return false;
    i++;
  }
  for (; i < keys.length; i++) if (keys[i] === '__proto__') return false;
  return true;
}

/** `Object.prototype` has no enumerable key (nothing was added to it by assignment). */
function plainPrototype(): boolean {
  for (const _ in Object.prototype) return false;
  return true;
}

/** zod's copy, key by key: the table's fields present in `input`, then its other keys. */
function copyByName(input: Record<string, unknown>, fields: FieldTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in fields) if (name in input) out[name] = input[name];
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
