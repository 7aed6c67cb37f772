/**
 * The SQL of the D1 store, for one table. Every time it compares (lease expiry, a record's age, the
 * deadline of a call) is read inside the statement from SQLite's own clock, `NOW` below: the same
 * value for every use within one statement.
 *
 * A row is one key: its `data` (JSON text of the first claim), `claims` granted so far, `created_ms`
 * (D1's clock at the first claim), `settled` (0 or 1), `result` and `note` (JSON text), `owner` (the
 * owner of the last claim, kept until a release; for a settled key, who settled it) and `lease_ms`
 * (when that owner's lease ends; null once released or settled).
 *
 * Every write holds `NOW <= deadline`: the D1 time after which the caller has given up on the call
 * (see d1-clock.ts), so a statement that reaches D1 late changes nothing.
 *
 * @module
 */

/** D1's (SQLite's) clock in whole ms since the epoch. */
const NOW = "CAST(ROUND(unixepoch('subsec') * 1000) AS INTEGER)";

/** How many keys one read binds at most: D1 takes at most 100 parameters per statement. */
export const MAX_READ_KEYS = 100;

/** A table name that needs no escaping inside double quotes, and names no table of SQLite's own. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** `true` for a table name {@link d1Sql} accepts: letters, digits and `_`, 64 at most, no leading digit, not `sqlite_…`. */
export function isTableName(name: unknown): name is string {
  return typeof name === 'string' && TABLE_NAME.test(name) && !/^sqlite_/i.test(name);
}

/** The statements of a store on table `table` (checked by {@link isTableName}), every identifier quoted. */
export function d1Sql(table: string) {
  const t = `"${table}"`;
  /** The columns of a record as the store answers it. */
  const record =
    `"key", "data", "claims", ${NOW} - "created_ms" AS "age", "settled", "result", "note", ` +
    `CASE WHEN "settled" = 0 AND "lease_ms" > ${NOW} THEN "owner" END AS "owner"`;
  return {
    /** Creates the table. */
    schema: `CREATE TABLE IF NOT EXISTS ${t} ("key" TEXT NOT NULL PRIMARY KEY, "data" TEXT, "claims" INTEGER NOT NULL, "created_ms" INTEGER NOT NULL, "settled" INTEGER NOT NULL DEFAULT 0, "result" TEXT, "note" TEXT, "owner" TEXT, "lease_ms" INTEGER)`,
    /** D1's time: the last statement of every batch, for the deadlines of later calls. */
    now: `SELECT ${NOW} AS "now"`,
    /**
     * Claims ?1 for owner ?3 with a lease of ?4 ms (`data` ?2 on a new key) before deadline ?5: a new
     * key, or a key not settled whose owner is ?3, released, or out of lease. Its record when granted.
     */
    claim:
      `INSERT INTO ${t} ("key", "data", "claims", "created_ms", "owner", "lease_ms") SELECT ?1, ?2, 1, ${NOW}, ?3, ${NOW} + ?4 WHERE ${NOW} <= ?5 ` +
      `ON CONFLICT ("key") DO UPDATE SET "claims" = ${t}."claims" + 1, "owner" = excluded."owner", "lease_ms" = excluded."lease_ms" ` +
      `WHERE ${t}."settled" = 0 AND (${t}."owner" IS NULL OR ${t}."owner" = excluded."owner" OR ${t}."lease_ms" <= ${NOW}) RETURNING ${record}`,
    /** The records of `count` keys, bound in order (at most {@link MAX_READ_KEYS}). */
    read: (count: number) => `SELECT ${record} FROM ${t} WHERE "key" IN (${Array.from({ length: count }, () => '?').join(', ')})`,
    /**
     * Extends owner ?2's live lease on ?1 to ?3 ms from now, before deadline ?4 (a lease that ended is
     * not renewed: another owner may hold the key by then). One row when done.
     */
    renew:
      `UPDATE ${t} SET "lease_ms" = ${NOW} + ?3 WHERE "key" = ?1 AND "owner" = ?2 AND "settled" = 0 AND "lease_ms" > ${NOW} ` +
      `AND ${NOW} <= ?4 RETURNING 1 AS "done"`,
    /**
     * Settles ?1 for owner ?2, its last claimant (its lease may have ended), with result ?3 when given,
     * before deadline ?4. One row when done.
     */
    settle:
      `UPDATE ${t} SET "settled" = 1, "result" = COALESCE(?3, "result"), "lease_ms" = NULL ` +
      `WHERE "key" = ?1 AND "owner" = ?2 AND "settled" = 0 AND ${NOW} <= ?4 RETURNING 1 AS "done"`,
    /** Ends the claim of owner ?2, the last claimant of ?1, keeping note ?3 when given, before deadline ?4. One row when done. */
    release:
      `UPDATE ${t} SET "owner" = NULL, "lease_ms" = NULL, "note" = COALESCE(?3, "note") ` +
      `WHERE "key" = ?1 AND "owner" = ?2 AND "settled" = 0 AND ${NOW} <= ?4 RETURNING 1 AS "done"`,
    /**
     * Settles ?1 for the transaction ?4 with `data` ?2 (on a new key) and result ?3, before deadline
     * ?5: a new key, or a key not settled that no owner holds under a live lease.
     */
    transactSettle:
      `INSERT INTO ${t} ("key", "data", "claims", "created_ms", "settled", "result", "owner") SELECT ?1, ?2, 1, ${NOW}, 1, ?3, ?4 WHERE ${NOW} <= ?5 ` +
      `ON CONFLICT ("key") DO UPDATE SET "claims" = ${t}."claims" + 1, "settled" = 1, "result" = excluded."result", "owner" = excluded."owner", "lease_ms" = NULL ` +
      `WHERE ${t}."settled" = 0 AND (${t}."owner" IS NULL OR ${t}."lease_ms" IS NULL OR ${t}."lease_ms" <= ${NOW})`,
    /**
     * Fails, and with it the whole batch, unless ?1 is now settled by the transaction ?2: a key a
     * duplicate settled first, one held by another owner, or a deadline passed. It inserts a null
     * key, which the NOT NULL of `key` refuses with the message that {@link D1Sql.duplicate} matches.
     */
    transactGuard: `INSERT INTO ${t} ("key") SELECT NULL WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE "key" = ?1 AND "settled" = 1 AND "owner" = ?2)`,
    /** D1's error message when {@link transactGuard} refused the batch (not a `key` column of another table). */
    duplicate: new RegExp(`NOT NULL constraint failed: ${table}\\.key(?![A-Za-z0-9_])`),
  };
}

/** The statements of one table. */
export type D1Sql = ReturnType<typeof d1Sql>;
