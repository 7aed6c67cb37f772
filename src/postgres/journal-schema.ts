/**
 * The bulk payout journal's table: its name, its SQL, and the statements the journal runs on it.
 * Kept apart from the journal itself so that `payments-sdk db schema` prints the same SQL that
 * `migrate()` runs.
 *
 * A claim is one statement, the way Postgres work queues claim jobs: the row is inserted when new
 * (`INSERT … ON CONFLICT DO NOTHING`), or locked with `FOR UPDATE SKIP LOCKED` (a row another
 * claim is changing at that moment is skipped, and answered busy, never waited for), then judged
 * and taken in the same statement. Leases are kept on the database's clock, so the clocks of the
 * workers' machines never decide who holds a row.
 *
 * @module
 */

/** The journal table when none is named. */
export const DEFAULT_JOURNAL_TABLE = 'payments_bulk_journal';

/** The SQL names of the journal's table. */
export interface JournalNames {
  /** The table, quoted (and schema-qualified when given so). */
  table: string;
}

/** The quoted names for a table name already checked with `checkTableName`. */
export function journalNames(parts: readonly string[]): JournalNames {
  return { table: parts.map((name) => `"${name}"`).join('.') };
}

/** The journal table's SQL: idempotent (`IF NOT EXISTS`), so it may run any number of times. */
export function journalSchemaSql(names: JournalNames): string {
  return `-- payments-sdk bulk payout journal: one row per payout row of a batch, claimed before each send.
CREATE TABLE IF NOT EXISTS ${names.table} (
  batch_id        text NOT NULL,                   -- the batchId given to createMany
  row_key         text NOT NULL,                   -- the row's key within the batch
  idempotency_key text NOT NULL,                   -- the key the row is sent with (derived, never the API key)
  row_index       bigint NOT NULL,                 -- the row's position when first claimed
  row_hash        text,                            -- SHA-256 of the row's content when first claimed
  generation      integer NOT NULL DEFAULT 0,      -- sends again after a refusal (retryFailed), each with its own key
  sent_at         bigint,                          -- first send under this key, ms since the epoch
  attempts        integer NOT NULL DEFAULT 0,      -- claims under this key, over every run
  outcome         jsonb,                           -- the final outcome: status, payout id and status, or error summary
  last_error      jsonb,                           -- the last failure without a known outcome
  owner           text,                            -- the run holding the row, while its lease lasts
  lease_until     timestamptz,                     -- on the database's clock
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (batch_id, row_key)
);
`;
}

/** The columns every statement answers, as text where a driver might read them otherwise. */
function recordColumns(alias: string): string {
  return [
    `${alias}.idempotency_key`,
    `${alias}.row_index::text AS row_index`,
    `${alias}.row_hash`,
    `${alias}.generation`,
    `${alias}.sent_at::text AS sent_at`,
    `${alias}.attempts`,
    `${alias}.outcome::text AS outcome`,
    `${alias}.last_error::text AS last_error`,
  ].join(', ');
}

const LEASE = `clock_timestamp() + $8::int * interval '1 millisecond'`;

/**
 * Whether claim $10 (a retry generation) restarts the row `j`: only a refusal marked retryable, of
 * the generation before. A missing field reads as NULL, never as true.
 */
const RESTART = `COALESCE($10::int IS NOT NULL AND j.outcome->>'status' = 'failed' AND j.outcome->'retryable' = 'true'::jsonb
    AND j.generation + 1 = $10::int, false)`;

/**
 * Claims a row. Parameters: $1 batch, $2 row key, $3 Idempotency-Key, $4 index, $5 row hash, $6 the
 * runner's now, $7 owner, $8 lease (ms), $9 sentBefore, $10 retry generation, $11 retry key (both
 * null without a retry). Answers one row (`state` and the record), or none when another claim is
 * changing the row at that very moment (busy).
 */
