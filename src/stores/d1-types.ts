/**
 * The parts of Cloudflare D1 that {@link d1Store} uses, typed by shape: the SDK imports nothing from
 * Cloudflare, and `env.DB` of a Worker (a `D1Database` of `@cloudflare/workers-types`) fits as it is.
 *
 * @module
 */

/** What D1 answers for one statement (`D1Result`): the rows it returned, and counts. */
export interface D1ResultLike {
  /** The rows the statement returned (`RETURNING`, `SELECT`), as objects by column name. */
  results?: unknown[];
  /** `changes` counts the rows it inserted, updated or deleted. */
  meta?: { changes?: number };
}

/** A D1 prepared statement (`D1PreparedStatement`): `env.DB.prepare(sql).bind(...values)`. */
export interface D1PreparedStatementLike {
  /** Binds the `?` parameters, in order. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs the statement. */
  run(): Promise<unknown>;
  /** Runs the statement and answers its first row, or `null`. */
  first(): Promise<unknown>;
  /** Runs the statement and answers its rows. */
  all(): Promise<unknown>;
}

/** A D1 binding (`env.DB`, a `D1Database`). */
export interface D1DatabaseLike {
  /** Prepares one SQL statement. */
  prepare(query: string): D1PreparedStatementLike;
  /** Runs statements in order in one round trip, as one transaction: all of them, or none. */
  batch(statements: D1PreparedStatementLike[]): Promise<D1ResultLike[]>;
}

/**
 * What the effect given to {@link D1Store.transact} (the webhook `onEvent` with `d1Store`) returns:
 * the statements of its effects, prepared and bound on the same D1 database, or nothing.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an `onEvent` that returns nothing (a function whose return type is void) must fit.
export type D1Effects = D1PreparedStatementLike[] | void | undefined;
