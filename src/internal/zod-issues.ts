/**
 * zod issues in the SDK's words. zod/mini ships no English messages, so issues are worded here from
 * their codes, with the input at hand to tell "missing" from "wrong type". Shared by the client and
 * the webhook entry, so it imports no schema.
 */
import type * as z from 'zod/mini';
import type { ValidationIssue } from '../core/errors.js';
import { withArticle } from './article.js';

type RawIssue = z.core.$ZodIssue;

/** What zod calls an issue it has no words for. */
const NO_WORDS = 'Invalid input';

/**
 * Parse options that keep zod's own messages out, so that {@link toIssues} words every issue: classic
 * zod, loaded anywhere in the process, or a merchant's `z.config()` would otherwise set English ones
 * ("Too small: expected number to be >=1"). A schema's own `error` still wins.
 */
export const SDK_WORDS = { error: () => NO_WORDS };

/** Turns zod issues into SDK issues with English messages; unknown keys become one issue each. */
export function toIssues(issues: readonly RawIssue[], input: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
    if (issue.code === 'unrecognized_keys') {
      // A message the schema gives (what to do instead) wins here too.
      const message = issue.message === NO_WORDS ? undefined : issue.message;
      for (const key of issue.keys) out.push({ path: [...path, key], message: message ?? unknownKeyMessage(key) });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors[0]) {
      // Report the first branch's issues. Their paths are relative to the union, so they are
      // prefixed with the union's own path to name the field (`data.metadata`, not `data`).
      const branch = issue.errors[0].map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as RawIssue);
      out.push(...toIssues(branch, input));
      continue;
    }
    out.push({ path, message: describe(issue, valueAt(input, path)) });
  }
  return out;
}

function describe(issue: RawIssue, value: unknown): string {
  // A custom message given in the schema (`{ error: '...' }`) wins.
  if (issue.message && issue.message !== NO_WORDS) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'is required';
      if (issue.expected === 'int') return `must be an integer, got ${show(value)}`;
      return `must be ${withArticle(issue.expected)}, got ${typeName(value)}`;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `must have at least ${issue.minimum} character${Number(issue.minimum) === 1 ? '' : 's'}`
        : `must be ${issue.inclusive ? '≥' : '>'} ${issue.minimum}, got ${show(value)}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must be at most ${issue.maximum} characters, got ${typeof value === 'string' ? value.length : '?'}`
        : `must be ${issue.inclusive ? '≤' : '<'} ${issue.maximum}, got ${show(value)}`;
    case 'invalid_format':
      // The SDK's own formats carry their messages (schemas/primitives.ts); this words a merchant's
      // schema's (client.request). The value is not shown: an e-mail address or a phone number.
      return `does not match the ${issue.format} format`;
    case 'custom':
      // A format checked by a refinement rather than by zod's own (schemas/primitives.ts httpUrl).
      if (issue.params?.format === 'url') return `must be an http(s) URL, without spaces around it, got ${show(value)}`;
      return `is invalid, got ${show(value)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${show(value)}`;
    default:
      return `is invalid, got ${show(value)}`;
  }
}

/** `payerEmail` → "unknown key (did you mean payer_email?)". */
function unknownKeyMessage(key: string): string {
  const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return snake !== key ? `unknown key (did you mean ${snake}?)` : 'unknown key';
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** A value for a message: a string quoted (cut at 60 characters), an object or a function by its type, anything else as it is. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return typeof value === 'object' || typeof value === 'function' ? typeName(value) : String(value);
}
