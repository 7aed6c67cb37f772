/**
 * The store on Cloudflare D1, for Workers: shared by every isolate and location of the Worker, kept
 * across restarts and deploys, and transactional: the statements of a webhook's effects run in the
 * same D1 batch that records the delivery.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { positiveInt } from '../internal/positive-int.js';
import { withinTime } from '../internal/within-time.js';
import { D1Clock, localNow } from './d1-clock.js';
import { toColumn } from './d1-rows.js';
import { d1Sql, isTableName, MAX_READ_KEYS } from './d1-sql.js';
import type { D1DatabaseLike, D1Effects, D1PreparedStatementLike, D1ResultLike } from './d1-types.js';
import { StoreTimeoutError } from './errors.js';
import { recordFromRow } from './sql-record.js';
import type { Store, StoreClaim, StoreClaimRequest, StoreJsonObject, StoreRecord, StoreTransactResult } from './store.js';

export type { D1DatabaseLike, D1Effects, D1PreparedStatementLike, D1ResultLike } from './d1-types.js';

/** Options of {@link d1Store}. */
export interface D1StoreOptions {
  /**
   * The table, created on first use: letters, digits and `_`, at most 64, not starting with a digit
   * nor with `sqlite_`. Any such name works, SQL keywords such as `order` included. Default `payments_sdk`.
   */
  table?: string;
  /**
   * How long a call may take before it fails with `StoreTimeoutError`, in ms. Default 2000. What a
   * call that timed out would have written is not written later: every write carries its deadline
   * by D1's clock, and changes nothing past it.
   */
  timeoutMs?: number;
  /**
   * How long the batch of {@link D1Store.transact} (your statements and the record of the key) may
   * take, in ms. Default 5000, so that a webhook still answers well inside the service's 10 s.
   */
  transactTimeoutMs?: number;
}

/** The store of {@link d1Store}: a {@link Store} whose `transact` runs the statements an effect returns. */
export interface D1Store extends Store<undefined, D1Effects> {
  /** `d1`. */
  readonly kind: 'd1';
  /**
   * Runs the statements `effect` returns (prepared and bound on the same D1 database) and settles
   * `key`, in one `db.batch`: both, or neither. A key already settled answers `settled` without
   * calling `effect`; a duplicate whose batch comes second finds the key settled, and its statements
   * roll back (`settled` too). A key that another owner holds under a live lease answers `busy`. An
   * error of `effect` or of its statements is rethrown as it is, and nothing is recorded.
   */
  transact(
    key: string,
    effect: (context: undefined) => D1Effects | Promise<D1Effects>,
    options?: { data?: StoreJsonObject; result?: StoreJsonObject },
  ): Promise<StoreTransactResult>;
}

const DEFAULT_TABLE = 'payments_sdk';
const DEFAULT_TIMEOUT_MS = 2_000;
const DEFAULT_TRANSACT_TIMEOUT_MS = 5_000;

/**
 * A {@link Store} on Cloudflare D1 (`env.DB` of a Worker), shared by every isolate of the Worker and
 * kept across restarts and deploys.
 *
 * ```ts
 * import { d1Store } from 'payments-sdk/stores';
 * import { webhookHandler } from 'payments-sdk/webhooks';
 *
 * export default {
 *   fetch: (request: Request, env: { DB: D1Database; PAYMENTS_WEBHOOK_SECRET: string }) =>
 *     webhookHandler({
 *       secret: env.PAYMENTS_WEBHOOK_SECRET,
 *       store: d1Store(env.DB),
 *       // Runs in the same D1 batch that records the event: exactly once, even for a duplicate
 *       // delivered at the same moment to another isolate.
 *       onEvent: (event) => [env.DB.prepare('UPDATE orders SET paid = 1 WHERE payment_uuid = ?').bind(event.data.uuid)],
 *     })(request),
 * };
 * ```
 *
 * The table is created with `CREATE TABLE IF NOT EXISTS` on first use, once per store. Every lease
 * and age is decided by D1's own clock, inside the SQL: isolates whose clocks disagree still agree
 * on who holds a key. A claim of many keys is one batch (one round trip) of atomic conditional
 * upserts. Values are kept as JSON text and come back equal, `\u0000` and lone surrogates included.
 * Rows hold keys, owners, times and the values given: no secret, no payload unless you put one there.
 */