export function claimSql(names: JournalNames): string {
  const t = names.table;
  return `WITH fresh AS (
  INSERT INTO ${t} AS j (batch_id, row_key, idempotency_key, row_index, row_hash, sent_at, attempts, owner, lease_until)
  VALUES ($1, $2, $3, $4::bigint, $5::text, $6::bigint, 1, $7, ${LEASE})
  ON CONFLICT (batch_id, row_key) DO NOTHING
  RETURNING 'claimed'::text AS state, ${recordColumns('j')}
), found AS (
  SELECT j.*, ${RESTART} AS restart FROM ${t} AS j
  WHERE j.batch_id = $1 AND j.row_key = $2 AND (j.outcome IS NULL OR ${RESTART})
  FOR UPDATE SKIP LOCKED
), settled AS (
  -- An outcome stays, short of a restart: a row done is read without a lock (no write, no WAL).
  SELECT j.*, false AS restart FROM ${t} AS j
  WHERE j.batch_id = $1 AND j.row_key = $2 AND j.outcome IS NOT NULL AND NOT ${RESTART}
), judged AS (
  SELECT f.*, CASE
    WHEN f.outcome IS NOT NULL AND NOT f.restart THEN 'done'
    WHEN f.owner IS NOT NULL AND f.owner <> $7 AND f.lease_until > clock_timestamp() THEN 'busy'
    WHEN NOT f.restart AND f.sent_at IS NOT NULL AND f.sent_at < $9::bigint THEN 'expired'
    ELSE 'claimed' END AS state
  FROM (SELECT * FROM found UNION ALL SELECT * FROM settled) AS f
), taken AS (
  UPDATE ${t} AS j SET
    idempotency_key = CASE WHEN v.restart THEN $11::text ELSE j.idempotency_key END,
    row_index = CASE WHEN v.restart THEN $4::bigint ELSE j.row_index END,
    row_hash = CASE WHEN v.restart THEN $5::text ELSE j.row_hash END,
    generation = CASE WHEN v.restart THEN $10::int ELSE j.generation END,
    sent_at = CASE WHEN v.restart THEN $6::bigint ELSE COALESCE(j.sent_at, $6::bigint) END,
    attempts = CASE WHEN v.restart THEN 1 ELSE j.attempts + 1 END,
    outcome = CASE WHEN v.restart THEN NULL ELSE j.outcome END,
    last_error = CASE WHEN v.restart THEN NULL ELSE j.last_error END,
    owner = $7,
    lease_until = ${LEASE},
    updated_at = now()
  FROM judged AS v
  WHERE v.state = 'claimed' AND j.batch_id = v.batch_id AND j.row_key = v.row_key
  RETURNING 'claimed'::text AS state, ${recordColumns('j')}
)
SELECT * FROM fresh
UNION ALL SELECT * FROM taken
UNION ALL SELECT v.state, ${recordColumns('v')} FROM judged AS v WHERE v.state <> 'claimed'`;
}

/** The records of many rows: $1 batch, $2 a JSON array of row keys. */
export function readSql(names: JournalNames): string {
  return `SELECT j.row_key, ${recordColumns('j')} FROM ${names.table} AS j
WHERE j.batch_id = $1 AND j.row_key IN (SELECT jsonb_array_elements_text($2::text::jsonb))`;
}

/**
 * Records an outcome ($3, JSON) and drops the claim, only while owner $4 holds the row: a worker whose
 * row another took over (after its lease ended) may be answering for an older generation's key, and
 * its outcome must not overwrite the newer one (a stale retryable refusal would reopen a paid row).
 * The worker now holding the row records its own outcome.
 */
export function settleSql(names: JournalNames): string {
  return `UPDATE ${names.table} SET outcome = $3::text::jsonb, last_error = NULL, owner = NULL, lease_until = NULL, updated_at = now()
WHERE batch_id = $1 AND row_key = $2 AND owner = $4`;
}

/** Keeps the last error ($3, JSON, or null to keep the one recorded) and drops the claim of owner $4. */
export function releaseSql(names: JournalNames): string {
  return `UPDATE ${names.table} SET last_error = COALESCE($3::text::jsonb, last_error),
  owner = CASE WHEN owner = $4 THEN NULL ELSE owner END,
  lease_until = CASE WHEN owner = $4 THEN NULL ELSE lease_until END,
  updated_at = now()
WHERE batch_id = $1 AND row_key = $2`;
}

/** Extends the lease of owner $3 by $4 ms, only while it still holds it. */
export function renewSql(names: JournalNames): string {
  return `UPDATE ${names.table} SET lease_until = clock_timestamp() + $4::int * interval '1 millisecond'
WHERE batch_id = $1 AND row_key = $2 AND owner = $3 AND outcome IS NULL AND lease_until > clock_timestamp()`;
}
