/**
 * The merchant's Postgres, whichever driver it comes through: a `pg` Pool, a `pg` Client (or a
 * client checked out of a pool), or a postgres.js `sql`. Each is recognised by its shape; the SDK
 * imports no driver.
 *
 * Every transaction is bounded in time on both sides. The SDK gives up after its `timeoutMs` and
 * rolls back itself (or drops the connection); the server is told a longer bound
 * (`statement_timeout`, `idle_in_transaction_session_timeout`, `lock_timeout`, {@link SERVER_MARGIN_MS}
 * later), which only ends what this process can no longer end: a process frozen or killed. Nothing
 * is sent on a transaction's connection past its deadline, so a step given up never lands later,
 * short of a COMMIT already sent.
 *
 * While the SDK holds a connection, every error the driver emits on it is handled here: the server
 * ending a session (its idle timeout, a restart) never takes the process down, and the connection is
 * given up rather than handed back.
 *
 * @module
 */
import { PaymentsError } from '../../core/errors.js';
import { StoreTimeoutError, StoreUnavailableError } from './unavailable.js';

/** The answer of a `pg` query, as far as the SDK reads it. */
export interface PgQueryResultLike {
  rows: unknown[];
  rowCount: number | null;
}

/** A `pg` Client (`new pg.Client()`, connected), or a client checked out of a pool (`await pool.connect()`). */
export interface PgClientLike {
  /** `client.query(text, values)`. */
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  /** Listens to the client's events: the SDK listens to `error` while it uses the client. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  /** Stops listening. */
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

/** A client lent by a `pg` Pool: given back with `release()`, or dropped with `release(error)`. */
export interface PgPoolClientLike extends PgClientLike {
  /** Gives the client back to its pool; with an error (or `true`), closes it instead. */
  release(destroy?: boolean | Error): void;
  /** Closes the connection. */
  end?(): Promise<void> | undefined;
  /** Listens once to `end`: the connection closed. */
  once?(event: 'end', listener: () => void): unknown;
}

/** A `pg` Pool (`new pg.Pool()`). */
export interface PgPoolLike {
  /** `pool.query(text, values)`. */
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  /** Borrows a client, given back with `release()`. */
  connect(): Promise<PgPoolClientLike>;
  /** How many clients the pool holds (tells a Pool from a Client). */
  readonly totalCount: number;
}

/** The result of a postgres.js query: an array of rows with the affected-row `count`. */
export interface PostgresJsResultLike extends ReadonlyArray<unknown> {
  readonly count: number;
}

/** A postgres.js query: a promise that starts when awaited, or at once with `execute()`. */
export interface PostgresJsQueryLike extends PromiseLike<PostgresJsResultLike> {
  /** Sends the query now. */
  execute(): PostgresJsQueryLike;
}

/** The `sql` that postgres.js gives inside `sql.begin`. */
export interface PostgresJsTransactionLike {
  /** `sql.unsafe(text, params)`: a query with `$1` placeholders. */
  unsafe(text: string, params?: unknown[]): PostgresJsQueryLike;
}

/** A postgres.js `sql` (`postgres(url)`), version 3.4 or later. */
export interface PostgresJsLike {
  /** `sql.unsafe(text, params)`: a query with `$1` placeholders. */
  unsafe(text: string, params?: unknown[]): PromiseLike<PostgresJsResultLike>;
  /** Runs `fn` in a transaction on one connection of the pool. */
  begin<T>(fn: (sql: PostgresJsTransactionLike) => Promise<T>): Promise<T>;
}

/** What the SDK's Postgres store takes: a `pg` Pool or Client, or a postgres.js `sql`. */
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
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws (the
   * error rethrown as it is). Rejects with the driver's timeout error (a `StoreTimeoutError`) when the whole (connecting
   * included) takes over `timeoutMs`: the transaction is then abandoned and never commits, short of
   * a COMMIT already sent.
   */
  transaction<T>(timeoutMs: number, work: (session: SqlSession) => Promise<T>): Promise<T>;
}

/** How much longer than the SDK's own bound the server lets a transaction run before ending it itself. */
export const SERVER_MARGIN_MS = 2000;

/** Creating a table may wait for other sessions' locks: more time than a call of the store gets. */
const MIGRATE_TIMEOUT_MS = 30_000;

