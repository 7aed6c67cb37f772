/**
 * The store's table and the statements it runs, kept apart from the store so that
 * `payments-sdk db schema` prints the same SQL that `migrate()` runs.
 *
 * Every time compared (a lease's end, a record's age) is the database's `clock_timestamp()`, never
 * a worker's. JSON values live in `text` columns: `jsonb` refuses `\u0000`, and JSON text written by
 * `JSON.stringify` keeps it (and lone surrogates) as escapes, so values come back exactly.
 *
 * @module
 */

/**
 * The table's SQL. Idempotent, and gentle with a live table: `CREATE TABLE IF NOT EXISTS` on an
 * existing table takes no lock on it (a `CREATE INDEX IF NOT EXISTS` would take a SHARE lock,
 * stalling every write until it got it), so the table's one index is its primary key.
 */
export function schemaSql(table: string): string {
  return `-- payments-sdk store: one row per key (a webhook event handled, a bulk payout row, a reconciled payment).
CREATE TABLE IF NOT EXISTS ${table} (
  key         text PRIMARY KEY,                            -- made by the SDK: a namespace, then the ids
  data        text,                                        -- JSON kept by the first claim
  claims      integer NOT NULL DEFAULT 0,                  -- claims granted so far
  first_at    timestamptz NOT NULL DEFAULT clock_timestamp(), -- the first claim, on the database's clock
  settled     boolean NOT NULL DEFAULT false,              -- settled for good
  result      text,                                        -- JSON recorded when settled
  note        text,                                        -- JSON recorded by the last release
  owner       text,                                        -- the owner of the last claim, until settled or released
  lease_until timestamptz,                                 -- when that claim ends, on the database's clock
  updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
`;
}

/** The record columns every statement answers, read from `t`. */
const RECORD = `t.key, t.data, t.claims, t.settled, t.result, t.note,
  CASE WHEN t.lease_until > clock_timestamp() THEN t.owner END AS owner,
  floor(extract(epoch FROM clock_timestamp() - t.first_at) * 1000)::float8 AS age`;

/** `until` as a lease of `ms` milliseconds from now. */
const leaseFrom = (ms: string) => `clock_timestamp() + ${ms}::float8 * interval '1 millisecond'`;

/** Whether the claim by `$owner` may take row `t`: not settled, and not held by another owner's live lease. */
const FREE_FOR = (owner: string) =>
  `NOT t.settled AND (t.owner IS NULL OR t.owner = ${owner} OR t.lease_until IS NULL OR t.lease_until <= clock_timestamp())`;

/** The statements of one table. */
export interface Statements {
  /** Claims many keys in one statement. */
  claim: string;
  /** Extends a live lease. */
  renew: string;
  /** Settles a key for its owner. */
  settle: string;
  /** Ends a claim, keeping a note. */
  release: string;
  /** Reads records without claiming. */
  read: string;
  /** Settles a key inside `transact`'s transaction. */
  transact: string;
  /** Why `transact` found the key taken. */
  transactFound: string;
}

/** The statements on `table` (quoted and qualified). */
export function statements(table: string): Statements {
  return {
    /**
     * Claims keys $1 (text[], each once) for owners $2, leases $3 (ms, as text), data $4 (JSON text
     * or NULL), in one statement. Rows are taken in key order, so two claims of overlapping keys
     * never deadlock. Answers `state` and the record of each key; a key whose row was committed
     * by another session after this statement began may be missing: the caller claims it again.
     */
    claim: `WITH req AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS r(key, owner, lease_ms, data)
), claimed AS (
  INSERT INTO ${table} AS t (key, data, claims, owner, lease_until, first_at, updated_at)
  SELECT r.key, r.data, 1, r.owner, ${leaseFrom('r.lease_ms')}, clock_timestamp(), clock_timestamp()
  FROM req AS r ORDER BY r.key
  ON CONFLICT (key) DO UPDATE SET
    claims = t.claims + 1, owner = excluded.owner, lease_until = excluded.lease_until, updated_at = excluded.updated_at
  WHERE ${FREE_FOR('excluded.owner')}
  RETURNING ${RECORD}
)
SELECT 'claimed' AS state, c.* FROM claimed AS c
UNION ALL
SELECT CASE WHEN t.settled THEN 'settled' ELSE 'busy' END, ${RECORD}
FROM ${table} AS t JOIN req AS r ON r.key = t.key
WHERE r.key NOT IN (SELECT key FROM claimed)`,
    /** Extends owner $2's live lease on $1 to $3 ms from now. */
    renew: `UPDATE ${table} SET lease_until = ${leaseFrom('$3')}, updated_at = clock_timestamp()
WHERE key = $1 AND owner = $2 AND NOT settled AND lease_until > clock_timestamp()`,
    /** Settles $1 with result $3 (JSON text or NULL) while owner $2 holds it, its lease live or not. */
    settle: `UPDATE ${table} SET settled = true, result = $3, owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
WHERE key = $1 AND owner = $2 AND NOT settled`,
    /** Ends owner $2's claim on $1, recording note $3 (JSON text; NULL keeps the last one). */
    release: `UPDATE ${table} SET note = COALESCE($3, note), owner = NULL, lease_until = NULL, updated_at = clock_timestamp()
WHERE key = $1 AND owner = $2 AND NOT settled`,
    /** The records of keys $1 (text[]). */
    read: `SELECT ${RECORD} FROM ${table} AS t WHERE t.key = ANY($1::text[])`,
    /**
     * Settles $1 (data $2, result $3) inside the caller's transaction: inserted when new, taken when
     * free. A duplicate of a key another transaction is inserting waits on the primary key until
     * that one commits (then affects no row) or rolls back (then inserts).
     */
    transact: `INSERT INTO ${table} AS t (key, data, claims, settled, result, first_at, updated_at)
VALUES ($1, $2, 1, true, $3, clock_timestamp(), clock_timestamp())
ON CONFLICT (key) DO UPDATE SET
  claims = t.claims + 1, settled = true, result = excluded.result, owner = NULL, lease_until = NULL, updated_at = excluded.updated_at
WHERE ${FREE_FOR('NULL')}`,
    /** Why `transact` affected no row: settled, or held by a live lease. */
    transactFound: `SELECT t.settled FROM ${table} AS t WHERE t.key = $1`,
  };
}
