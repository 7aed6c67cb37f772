/**
 * `postgresStore`: the SDK's store on the merchant's own Postgres, transactional: a webhook's effect
 * and the record that it ran commit together or not at all.
 *
 * @module
 */
import { PaymentsError } from '../../core/errors.js';
import { isWellFormed } from '../../internal/well-formed.js';
import { StoreTimeoutError, StoreUnavailableError } from '../errors.js';
import { recordFromRow } from '../sql-record.js';
import type { Store, StoreClaim, StoreClaimRequest, StoreJsonObject, StoreRecord, StoreTransactResult } from '../store.js';
import { migrateSchema, type PostgresDatabase, type SqlDriver, type SqlResult, type SqlSession, sqlDriver } from './driver.js';
import { schemaSql, statements } from './statements.js';
import { DEFAULT_TABLE, tableName } from './table-name.js';

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /** The table: a name, or `schema.name` (unquoted names fold to lower case, as in SQL). Default `payments_sdk`. */
  table?: string;
  /** The table's schema, when `table` does not name one. Default `public`. It must exist. */
  schema?: string;
  /**
   * How long one call may take, in ms, connecting included. Default 8000 for `transact` (the service
   * waits 10 s for a webhook's answer) and 2000 for the other calls. Past it the call fails with a
   * `StoreTimeoutError` and its transaction is rolled back. The server is told a bound 2 s longer
   * (`statement_timeout`, `lock_timeout`, `idle_in_transaction_session_timeout`), so the SDK always
   * gives up first, and a process that stops answering never holds locks for long.
   */
  timeoutMs?: number;
}

/** The transaction `onEvent` writes in: your statements commit with the record that the event ran. */
export interface StoreTransaction {
  /** Runs one statement, `$1` placeholders, whatever the driver. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<{ rows: Row[]; rowCount: number }>;
}

/** The Postgres store: a {@link Store} whose `transact` gives `onEvent` the transaction as `{ tx }`. */
export interface PostgresStore extends Store<{ tx: StoreTransaction }, unknown> {
  /** `postgres`. */
  readonly kind: 'postgres';
  /** The table, as the SQL names it: `"schema"."name"`. */
  readonly table: string;
  /** @inheritDoc */
  transact(
    key: string,
    effect: (context: { tx: StoreTransaction }) => unknown,
    options?: { data?: StoreJsonObject; result?: StoreJsonObject },
  ): Promise<StoreTransactResult>;
  /**
   * Creates the table when missing. Safe any number of times, from several processes at once (they
   * take turns on an advisory lock named after the table), and on a live table: it takes no lock
   * that would stall a delivery.
   */
  migrate(): Promise<void>;
  /** The SQL that {@link PostgresStore.migrate} runs, for your own migrations (`npx payments-sdk db schema` prints it). */
  schemaSql(): string;
}

const DEFAULT_TRANSACT_TIMEOUT_MS = 8000;
const DEFAULT_CALL_TIMEOUT_MS = 2000;
const LONGEST_LEASE_MS = 365 * 86_400_000;
/** How many times a claim retries keys whose row another session committed while it ran. */
const CLAIM_ATTEMPTS = 5;
/** Keys per statement of `read`. */
const READ_CHUNK = 5000;

/**
 * A store on your own Postgres, for effects that happen exactly once. `db` is your `pg` Pool or
 * Client, or your postgres.js `sql` (3.4 or later); the SDK imports no driver and never closes it.
 *
 * ```ts
 * import pg from 'pg';
 * import { postgresStore } from 'payments-sdk/stores';
 * import { webhookHandler } from 'payments-sdk/webhooks';
 *
 * const store = postgresStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * await store.migrate();
 * export const POST = webhookHandler({
 *   store,
 *   onEvent: async (event, { tx }) => {
 *     if (event.type === 'payment.succeeded') await tx.query('UPDATE orders SET paid = true WHERE payment_uuid = $1', [event.data.uuid]);
 *   },
 * });
 * ```
 * Prefer a Pool: a single `pg` Client runs the store's calls one after another, and once its
 * connection is lost it stays lost (the calls then fail saying so). The table holds keys, owners,
 * times and the JSON the SDK records: never the API key or the webhook secret.
 */
export function postgresStore(db: PostgresDatabase, options: PostgresStoreOptions = {}): PostgresStore {
  const where = 'postgresStore';
  if (options === null || typeof options !== 'object') throw new PaymentsError(`${where}: options must be an object.`);
  const problems: string[] = [];
  const named = tableName(options.table ?? DEFAULT_TABLE, options.schema);
  if (!named.ok) problems.push(...named.problems);
  if (
    options.timeoutMs !== undefined &&
    (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs < 1 || options.timeoutMs > 60_000)
  ) {
    problems.push('timeoutMs must be an integer number of milliseconds from 1 to 60000');
  }
  if (problems.length > 0 || !named.ok) throw new PaymentsError(`${where}: ${problems.join('; ')}.`);
  const driver = sqlDriver(db, where);
  const table = named.value.sql;
  const schema = schemaSql(table);
  const sql = statements(table);
  const callMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const transactMs = options.timeoutMs ?? DEFAULT_TRANSACT_TIMEOUT_MS;
  const run = runner(driver, callMs, where);

  const claimOnce = async (requests: readonly StoreClaimRequest[]): Promise<Map<string, StoreClaim>> => {
    const { rows } = await run(sql.claim, [
      requests.map((r) => r.key),
      requests.map((r) => r.owner),
      requests.map((r) => String(r.leaseMs)),
      requests.map((r) => (r.data === undefined ? null : JSON.stringify(r.data))),
    ]);
    return new Map(rows.map((row) => [String(row.key), { state: row.state as StoreClaim['state'], record: recordFromRow(row) }]));
  };

  return {
    kind: 'postgres',
    table,
    schemaSql: () => schema,
    migrate: () => guard(where, 'migrate', migrateSchema(driver, table, schema)),

    async claim(requests) {
      if (!Array.isArray(requests)) throw new PaymentsError(`${where}.claim: requests must be an array.`);
      requests.forEach((r, i) => {
        checkKey(r?.key, `${where}.claim: requests[${i}].key`);
        checkKey(r?.owner, `${where}.claim: requests[${i}].owner`);
        checkLease(r?.leaseMs, `${where}.claim: requests[${i}].leaseMs`);
      });
      const answers: StoreClaim[] = new Array(requests.length);
      // A key asked twice is claimed twice, in order: one statement per round of distinct keys.
      for (const round of rounds(requests)) {
        let pending = round;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt === CLAIM_ATTEMPTS) throw new StoreUnavailableError(`${where}.claim: the keys kept changing under the claim.`);
          const found = await claimOnce(pending.map((i) => requests[i] as StoreClaimRequest));
          pending = pending.filter((i) => {
            const answer = found.get((requests[i] as StoreClaimRequest).key);
            if (answer) answers[i] = answer;
            return answer === undefined;
          });
        }
      }
      return answers;
    },