/**
 * Runs `schema` (idempotent `CREATE … IF NOT EXISTS` statements) in one transaction. Two
 * `CREATE TABLE IF NOT EXISTS` at the same moment can both try to create the table, so callers
 * migrating the same `table` (one spelling: schema-qualified and quoted) take turns on an advisory
 * lock named after it.
 */
export async function migrateSchema(driver: SqlDriver, table: string, schema: string): Promise<void> {
  await driver.transaction(MIGRATE_TIMEOUT_MS, async (session) => {
    await session.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`payments-sdk:migrate:${table}`]);
    await session.query(schema);
  });
}

/** A connection holding one transaction. Each of `commit`, `rollback`, `abandon` ends it once; later calls do nothing. */
interface Connection {
  /** Opens the transaction, the server bounding it by `serverMs`. */
  begin(serverMs: number): Promise<void>;
  /** Runs one statement. */
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
  /** COMMIT, then gives the connection back (or up, when the COMMIT failed). */
  commit(): Promise<void>;
  /** ROLLBACK, then gives the connection back (or up). Never rejects. */
  rollback(): Promise<void>;
  /** Ends whatever is left of the transaction without waiting for the server, and gives the connection up. */
  abandon(): void;
}

type Opener = () => Promise<Connection>;

/**
 * Recognises `db` by its shape. Throws, naming what is accepted, for anything else. A transaction
 * that takes too long rejects with `timeoutError(message)`.
 */
export function sqlDriver(
  db: PostgresDatabase,
  where: string,
  timeoutError: (message: string) => Error = (message) => new StoreTimeoutError(message),
): SqlDriver {
  const open = openerOf(db, where);
  return { transaction: (timeoutMs, work) => transaction(open, timeoutMs, work, timeoutError) };
}

function openerOf(db: unknown, where: string): Opener {
  const candidate = db as { unsafe?: unknown; begin?: unknown; query?: unknown; connect?: unknown; totalCount?: unknown } | null;
  if (typeof db === 'function' && typeof candidate?.unsafe === 'function' && typeof candidate.begin === 'function') {
    return postgresJsOpener(candidate as PostgresJsLike);
  }
  if (candidate !== null && typeof candidate === 'object' && typeof candidate.query === 'function') {
    if (typeof candidate.connect === 'function' && typeof candidate.totalCount === 'number') return pgPoolOpener(db as PgPoolLike);
    return pgClientOpener(db as PgClientLike, where);
  }
  throw new PaymentsError(`${where}: pass a pg Pool or Client (connected), or a postgres.js sql (version 3.4 or later).`);
}

const ignore = () => {};

/** BEGIN with the server's bounds, in one round trip (no parameters: a simple query of several statements). */
function beginSql(serverMs: number): string {
  return `BEGIN; ${boundsSql(serverMs)}`;
}

function boundsSql(serverMs: number): string {
  const ms = Math.ceil(serverMs);
  return `SET LOCAL statement_timeout = ${ms}; SET LOCAL idle_in_transaction_session_timeout = ${ms}; SET LOCAL lock_timeout = ${ms}`;
}

function fromPg(result: PgQueryResultLike): SqlResult {
  return { rows: result.rows as Record<string, unknown>[], rowCount: result.rowCount ?? 0 };
}

/** How {@link pgConnection} gives a client back, or up. */
interface PgHandBack {
  /** Gives the client back, healthy. */
  done(): void;
  /** Gives it up: its state is unknown, or it emitted an error. */
  drop(error: Error): void;
  /** Told of an error the client emitted, or a statement failed with. Answers the error to throw for a statement. */
  failed?(error: unknown): unknown;
}

/**
 * A transaction on a `pg` client. An `error` listener is attached while the SDK holds the client:
 * a client the server disconnects while idle in a transaction emits `error`, which would otherwise
 * end the process. A client that emitted one is given up (`drop`), never handed back.
 */
function pgConnection(client: PgClientLike, handBack: PgHandBack): Connection {
  let finished = false;
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
    handBack.failed?.(error);
  };
  client.on?.('error', onError);
  const finish = (healthy: boolean) => {
    if (finished) return;
    finished = true;
    if (healthy && lost === undefined) {
      client.removeListener?.('error', onError);
      handBack.done();
    } else {
      // The listener stays: a client being closed may still emit an error.
      handBack.drop(lost ?? new Error('Connection dropped: its transaction was abandoned.'));
    }
  };
  const query = async (text: string, params?: readonly unknown[]) => {
    try {
      return fromPg(await client.query(text, params as unknown[] | undefined));
    } catch (error) {
      throw handBack.failed ? handBack.failed(error) : error;
    }
  };
  return {
    begin: async (serverMs) => {
      await query(beginSql(serverMs));
    },
    query,
    commit: async () => {
      try {
        await query('COMMIT');
      } catch (error) {
        finish(false);
        throw error;
      }
      finish(true);
    },
    rollback: async () => {
      try {
        await query('ROLLBACK');
        finish(true);
      } catch {
        finish(false);
      }
    },
    abandon: () => finish(false),
  };
}

