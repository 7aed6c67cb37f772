/**
 * Response object schemas and the parser that reads them. Responses are read loosely (unknown
 * fields kept, enums open); a schema built from a field table of ./fields.ts also gets a fast path
 * that {@link parseResponse} tries before zod, and zod runs only on a record that has a problem.
 */

import * as z from 'zod/mini';
import { isExactId } from '../internal/json.js';
import { parseFields } from './field-check.js';
import type { FieldKind, FieldTable } from './fields.js';
import { minorUnits, nullableString } from './primitives.js';

/**
 * The object schema of a response (a payment, a page...): zod/mini's `z.looseObject`, so unknown
 * keys are kept and a field the service adds later never breaks a merchant.
 *
 * zod/mini walks the shape field by field. zod's compiled object parser (the one classic `z.object`
 * uses) is several times faster per record, but it is reachable only through classic `zod`, which
 * brings its whole chainable API into the client bundle, or through zod's internal constructors,
 * which a zod minor release may change. The records a client reads most (payments, payouts and
 * their pages) are built by {@link tableObject} instead, whose fast path skips the walk for a
 * valid record; BENCHMARKS.md gives the figures.
 */
export function responseObject<S extends z.core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, z.core.$loose> {
  return z.looseObject(shape);
}

/** An id: a string, or a number that is a safe integer. One check rather than a union, so a bad id is reported at its own path. */
const exactId = z.custom<string | number>(isExactId, { error: 'must be a string or a safe integer' });

/** The zod schema of one field kind of ./fields.ts. */
function fieldSchema(kind: FieldKind): z.core.$ZodType {
  switch (kind) {
    case 'string':
      return z.string();
    case 'string?':
      return z.optional(z.string());
    case 'string|null':
      return nullableString;
    case 'string?|null':
      return z.optional(nullableString);
    case 'int':
      return minorUnits;
    case 'int?':
      return z.optional(minorUnits);
    case 'id?':
      return z.optional(exactId);
    default:
      return kind.optional ? z.optional(tableObject(kind.fields)) : tableObject(kind.fields);
  }
}

/**
 * The zod shape of a field table of ./fields.ts: the same table generates the webhook entry's
 * zod-free check, so the two always agree.
 */
export function shapeOf(fields: FieldTable): z.core.$ZodLooseShape {
  const shape: z.core.$ZodLooseShape = {};
  for (const name in fields) shape[name] = fieldSchema(fields[name] as FieldKind);
  return shape;
}

/**
 * A parser that skips zod's walk for a valid value: the value zod would return, or `undefined` when
 * zod must decide (the value has a problem, and zod words the issues).
 */
export type FastParser = (value: unknown) => unknown;

/** The fast parsers of the schemas built from field tables (and of their list envelopes). */
export const fastParsers = new WeakMap<object, FastParser>();

/**
 * The response object schema of a field table of ./fields.ts: `responseObject(shapeOf(fields))`,
 * with a fast path registered for {@link parseResponse}. zod/mini's object walk is interpreted,
 * field by field; the table's own check (./field-check.ts) decides a valid record several times
 * faster and builds the same value, so zod runs only on a record that has a problem.
 */
export function tableObject(fields: FieldTable): z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$loose> {
  const schema = responseObject(shapeOf(fields));
  fastParsers.set(schema, (value) => parseFields(value, fields));
  return schema;
}

/**
 * The fast path alone: what `schema` returns for `value` when its fast parser accepts it, or
 * `undefined` when there is no fast parser or it leaves the decision to zod.
 */
export function fastParse(schema: object, value: unknown): unknown {
  return fastParsers.get(schema)?.(value);
}

/**
 * Validates a response value against `schema`, as `schema.safeParse` does. A schema built by
 * {@link tableObject} (or a {@link listEnvelope} of one) first tries its fast path, which returns
 * the very value zod would for a valid input; any other input, and any other schema, goes to zod,
 * so a failure carries zod's own issues.
 */
export function parseResponse<T>(schema: z.ZodMiniType<T>, value: unknown): z.core.util.SafeParseResult<T> {
  const fast = fastParse(schema, value);
  if (fast !== undefined) return { success: true, data: fast as T };
  return schema.safeParse(value);
}
