/**
 * The store's table name in its one spelling: schema-qualified, every identifier quoted. `t`,
 * `public.t`, `"t"` and `"public"."t"` all name the same table, so they give the same SQL and the
 * same advisory lock for `migrate()`, whichever way each process spelled it.
 *
 * @module
 */

/** The store's table when none is named. */
export const DEFAULT_TABLE = 'payments_sdk';

/** The schema of a table named without one. */
export const DEFAULT_SCHEMA = 'public';

/** A table name checked and normalized. */
export interface TableName {
  /** The schema, as Postgres stores it (unquoted names folded to lower case). */
  schema: string;
  /** The table, as Postgres stores it. */
  name: string;
  /** `"schema"."name"`, for the SQL. */
  sql: string;
}

/** Plain identifiers: letters, digits, `_` and `$`, not starting with a digit or `$`; at most 63 bytes (Postgres cuts longer ones). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const MAX_BYTES = 63;

const RULE = 'letters, digits, _ and $ (not starting with a digit or $), at most 63 bytes, optionally in double quotes';

/**
 * One identifier: `"as is"` when quoted, folded to lower case otherwise (as Postgres does), or the
 * reason it cannot be used.
 */
function identifier(part: string, what: string): { ok: true; value: string } | { ok: false; problem: string } {
  const quoted = part.length >= 2 && part.startsWith('"') && part.endsWith('"');
  const bare = quoted ? part.slice(1, -1) : part;
  if (!IDENTIFIER.test(bare) || bare.length > MAX_BYTES) {
    return { ok: false, problem: `${what} ${JSON.stringify(part)} must be ${RULE}` };
  }
  return { ok: true, value: quoted ? bare : bare.toLowerCase() };
}

/**
 * `table` (a name or `schema.name`) and `schema` checked and normalized, or every reason they cannot
 * be used. A schema given both ways must agree.
 */
export function tableName(table: unknown, schema: unknown): { ok: true; value: TableName } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (typeof table !== 'string') return { ok: false, problems: [`table must be a string, got ${typeof table}`] };
  if (schema !== undefined && typeof schema !== 'string') return { ok: false, problems: [`schema must be a string, got ${typeof schema}`] };
  const parts = table.split('.');
  if (parts.length > 2) return { ok: false, problems: [`table ${JSON.stringify(table)} must be a name or schema.name`] };
  const name = identifier(parts[parts.length - 1] ?? '', 'table');
  if (!name.ok) problems.push(name.problem);
  const schemas: string[] = [];
  for (const [given, what] of [
    [parts.length === 2 ? parts[0] : undefined, 'the schema of table'],
    [schema, 'schema'],
  ] as const) {
    if (given === undefined) continue;
    const checked = identifier(given, what);
    if (checked.ok) schemas.push(checked.value);
    else problems.push(checked.problem);
  }
  if (schemas.length === 2 && schemas[0] !== schemas[1]) {
    problems.push(`table names schema ${JSON.stringify(schemas[0])} but schema is ${JSON.stringify(schemas[1])}`);
  }
  if (problems.length > 0 || !name.ok) return { ok: false, problems };
  const value = { schema: schemas[0] ?? DEFAULT_SCHEMA, name: name.value };
  return { ok: true, value: { ...value, sql: `"${value.schema}"."${value.name}"` } };
}