function pgPoolOpener(pool: PgPoolLike): Opener {
  return async () => {
    const client = await pool.connect();
    return pgConnection(client, {
      done: () => client.release(),
      drop: (error) => dropPooled(client, error),
    });
  };
}

/**
 * Closes a pooled client, then gives it back to its pool to be removed. Closing the connection makes
 * the server roll back whatever it had not committed, even a server that was frozen and reads the
 * close only once it answers again. The pool gets the client back only once closed (or after
 * {@link SERVER_MARGIN_MS}, for a frozen server): an error the server sent before closing (its idle
 * timeout) then reaches the SDK's listener, not the pool's, which would emit it on the pool and end
 * a process whose pool has no `error` listener.
 */
function dropPooled(client: PgPoolClientLike, error: Error): void {
  if (typeof client.end !== 'function' || typeof client.once !== 'function') {
    client.release(error);
    return;
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    client.release(error);
  };
  const timer = setTimeout(release, SERVER_MARGIN_MS);
  timer.unref?.();
  client.once('end', release);
  Promise.resolve(client.end()).then(release, release);
}

/**
 * The turn of each pg Client: a Client is one connection, so two transactions on it would mix
 * their statements. One chain per client object, shared by everything of the SDK that uses it.
 */
const clientTurns = new WeakMap<object, Promise<void>>();

/** The pg Clients whose connection ended while the SDK held them, with the error that ended them. */
const deadClients = new WeakMap<object, Error>();

/** pg's messages for a Client whose connection is gone. */
const CLIENT_GONE = /not queryable|Connection terminated|terminating connection/i;

function deadClientError(where: string, cause: unknown): StoreUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StoreUnavailableError(
    `${where}: the pg Client's connection has ended (${reason}). The SDK cannot reconnect a Client it was given: pass a pg Pool (new pg.Pool()) instead, which replaces a lost connection.`,
    { cause },
  );
}

function pgClientOpener(client: PgClientLike, where: string): Opener {
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
    const dead = deadClients.get(client);
    if (dead) {
      endTurn();
      throw deadClientError(where, dead);
    }
    return pgConnection(client, {
      done: endTurn,
      // The Client stays the merchant's: a ROLLBACK is queued behind the statements already sent,
      // so the next transaction on it starts after it, whenever the server answers.
      drop: () => {
        client.query('ROLLBACK').catch(ignore);
        endTurn();
      },
      failed: (error) => {
        if (!(error instanceof Error) || !CLIENT_GONE.test(error.message)) return error;
        if (!deadClients.has(client)) deadClients.set(client, error);
        return deadClientError(where, error);
      },
    });
  };
}

/** How a transaction of ours is rolled back inside `sql.begin`: `fn` rejects with it. */
const ROLLED_BACK = Symbol('rolled back');

/**
 * postgres.js, through `sql.begin`: it tells when the connection closes under the transaction
 * (its `begin` rejects), which `sql.reserve()` does not. A connection closed under it must never be
 * written to again (postgres.js would throw from a timer, ending the process, or send the statement
 * on a new session, outside the transaction): once closed, `fn` is left pending and nothing more is
 * sent. Otherwise `fn` resolves to COMMIT and rejects to ROLLBACK, and postgres.js gives the
 * connection back to its pool once the server answered.
 */
