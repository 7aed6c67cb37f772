/**
 * The bulk payout journal on the merchant's Postgres: one table row per payout row of a batch, so
 * that any number of workers, on any number of machines, run one batch together. Each row is
 * claimed with a lease before it is sent (one statement: see journal-schema.ts), the lease renewed
 * while the row is held, the outcome recorded after the answer. A worker that dies stops renewing,
 * and another takes its rows over once their leases end, with the same Idempotency-Key: a row it had
 * sent is replayed by the service, never paid twice.
 *
 * @module
 */
import type { BulkClaim, BulkErrorInfo, BulkJournal, BulkJournalRecord, BulkOutcome } from '../bulk/journal.js';
import { PaymentsError } from '../core/errors.js';
import { migrateSchema, type PostgresDatabase, type SqlDriver, sqlDriver } from '../stores/postgres/driver.js';
import { checkTableName } from './inbox-schema.js';
import {
  claimSql,
  DEFAULT_JOURNAL_TABLE,
  journalNames,
  journalSchemaSql,
  readSql,
  releaseSql,
  renewSql,
  settleSql,
} from './journal-schema.js';

/** Options of {@link postgresJournal}. */
export interface PostgresJournalOptions {
  /** The table, or `schema.table`. Default `payments_bulk_journal`. */
  table?: string;
  /**
   * How long a claim holds a row against other workers unless renewed, in ms, on the database's
   * clock. Default: the `leaseMs` of `createMany` (30 000). The longer of the two is used, as a run
   * renews its leases every third of its own `leaseMs`. A worker that dies leaves its rows to the
   * others once this has passed.
   */
  leaseMs?: number;
}

/**
 * The journal: give it to `payouts.createMany(rows, { batchId, journal })` in every worker. Its table
 * is created by {@link PostgresJournal.migrate}, or by your own migrations from
 * {@link PostgresJournal.schemaSql} (or `npx payments-sdk db schema`).
 */
export interface PostgresJournal extends BulkJournal {
  /** The table, as the SQL names it (quoted). */
  readonly table: string;
  /**
   * Creates the table when missing (`CREATE … IF NOT EXISTS`). Safe to run any number of times,
   * from several workers at once (they take turns on an advisory lock).
   */
  migrate(): Promise<void>;
  /** The SQL that {@link PostgresJournal.migrate} runs, for your own migration tool. */
  schemaSql(): string;
  /** Renews the lease of a row held by `owner`; `false` once it ended or passed to another worker. */
  renew(batchId: string, rowKey: string, owner: string, leaseMs: number, now: number): Promise<boolean>;
}

/** How long one journal statement may take, connecting included. */
const STATEMENT_TIMEOUT_MS = 10_000;
/** Rows read per statement. */
const READ_CHUNK = 1000;

/**
 * A bulk payout journal on your own Postgres, for workers on several machines running one batch.
 * `db` is your `pg` Pool or Client, or your postgres.js `sql` (3.4 or later); the SDK imports no
 * driver, and never closes it.
 *
 * ```ts
 * import pg from 'pg';
 * import { PaymentsClient } from 'payments-sdk';
 * import { postgresJournal } from 'payments-sdk/postgres';
 *
 * const client = new PaymentsClient({ apiKey: process.env.PAYMENTS_API_KEY ?? '' });
 * const journal = postgresJournal(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await journal.migrate();
 * const rows = [{ amount: 5000, currency: 'XOF', destination: { type: 'mobile_money', country: 'SEN', provider: 'orange', phone: '221771234567' }, reference: 'emp-1' }];
 * // The same call in every worker: each row is sent by one of them, once.
 * const summary = await client.payouts.createMany(rows, { batchId: 'payroll-2026-11', key: (row) => row.reference, journal }).summary();
 * ```
 * Each row is claimed with a lease (`FOR UPDATE SKIP LOCKED`, the way Postgres work queues claim
 * jobs), renewed while the row is held; a worker that dies leaves its rows to the others once their
 * leases end, with the same Idempotency-Key. A row is never sent by two live workers at once, nor
 * again after its answer. The table holds row keys, Idempotency-Keys, row hashes, times, payout ids
 * and error summaries: never the API key, never the request.
 */
