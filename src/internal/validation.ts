/**
 * Checks before sending and after receiving: params and answers against their zod schemas (each
 * failure one SDK error naming every bad field), and the identifiers, idempotency keys and list
 * filters that travel outside a body.
 */
import type * as z from 'zod/mini';
import { InvalidParamsError, PaymentsError, ResponseValidationError, type ValidationIssue } from '../core/errors.js';
import { isSendableDate } from '../schemas/list-params.js';
import { kind } from './article.js';
import { formatIssues } from './format-issues.js';
import { isRecord } from './is-record.js';
import { isWellFormed } from './well-formed.js';
import { SDK_WORDS, toIssues, typeName } from './zod-issues.js';

/** Validates params before anything is sent; throws one {@link InvalidParamsError} naming every bad field. */
export function checkParams<T>(schema: z.ZodMiniType<T>, params: unknown, label: string, more: ValidationIssue[] = []): T {
  const result = schema.safeParse(params, SDK_WORDS);
  if (result.success && more.length === 0) return result.data;
  // `more`: problems found outside the schema (an option, a filter), reported in the same error;
  // a field the schema already named is named once.
  const issues = result.success ? [] : toIssues(result.error.issues, params);
  const named = new Set(issues.map((issue) => issue.path.join('\u0000')));
  throw new InvalidParamsError([...more.filter((issue) => !named.has(issue.path.join('\u0000'))), ...issues], label);
}

/**
 * Validates the options of the client or of a call; throws one {@link PaymentsError} naming every
 * bad option. (Options are settings, not params: a bad one is a `PaymentsError`, as a missing key is.)
 */
export function checkOptions<T>(schema: z.ZodMiniType<T>, options: unknown, label: string): T {
  const result = schema.safeParse(options, SDK_WORDS);
  if (result.success) return result.data;
  throw new PaymentsError(`Invalid ${label}: ${formatIssues(toIssues(result.error.issues, options))}.`);
}

/** Validates a 2xx body; throws {@link ResponseValidationError} with the issues and the raw body. */
export function checkResponse<T>(schema: z.ZodMiniType<T>, body: unknown, label: string): T {
  const result = schema.safeParse(body, SDK_WORDS);
  if (result.success) return result.data;
  throw new ResponseValidationError(toIssues(result.error.issues, body), body, label);
}

/**
 * Unwraps and validates the `data` member of a `{ "data": … }` body, the envelope of every single-resource answer. On a
 * mismatch the error carries the whole body as received, and each issue's path starts at it
 * (`data.amount`), so what the merchant logs is what the service sent.
 */
export function checkData<T>(schema: z.ZodMiniType<T>, body: unknown, label: string): T {
  if (!isRecord(body) || !('data' in body)) {
    throw new ResponseValidationError([{ path: ['data'], message: 'is required: expected an object with a "data" member' }], body, label);
  }
  const result = schema.safeParse(body.data, SDK_WORDS);
  if (result.success) return result.data;
  const issues = toIssues(result.error.issues, body.data).map((issue) => ({ path: ['data', ...issue.path], message: issue.message }));
  throw new ResponseValidationError(issues, body, label);
}

/**
 * Longest identifier accepted in a path, and longest filter name or text value: far above any id the
 * service issues (UUIDs, ULIDs, slugs), far below what a URL can carry.
 */
export const MAX_ID_LENGTH = 255;
/** Longest text value of a list filter. */
export const MAX_FILTER_LENGTH = 2048;

/**
 * What is wrong with text that travels in a URL, if anything: longer than `max`, or holding a lone
 * surrogate, which no URL can carry as it is.
 */
export function textProblem(text: string, max: number): string | undefined {
  if (text.length > max) return `must be at most ${max} characters, got ${text.length}`;
  if (!isWellFormed(text)) return 'must be well-formed text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

/**
 * The path segment of an identifier, checked and encoded: a non-blank, well-formed string of at most
 * {@link MAX_ID_LENGTH} characters, or a safe integer (a longer number has already lost digits:
 * pass such an id as its string). Throws one {@link InvalidParamsError}; nothing is sent.
 */
export function pathSegment(id: unknown, label: string): string {
  const problem = idProblem(id);
  if (problem) throw new InvalidParamsError([{ path: ['id'], message: problem }], `${label} identifier`);
  return encodeURIComponent(String(id));
}

function idProblem(id: unknown): string | undefined {
  if (typeof id === 'number') {
    return Number.isSafeInteger(id)
      ? undefined
      : `must be a string or a safe integer, got ${id} (pass an id beyond 2^53 as its digits, a string)`;
  }
  if (typeof id !== 'string' || id.trim() === '')
    return `must be a non-empty string, got ${typeof id === 'string' ? 'a blank string' : kind(id)}`;
  // "." and ".." survive encodeURIComponent and the URL parser resolves them as path segments:
  // retrieve('..') would read GET /api/v1/ instead of an object.
  if (id === '.' || id === '..') return `must not be ${JSON.stringify(id)}`;
  return textProblem(id, MAX_ID_LENGTH);
}

/**
 * Problems with an `idempotencyKey`: it travels in a header, byte for byte, so it must be 1 to 255
 * printable ASCII characters, without leading or trailing spaces (which HTTP drops).
 */
export function idempotencyKeyIssues(key: unknown): ValidationIssue[] {
  // The pattern asks for one character at least.
  const ok = typeof key === 'string' && key.length <= 255 && /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key);
  if (ok) return [];
  return [
    {
      path: ['options', 'idempotencyKey'],
      message: 'must be 1 to 255 printable ASCII characters, without a line break, a control character or leading/trailing spaces',
    },
  ];
}

/**
 * Problems with list filters: each is sent as one query parameter, so a value must be a string, a
 * finite number, a boolean or a valid Date (or `undefined`/`null`, meaning no filter), and names and
 * text must be well-formed and bounded. `[object Object]` never reaches the service. Each issue's
 * path starts with `path` (`['query']` for a query).
 */
export function filterIssues(params: unknown, path: string[] = []): ValidationIssue[] {
  if (!isRecord(params)) return [];
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(params)) {
    const nameProblem = textProblem(key, MAX_ID_LENGTH);
    if (nameProblem) {
      // Named by its start: the name may be too long to show whole.
      issues.push({ path: [...path, key.slice(0, 60)], message: `its name ${nameProblem}` });
      continue;
    }
    const problem = filterProblem(value);
    if (problem) issues.push({ path: [...path, key], message: problem });
  }
  return issues;
}

function filterProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `must be a finite number, got ${value}`;
  if (typeof value === 'string') return textProblem(value, MAX_FILTER_LENGTH);
  if (value instanceof Date) return isSendableDate(value) ? undefined : 'must be a valid Date in years 0–9999';
  return `must be a string, a number, a boolean or a Date (a filter is one query parameter), got ${typeName(value)}`;
}
