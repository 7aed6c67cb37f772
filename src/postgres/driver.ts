/**
 * The merchant's Postgres, whichever driver it comes through: a `pg` Pool, a `pg` Client (or a
 * client checked out of a pool), or a postgres.js `sql`. Each is recognised by its shape; the SDK
 * imports no driver. Everything here is bounded in time: a transaction that does not finish within
 * its `timeoutMs` is abandoned (its connection dropped, or rolled back ahead of anything else on
 * it), so it never commits after its caller was told it failed, short of a COMMIT already sent.
 *
 * Shared by every Postgres-backed part of the SDK (the webhook inbox, and the bulk payout journal).
 *
 * @module
 */
import { PaymentsError, setName } from '../core/errors.js';
import { withinTime } from '../internal/within-time.js';

/** The answer of a `pg` query, as far as the SDK reads it. */
export interface PgQueryResultLike {
  rows: unknown[];
  rowCount: number | null;
}

/** A `pg` Client (`new pg.Client()`, connected), or a client checked out of a pool (`await pool.connect()`). */
export interface PgClientLike {
  /** `client.query(text, values)`. */
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
}

/** A client lent by a `pg` Pool: given back with `release()`, or dropped with `release(error)`. */
export interface PgPoolClientLike extends PgClientLike {
  /** Gives the client back to its pool; with an error (or `true`), closes it instead. */
  release(destroy?: boolean | Error): void;
}

/** A `pg` Pool (`new pg.Pool()`). */
export interface PgPoolLike extends PgClientLike {
  /** Borrows a client, given back with `release()`. */
  connect(): Promise<PgPoolClientLike>;
  /** How many clients the pool holds (tells a Pool from a Client). */
  readonly totalCount: number;
}

/** The result of a postgres.js query: an array of rows with the affected-row `count`. */
export interface PostgresJsResultLike extends ReadonlyArray<unknown> {
  readonly count: number;
}

/** A postgres.js connection reserved with `sql.reserve()`. */
export interface PostgresJsReservedLike {
  /** `sql.unsafe(text, params)`: a query with `$1` placeholders. */
  unsafe(text: string, params?: unknown[]): PromiseLike<PostgresJsResultLike>;
  /** Gives the connection back to the pool. */
  release(): void;
}

/** A postgres.js `sql` (`postgres(url)`), version 3.4 or later. */
export interface PostgresJsLike {
  /** `sql.unsafe(text, params)`: a query with `$1` placeholders. */
  unsafe(text: string, params?: unknown[]): PromiseLike<PostgresJsResultLike>;
  /** Reserves one connection of the pool. */
  reserve(): Promise<PostgresJsReservedLike>;
}

/** What the SDK's Postgres features take: a `pg` Pool or Client, or a postgres.js `sql`. */
export type PostgresDatabase = PgPoolLike | PgClientLike | PostgresJsLike;

/** Rows and the number of rows a statement affected. */
export interface SqlResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

/** One connection inside a transaction. */
export interface SqlSession {
  /** Runs one statement with `$1` placeholders. */
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
}

/** The merchant's database seen the same way whatever the driver. */
export interface SqlDriver {
  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws.
   * Rejects with {@link DatabaseTimeoutError} when the whole (connecting included) takes over
   * `timeoutMs`; the transaction is then abandoned and never commits, short of a COMMIT already sent.
   * The server also ends it on its own after `timeoutMs` (`statement_timeout`,
   * `idle_in_transaction_session_timeout`), should this process stop answering.
   */
  transaction<T>(timeoutMs: number, work: (session: SqlSession) => Promise<T>): Promise<T>;
}

/** Creating a table may wait for other sessions' locks: more time than a statement of a feature gets. */
const MIGRATE_TIMEOUT_MS = 30_000;

/**
 * Runs `schema` (idempotent `CREATE … IF NOT EXISTS` statements) in one transaction. Two
 * `CREATE TABLE IF NOT EXISTS` at the same moment can both try to create the table, so callers
 * migrating the same `table` take turns on an advisory lock named after it.
 */
export async function migrateSchema(driver: SqlDriver, table: string, schema: string): Promise<void> {
  await driver.transaction(MIGRATE_TIMEOUT_MS, async (session) => {
    await session.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`payments-sdk:migrate:${table}`]);
    await session.query(schema);
  });
}

/**
 * The database did not finish in time: the transaction was abandoned and rolled back, unless its
 * COMMIT had already been sent (the message then says so).
 */
export class DatabaseTimeoutError extends PaymentsError {}
setName(DatabaseTimeoutError, 'DatabaseTimeoutError');

/** A connection taken for one transaction. */
interface Connection extends SqlSession {
  /** Gives it back, healthy. */
  done(): void;
  /** Ends whatever is left of the transaction on it without waiting for the server, and gives it up. */
  abandon(): void;
}

type Opener = () => Promise<Connection>;

/** Recognises `db` by its shape. Throws, naming what is accepted, for anything else. */
export function sqlDriver(db: PostgresDatabase, where: string): SqlDriver {
  const open = openerOf(db, where);
  return { transaction: (timeoutMs, work) => transaction(open, timeoutMs, work) };
}