function postgresJsOpener(sql: PostgresJsLike): Opener {
  return () =>
    new Promise<Connection>((resolveOpen, rejectOpen) => {
      let opened = false;
      let settled = false;
      let closed = false;
      let failed = false;
      let settle = { commit: ignore, rollback: (_reason: unknown) => {} };
      const decided = new Promise<void>((resolve, reject) => {
        settle = { commit: resolve, rollback: reject };
      });
      const ended = sql.begin((tx) => {
        opened = true;
        resolveOpen(connection(tx));
        return decided;
      });
      ended.catch((error: unknown) => {
        if (!opened) rejectOpen(error);
        else if (!settled) closed = true;
      });
      /** Whether the transaction may still be ended by a statement; waits for the driver to report a close first. */
      const writable = async () => {
        // A statement that failed may have failed with the connection: its close is reported to
        // `begin` within the same turn of the event loop, so one turn later `closed` is known.
        if (failed) await new Promise((resolve) => setTimeout(resolve, 0));
        return !closed && !settled;
      };
      const connection = (tx: PostgresJsTransactionLike): Connection => {
        let bounds: PromiseLike<unknown> = Promise.resolve();
        const run = (text: string, params?: readonly unknown[]) => {
          if (closed) return Promise.reject(new StoreUnavailableError('The database connection closed during the transaction.'));
          return tx.unsafe(text, params as unknown[] | undefined).execute();
        };
        return {
          begin: async (serverMs) => {
            // Sent now, awaited with the first statement: one round trip for both.
            const sent = run(boundsSql(serverMs));
            bounds = sent;
            Promise.resolve(sent).catch(() => {
              failed = true;
            });
          },
          query: async (text, params) => {
            try {
              // Both awaited together: the statement's failure is handled even when the bounds failed first.
              const [, rows] = await Promise.all([bounds, run(text, params)]);
              return { rows: rows as unknown as Record<string, unknown>[], rowCount: rows.count ?? 0 };
            } catch (error) {
              failed = true;
              throw error;
            }
          },
          commit: async () => {
            if (!(await writable())) throw new StoreUnavailableError('The database connection closed before the COMMIT.');
            settled = true;
            settle.commit();
            await ended;
          },
          rollback: async () => {
            if (!(await writable())) return;
            settled = true;
            settle.rollback(ROLLED_BACK);
            await ended.then(ignore, ignore);
          },
          abandon: () => {
            if (closed || settled) return;
            settled = true;
            settle.rollback(ROLLED_BACK);
          },
        };
      };
    });
}

async function transaction<T>(
  open: Opener,
  timeoutMs: number,
  work: (session: SqlSession) => Promise<T>,
  timeoutError: (message: string) => Error,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  /** Set once COMMIT is sent: from then on, whether the transaction committed is the server's to say. */
  let committing = false;
  /** The timeouts of this transaction, told apart from the effect's own errors. */
  const timeouts = new WeakSet<object>();
  const timedOut = () => {
    const error = timeoutError(
      committing
        ? `The database did not confirm the COMMIT within ${timeoutMs} ms: the transaction committed if the server received it, and was rolled back otherwise.`
        : `The database did not finish the transaction within ${timeoutMs} ms; it was rolled back.`,
    );
    timeouts.add(error);
    return error;
  };
  const late = () => performance.now() >= deadline;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  expired.catch(ignore);
  const bounded = <X>(step: Promise<X>): Promise<X> => {
    step.catch(ignore);
    return Promise.race([step, expired]);
  };

  let connection: Connection | undefined;
  let usable = true;
  const session: SqlSession = {
    query(text, params) {
      // Past the deadline nothing more reaches the connection: the server may end it any moment,
      // and what is sent now would land after the caller was told it failed.
      if (late()) return Promise.reject(timedOut());
      if (!usable || !connection) return Promise.reject(new PaymentsError('This transaction is over: use tx while the effect runs.'));
      return connection.query(text, params);
    },
  };
  const opening = open();
  try {
    connection = await bounded(opening);
    await bounded(connection.begin(timeoutMs + SERVER_MARGIN_MS));
    let result: T;
    try {
      result = await bounded(work(session));
    } catch (error) {
      if (timeouts.has(error as object) || late()) throw error;
      // The effect's own error: rolled back within the time left, then rethrown as it is.
      usable = false;
      const rolledBack = connection.rollback();
      await Promise.race([rolledBack, expired]).catch(ignore);
      connection.abandon();
      throw error;
    }
    // An event loop blocked past the deadline runs this before any timer: the clock decides.
    if (late()) throw timedOut();
    usable = false;
    committing = true;
    await bounded(connection.commit());
    return result;
  } catch (error) {
    usable = false;
    // Whatever failed (the deadline, a statement, the connection), a connection not yet given back
    // is in an unknown state: it is given up, never handed back mid-transaction.
    if (connection) connection.abandon();
    else opening.then((unused) => unused.abandon(), ignore);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