export function d1Store(db: D1DatabaseLike, options: D1StoreOptions = {}): D1Store {
  if (db === null || typeof db !== 'object' || typeof db.prepare !== 'function' || typeof db.batch !== 'function') {
    throw new PaymentsError('d1Store: pass a D1 database binding (env.DB in a Worker, declared under d1_databases in wrangler).');
  }
  // Every bad option is named at once.
  const problems: string[] = [];
  const table = options.table ?? DEFAULT_TABLE;
  if (!isTableName(table)) {
    problems.push('table must be a name of letters, digits and _ (not starting with a digit nor with sqlite_), at most 64 long');
  }
  const positive = (value: unknown, fallback: number, name: string): number => {
    try {
      return positiveInt(value, fallback, name);
    } catch (error) {
      problems.push((error as Error).message.replace(/\.$/, ''));
      return fallback;
    }
  };
  const timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const transactTimeoutMs = positive(options.transactTimeoutMs, DEFAULT_TRANSACT_TIMEOUT_MS, 'transactTimeoutMs');
  if (problems.length > 0) throw new PaymentsError(`d1Store: ${problems.join('; ')}.`);

  const sql = d1Sql(table);
  const clock = new D1Clock();
  let ready: Promise<void> | undefined;
  const ensureTable = () => {
    ready ??= db.batch([db.prepare(sql.schema), db.prepare(sql.now)]).then(
      (results) => clock.sample(rowsOf(results[1])[0]?.now, localNow()),
      (error: unknown) => {
        // Tried again by the next call: a D1 that was briefly unreachable does not stay broken.
        ready = undefined;
        throw error;
      },
    );
    return ready;
  };

  /**
   * One call: the table, then `work`, all within `ms`. `work` reads the D1 time past which its writes
   * change nothing from `deadline()` (measured again after each answer), and whether this call is
   * still in time from `inTime()`. `onLate` gets what `work` answers after the call timed out.
   */
  const call = <T>(
    operation: string,
    ms: number,
    work: (deadline: () => number, inTime: () => boolean) => Promise<T>,
    onLate?: (value: T) => unknown,
  ): Promise<T> => {
    const localDeadline = localNow() + ms;
    const running = Promise.resolve().then(async () => {
      await ensureTable();
      return work(
        () => clock.deadline(localDeadline),
        () => localNow() < localDeadline,
      );
    });
    let late = false;
    if (onLate) running.then((value) => (late ? onLate(value) : undefined)).catch(() => {});
    return withinTime(running, ms, () => {
      late = true;
      return new StoreTimeoutError(
        `d1Store: D1 did not answer the ${operation} within ${ms} ms; nothing it would have written lands later.`,
      );
    });
  };
  /**
   * Runs `statements` as one batch, then D1's time (sampled for later deadlines), and answers the
   * rows of each statement and that time.
   */
  const rows = async (statements: D1PreparedStatementLike[]): Promise<{ results: Array<Array<Record<string, unknown>>>; now: number }> => {
    const results = (await db.batch([...statements, db.prepare(sql.now)])).map(rowsOf);
    const now = Number(results.pop()?.[0]?.now);
    clock.sample(now, localNow());
    return { results, now };
  };
  /**
   * `true` when a write refused at `deadline` may have been refused for its deadline alone while this
   * call is still in time: this isolate's clock stepped back since D1's time was last measured. The
   * answer measured it again; the write is tried once more.
   */
  const refusedEarly = (now: number, deadline: number, inTime: () => boolean) => now > deadline && inTime();
  /** Statements reading the records of `keys` (distinct), {@link MAX_READ_KEYS} at a time. */
  const readStatements = (keys: readonly string[]) => {
    const statements: D1PreparedStatementLike[] = [];
    for (let at = 0; at < keys.length; at += MAX_READ_KEYS) {
      const chunk = keys.slice(at, at + MAX_READ_KEYS);
      statements.push(db.prepare(sql.read(chunk.length)).bind(...chunk));
    }
    return statements;
  };
  /** The records in `results`, by key. */
  const byKey = (results: Array<Array<Record<string, unknown>>>) => {
    const records = new Map<string, StoreRecord>();
    for (const row of results.flat()) records.set(String(row.key), recordFromRow(row));
    return records;
  };
  /** Runs one write that returns a row when it acted. */
  const write = (operation: string, statement: (deadline: number) => D1PreparedStatementLike) =>
    call(operation, timeoutMs, async (deadline, inTime) => {
      for (let attempt = 1; ; attempt++) {
        const at = deadline();
        const { results, now } = await rows([statement(at)]);
        if ((results[0]?.length ?? 0) > 0) return true;
        if (attempt > 1 || !refusedEarly(now, at, inTime)) return false;
      }
    });
  const readMany = async (keys: readonly string[]): Promise<Array<StoreRecord | undefined>> => {
    if (keys.length === 0) return [];
    const records = byKey((await rows(readStatements([...new Set(keys)]))).results);
    return keys.map((key) => records.get(key));
  };
  const readOne = (key: string) => call('read', timeoutMs, async () => (await readMany([key]))[0]);
  /**
   * Claims each request in one batch: one upsert per request, in order, that answers the record it
   * granted, then the records of the keys, for the answers it did not grant. `missed` lists the
   * requests not granted although their key was free or absent: refused for their deadline (or a
   * lease that ended within the batch); an absent key has no answer.
   */
  const claimOnce = async (requests: readonly StoreClaimRequest[], deadline: number) => {
    const upserts = requests.map((request) =>
      db.prepare(sql.claim).bind(request.key, toColumn(request.data, 'data'), request.owner, request.leaseMs, deadline),
    );
    const { results, now } = await rows([...upserts, ...readStatements([...new Set(requests.map((request) => request.key))])]);
    const found = byKey(results.slice(upserts.length));
    const missed: number[] = [];
    const answers = requests.map((request, i): StoreClaim | undefined => {
      const granted = results[i]?.[0];
      if (granted) return { state: 'claimed', record: recordFromRow(granted) };
      const record = found.get(request.key);
      if (!record?.settled && record?.owner === undefined) missed.push(i);
      return record && { state: record.settled ? 'settled' : 'busy', record };
    });
    return { answers, missed, now };
  };

  const store: D1Store = {
    kind: 'd1',
    async claim(requests) {
      for (const request of requests) checkRequest(request);
      if (requests.length === 0) return [];
      return call(
        'claim',
        timeoutMs,
        async (deadline, inTime) => {
          const at = deadline();
          const { answers, missed, now } = await claimOnce(requests, at);
          // Tried once more when this call is still in time (this isolate's clock stepped back): only
          // those requests, so that no granted claim is counted twice.
          if (missed.length > 0 && refusedEarly(now, at, inTime)) {
            const retried = await claimOnce(
              missed.map((i) => requests[i] as StoreClaimRequest),
              deadline(),
            );
            missed.forEach((i, j) => {
              answers[i] = retried.answers[j];
            });
          }
          return answers.map((answer, i) => {
            if (answer) return answer;
            throw new StoreTimeoutError(`d1Store: the claim of ${requests[i]?.key} reached D1 after its deadline; nothing was claimed.`);
          });
        },
        // A claim granted after the call gave up would hold its key for a whole lease: given back.
        (late) => {
          for (const [i, claim] of late.entries()) {
            const request = requests[i];
            if (claim.state === 'claimed' && request) store.release(request.key, request.owner).catch(() => {});
          }
        },
      );
    },
    async renew(key, owner, leaseMs) {
      checkRequest({ key, owner, leaseMs });
      return write('renew', (deadline) => db.prepare(sql.renew).bind(key, owner, leaseMs, deadline));
    },
    async settle(key, owner, result) {
      checkKey(key);
      checkOwner(owner);
      const value = toColumn(result, 'result');
      return write('settle', (deadline) => db.prepare(sql.settle).bind(key, owner, value, deadline));
    },
    async release(key, owner, note) {
      checkKey(key);
      checkOwner(owner);
      const value = toColumn(note, 'note');
      return write('release', (deadline) => db.prepare(sql.release).bind(key, owner, value, deadline));
    },
    async read(keys) {
      for (const key of keys) checkKey(key);
      return call('read', timeoutMs, () => readMany(keys));
    },
    async transact(key, effect, options = {}) {
      checkKey(key);
      const data = toColumn(options.data, 'data');
      const result = toColumn(options.result, 'result');
      // The cheap answer first: a key settled or held is answered without running the effect.
      const found = await readOne(key);
      if (found?.settled) return { state: 'settled' };
      if (found?.owner !== undefined) return { state: 'busy' };

      const effects = checkEffects(await effect(undefined));
      // Whose settling the guard looks for: this call's alone.
      const token = `transact:${globalThis.crypto.randomUUID()}`;
      const batch = (deadline: number) =>
        db
          .batch([
            db.prepare(sql.transactSettle).bind(key, data, result, token, deadline),
            db.prepare(sql.transactGuard).bind(key, token),
            ...effects,
          ])
          .then(
            () => 'done' as const,
            (error: unknown) => {
              if (messagesOf(error).some((message) => sql.duplicate.test(message))) return 'refused' as const;
              throw error;
            },
          );
      return call('transact', transactTimeoutMs, async (deadline, inTime) => {
        for (let attempt = 1; ; attempt++) {
          const at = deadline();
          if ((await batch(at)) === 'done') return { state: 'done' };
          // The guard refused the batch: the key was settled first by a duplicate, or is held; or,
          // neither, the batch came past its deadline.
          const { results, now } = await rows(readStatements([key]));
          const record = results[0]?.[0] && recordFromRow(results[0][0]);
          if (record?.settled) return { state: 'settled' };
          if (record?.owner !== undefined || attempt > 1 || !refusedEarly(now, at, inTime)) return { state: 'busy' };
        }
      });
    },
  };
  return store;
}