function openerOf(db: unknown, where: string): Opener {
  const candidate = db as { unsafe?: unknown; reserve?: unknown; query?: unknown; connect?: unknown; totalCount?: unknown } | null;
  if (typeof db === 'function' && typeof candidate?.unsafe === 'function' && typeof candidate.reserve === 'function') {
    return postgresJsOpener(candidate as PostgresJsLike);
  }
  if (candidate !== null && typeof candidate === 'object' && typeof candidate.query === 'function') {
    if (typeof candidate.connect === 'function' && typeof candidate.totalCount === 'number') return pgPoolOpener(db as PgPoolLike);
    return pgClientOpener(db as PgClientLike);
  }
  throw new PaymentsError(
    `${where}: pass a pg Pool or Client (connected), or a postgres.js sql (version 3.4 or later, which has sql.reserve()).`,
  );
}

const ignore = () => {};

function fromPg(result: PgQueryResultLike): SqlResult {
  return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 };
}

function pgPoolOpener(pool: PgPoolLike): Opener {
  return async () => {
    const client = await pool.connect();
    return {
      query: async (text, params) => fromPg(await client.query(text, params as unknown[] | undefined)),
      done: () => client.release(),
      // Closing the connection makes the server roll back whatever it had not committed, even
      // a server that was frozen and reads the close only once it answers again.
      abandon: () => client.release(new DatabaseTimeoutError('Connection dropped: its transaction was abandoned.')),
    };
  };
}

/**
 * The turn of each pg Client: a Client is one connection, so two transactions on it would mix
 * their statements. One chain per client object, shared by everything of the SDK that uses it.
 */
const clientTurns = new WeakMap<object, Promise<void>>();

function pgClientOpener(client: PgClientLike): Opener {
  return async () => {
    const previous = clientTurns.get(client) ?? Promise.resolve();
    let endTurn = ignore;
    const turn = new Promise<void>((resolve) => {
      endTurn = resolve;
    });
    clientTurns.set(
      client,
      previous.then(() => turn),
    );
    await previous;
    return {
      query: async (text, params) => fromPg(await client.query(text, params as unknown[] | undefined)),
      done: endTurn,
      // The Client stays the merchant's: a ROLLBACK is queued behind the statements already sent,
      // so the next transaction on it starts after it, whenever the server answers.
      abandon: () => {
        client.query('ROLLBACK').catch(ignore);
        endTurn();
      },
    };
  };
}

function postgresJsOpener(sql: PostgresJsLike): Opener {
  return async () => {
    const reserved = await sql.reserve();
    return {
      query: async (text, params) => {
        const result = await reserved.unsafe(text, params as unknown[] | undefined);
        return { rows: result as unknown as Record<string, unknown>[], rowCount: result.count ?? 0 };
      },
      done: () => reserved.release(),
      // postgres.js cannot close one connection of its pool: a ROLLBACK is queued behind the
      // statements already sent, and the connection goes back to the pool only once the server has
      // answered it (a connection given back with a statement still unanswered stops answering).
      abandon: () => {
        Promise.resolve(reserved.unsafe('ROLLBACK'))
          .then(ignore, ignore)
          .finally(() => reserved.release());
      },
    };
  };
}

/** BEGIN, with the server's own bounds for this transaction, in one round trip (no parameters). */
function beginSql(timeoutMs: number): string {
  const ms = Math.ceil(timeoutMs);
  return `BEGIN; SET LOCAL statement_timeout = ${ms}; SET LOCAL idle_in_transaction_session_timeout = ${ms}`;
}

async function transaction<T>(open: Opener, timeoutMs: number, work: (session: SqlSession) => Promise<T>): Promise<T> {
  /** Set once COMMIT is sent: from then on, whether the transaction committed is the server's to say. */
  let committing = false;
  const timedOut = () =>
    new DatabaseTimeoutError(
      committing
        ? `The database did not confirm the COMMIT within ${timeoutMs} ms: the transaction committed if the server received it, and was rolled back otherwise.`
        : `The database did not finish the transaction within ${timeoutMs} ms; it was rolled back.`,
    );
  let state: 'opening' | 'open' | 'over' = 'opening';
  let connection: Connection | undefined;
  let given = false;
  /** Gives the connection back (healthy) or up (its state unknown), once. */
  const finish = (healthy: boolean) => {
    if (given || !connection) return;
    given = true;
    if (healthy) connection.done();
    else connection.abandon();
  };
  const session: SqlSession = {
    query(text, params) {
      // Past the deadline nothing more reaches the connection: it may already serve someone else.
      if (state !== 'open' || !connection) return Promise.reject(timedOut());
      return connection.query(text, params);
    },
  };
  const run = async () => {
    const opened = await open();
    if (state === 'over') {
      // Connected only after the deadline: never used, given back as it is.
      opened.done();
      throw timedOut();
    }
    connection = opened;
    state = 'open';
    await opened.query(beginSql(timeoutMs));
    let result: T;
    try {
      result = await work(session);
    } catch (error) {
      if (state === 'open') {
        try {
          await opened.query('ROLLBACK');
          finish(true);
        } catch {
          finish(false);
        }
      }
      throw error;
    }
    if (state !== 'open') throw timedOut();
    committing = true;
    await opened.query('COMMIT');
    finish(true);
    return result;
  };
  try {
    return await withinTime(run(), timeoutMs, timedOut);
  } catch (error) {
    // Whatever failed (the deadline, a statement, the connection), a connection not yet given back
    // is in an unknown state: it is given up, never handed back mid-transaction.
    state = 'over';
    finish(false);
    throw error;
  }
}