    async renew(key, owner, leaseMs) {
      checkKey(key, `${where}.renew: key`);
      checkKey(owner, `${where}.renew: owner`);
      checkLease(leaseMs, `${where}.renew: leaseMs`);
      return (await run(sql.renew, [key, owner, String(leaseMs)])).rowCount === 1;
    },

    async settle(key, owner, result) {
      checkKey(key, `${where}.settle: key`);
      checkKey(owner, `${where}.settle: owner`);
      return (await run(sql.settle, [key, owner, jsonOrNull(result)])).rowCount === 1;
    },

    async release(key, owner, note) {
      checkKey(key, `${where}.release: key`);
      checkKey(owner, `${where}.release: owner`);
      return (await run(sql.release, [key, owner, jsonOrNull(note)])).rowCount === 1;
    },

    async read(keys) {
      if (!Array.isArray(keys)) throw new PaymentsError(`${where}.read: keys must be an array.`);
      keys.forEach((key, i) => {
        checkKey(key, `${where}.read: keys[${i}]`);
      });
      const found = new Map<string, StoreRecord>();
      for (let at = 0; at < keys.length; at += READ_CHUNK) {
        const { rows } = await run(sql.read, [keys.slice(at, at + READ_CHUNK)]);
        for (const row of rows) found.set(String(row.key), recordFromRow(row));
      }
      return keys.map((key) => found.get(key));
    },

    async transact(key, effect, transactOptions = {}) {
      checkKey(key, `${where}.transact: key`);
      if (typeof effect !== 'function') throw new PaymentsError(`${where}.transact: effect must be a function.`);
      let effectError: { error: unknown } | undefined;
      try {
        return await driver.transaction(transactMs, async (session): Promise<StoreTransactResult> => {
          const taken = await session.query(sql.transact, [key, jsonOrNull(transactOptions?.data), jsonOrNull(transactOptions?.result)]);
          if (taken.rowCount === 0) {
            const { rows } = await session.query(sql.transactFound, [key]);
            return { state: rows[0]?.settled === true ? 'settled' : 'busy' };
          }
          try {
            await effect({ tx: transactionOf(session) });
          } catch (error) {
            effectError = { error };
            throw error;
          }
          return { state: 'done' };
        });
      } catch (error) {
        if (effectError && error === effectError.error) throw error;
        throw storeFailure(where, 'transact', error);
      }
    },
  };
}

/** One statement in its own bounded transaction. Failures name the store, never the parameters. */
function runner(driver: SqlDriver, timeoutMs: number, where: string) {
  return (text: string, params: unknown[]): Promise<SqlResult> =>
    guard(
      where,
      'call',
      driver.transaction(timeoutMs, (session) => session.query(text, params)),
    );
}

async function guard<T>(where: string, what: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw storeFailure(where, what, error);
  }
}

/** A failure of the database as the store's callers see it: a timeout, or the database unavailable. */
function storeFailure(where: string, what: string, error: unknown): PaymentsError {
  if (error instanceof StoreTimeoutError || error instanceof StoreUnavailableError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`${where}: the database failed during ${what}: ${reason}`, { cause: error });
}

/** The transaction as `onEvent` sees it: statements only (BEGIN and COMMIT stay the store's). */
function transactionOf(session: SqlSession): StoreTransaction {
  return {
    query: <Row>(text: string, params?: readonly unknown[]) => session.query(text, params) as Promise<{ rows: Row[]; rowCount: number }>,
  };
}

/** Positions of `requests` in rounds where each key appears once, in order. */
function rounds(requests: readonly StoreClaimRequest[]): number[][] {
  const seen = new Map<string, number>();
  const out: number[][] = [];
  requests.forEach((r, i) => {
    const round = seen.get(r.key) ?? 0;
    seen.set(r.key, round + 1);
    const positions = out[round] ?? [];
    positions.push(i);
    out[round] = positions;
  });
  return out;
}

/** Keys and owners are text: Postgres refuses `\u0000`, and would replace a lone surrogate (two keys would become one). */
function checkKey(value: unknown, what: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\u0000') || !isWellFormed(value)) {
    throw new PaymentsError(`${what} must be a non-empty string without \\u0000 or lone surrogates (make keys with storeKey()).`);
  }
}

function checkLease(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > LONGEST_LEASE_MS) {
    throw new PaymentsError(`${what} must be a number of milliseconds above 0 and at most a year.`);
  }
}

function jsonOrNull(value: StoreJsonObject | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