/** The rows of one statement's result. */
function rowsOf(result: D1ResultLike | undefined): Array<Record<string, unknown>> {
  return (result?.results ?? []) as Array<Record<string, unknown>>;
}

/** The messages of `error` and of its causes: D1 puts SQLite's message in both. */
function messagesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    messages.push(current.message);
  }
  return messages;
}

function checkKey(key: unknown): void {
  if (typeof key !== 'string' || key === '')
    throw new PaymentsError('d1Store: a key must be a non-empty string (make it with storeKey()).');
}

function checkOwner(owner: unknown): void {
  if (typeof owner !== 'string' || owner === '') throw new PaymentsError('d1Store: an owner must be a non-empty string.');
}

function checkRequest(request: Pick<StoreClaimRequest, 'key' | 'owner' | 'leaseMs'>): void {
  checkKey(request.key);
  checkOwner(request.owner);
  if (!Number.isSafeInteger(request.leaseMs) || request.leaseMs < 1) {
    throw new PaymentsError(`d1Store: leaseMs must be a positive integer, got ${String(request.leaseMs)}.`);
  }
}

/** What an effect returned, as statements to batch. */
function checkEffects(effects: unknown): D1PreparedStatementLike[] {
  if (effects === undefined) return [];
  if (Array.isArray(effects) && effects.every((statement) => typeof (statement as { bind?: unknown } | null)?.bind === 'function')) {
    return effects as D1PreparedStatementLike[];
  }
  throw new PaymentsError('d1Store: the effect must return an array of D1 statements (env.DB.prepare(…).bind(…)), or nothing.');
}