export function postgresJournal(db: PostgresDatabase, options: PostgresJournalOptions = {}): PostgresJournal {
  const where = 'postgresJournal';
  if (options === null || typeof options !== 'object') throw new PaymentsError(`${where}: options must be an object.`);
  const problems: string[] = [];
  const table = checkTableName(options.table ?? DEFAULT_JOURNAL_TABLE);
  if (!table.ok) problems.push(table.problem);
  const floorMs = options.leaseMs ?? 0;
  if (options.leaseMs !== undefined && (!Number.isSafeInteger(floorMs) || floorMs < 10 || floorMs > 86_400_000)) {
    problems.push('leaseMs must be an integer number of milliseconds from 10 to 86400000');
  }
  if (problems.length > 0 || !table.ok) throw new PaymentsError(`${where}: ${problems.join('; ')}.`);
  const driver = sqlDriver(db, where);
  const names = journalNames(table.parts);
  const schema = journalSchemaSql(names);
  const sql = {
    claim: claimSql(names),
    read: readSql(names),
    settle: settleSql(names),
    release: releaseSql(names),
    renew: renewSql(names),
  };
  const lease = (ms: number) => String(Math.max(floorMs, Math.ceil(ms), 1));
  const run = statementRunner(driver);

  return {
    table: names.table,
    schemaSql: () => schema,
    migrate: () => migrateSchema(driver, names.table, schema),
    async claim(r) {
      const { rows } = await run(sql.claim, [
        r.batchId,
        r.rowKey,
        r.idempotencyKey,
        String(r.index),
        r.rowHash ?? null,
        String(r.now),
        r.owner,
        lease(r.leaseMs),
        String(r.sentBefore),
        r.retry ? String(r.retry.generation) : null,
        r.retry?.idempotencyKey ?? null,
      ]);
      return toClaim(rows[0]);
    },
    async read(batchId, rowKeys) {
      const found = new Map<string, BulkJournalRecord>();
      for (let at = 0; at < rowKeys.length; at += READ_CHUNK) {
        const chunk = rowKeys.slice(at, at + READ_CHUNK);
        const { rows } = await run(sql.read, [batchId, JSON.stringify(chunk)]);
        for (const row of rows) found.set(String(row.row_key), toRecord(row));
      }
      return rowKeys.map((key) => found.get(key));
    },
    async settle(batchId, rowKey, owner, outcome) {
      await run(sql.settle, [batchId, rowKey, JSON.stringify(outcome), owner]);
    },
    async release(batchId, rowKey, owner, error) {
      await run(sql.release, [batchId, rowKey, error ? JSON.stringify(error) : null, owner]);
    },
    async renew(batchId, rowKey, owner, leaseMs) {
      return (await run(sql.renew, [batchId, rowKey, owner, lease(leaseMs)])).rowCount === 1;
    },
  };
}

/**
 * One statement in its own bounded transaction: the server is told the bound too, so a statement
 * that waits (on a lock, on a frozen disk) ends on the server when the caller gives up on it.
 * Failures name the journal, never the parameters.
 */
function statementRunner(driver: SqlDriver) {
  return async (text: string, params: unknown[]) => {
    try {
      return await driver.transaction(STATEMENT_TIMEOUT_MS, (session) => session.query(text, params));
    } catch (error) {
      throw new PaymentsError('postgresJournal: the database failed.', { cause: error });
    }
  };
}

const STATES = new Set(['claimed', 'done', 'busy', 'expired']);

function toClaim(row: Record<string, unknown> | undefined): BulkClaim {
  // No row: another claim was changing this one at that moment (its lock was skipped).
  if (row === undefined) return { state: 'busy' };
  const state = String(row.state);
  if (!STATES.has(state)) throw new PaymentsError('postgresJournal: unexpected answer from the database.');
  return { state: state as BulkClaim['state'], record: toRecord(row) };
}

function toRecord(row: Record<string, unknown>): BulkJournalRecord {
  const record: BulkJournalRecord = {
    idempotencyKey: String(row.idempotency_key),
    index: Number(row.row_index),
    attempts: Number(row.attempts),
  };
  if (row.row_hash !== null && row.row_hash !== undefined) record.rowHash = String(row.row_hash);
  if (Number(row.generation) > 0) record.generation = Number(row.generation);
  if (row.sent_at !== null && row.sent_at !== undefined) record.sentAt = Number(row.sent_at);
  if (row.outcome !== null && row.outcome !== undefined) record.outcome = JSON.parse(String(row.outcome)) as BulkOutcome;
  if (row.last_error !== null && row.last_error !== undefined) record.lastError = JSON.parse(String(row.last_error)) as BulkErrorInfo;
  return record;
}
