/**
 * The types of `payouts.createMany`: its options, the rows it takes, the result of each row and the
 * counts of a run. In a module of their own so that the batch, the runner and the row checks share
 * them without importing one another.
 */
import type { InvalidParamsError, PaymentsError, ValidationIssue } from '../core/errors.js';
import type { Telemetry } from '../core/telemetry.js';
import type { RetryBackoff } from '../internal/transport.js';
import type { Payout, PayoutCreateParams } from '../schemas/payout.js';
import type { Store, StoreRecord } from '../stores/store.js';

/** What happened to a row in this run. */
export type BulkStatus = 'created' | 'replayed' | 'skipped' | 'failed' | 'conflict' | 'needs_reconciliation';

/** One row's result. */
export interface BulkResult<R = PayoutCreateParams> {
  /** Position of the row in the source, from 0. */
  index: number;
  /** The row's key (the `key` option, default its index). */
  key: string;
  /** The row as given. */
  row: R;
  /**
   * - `created`: paid now (201);
   * - `replayed`: the service already had it under this key (200): paid once, earlier;
   * - `skipped`: the store has its outcome from an earlier run (see `record.result`); nothing sent;
   * - `failed`: refused before anything was created (4xx: `retryable`, now or in an earlier run), or
   *   no answer after the retries (`error`); in the second case the outcome is unknown and a rerun
   *   resends it with the same key while the service still knows the key;
   * - `conflict`: the service has another payout under this key (409): the row changed since it was sent;
   * - `needs_reconciliation`: sent earlier without a known outcome, and too long ago for the
   *   service to still recognise the key: never resent automatically. Check it by hand.
   */
  status: BulkStatus;
  /** The payout, for `created` and `replayed`; its id and status as recorded, for `skipped`. */
  payout?: Payout;
  /** Why, for `failed`, `conflict` and `needs_reconciliation`. */
  error?: PaymentsError;
  /**
   * `true` on a `failed` row that the service refused before creating anything, now or in an
   * earlier run: a rerun with `retryFailed` sends it again, under the same key (which created nothing).
   */
  retryable?: boolean;
  /**
   * `true` when another worker took the row over after this run's lease on it ended: this run's
   * outcome was not recorded (the other worker sends the row under the same key and records it).
   */
  leaseLost?: boolean;
  /** The Idempotency-Key of the row (derived from `batchId` and the row key alone). */
  idempotencyKey: string;
  /** Sends of this row in this run. */
  attempts: number;
  /**
   * What the store held, for `skipped`, `needs_reconciliation` and a refusal of an earlier run:
   * `record.result` is a recorded outcome (`{ status, payout?: { id, status }, at }`), `record.note`
   * what earlier sends left (`{ uncertain?, refused?, error? }`).
   */
  record?: StoreRecord;
}

/** Rows by status. */
export interface BulkCounts {
  created: number;
  replayed: number;
  skipped: number;
  failed: number;
  conflict: number;
  needs_reconciliation: number;
}

/** Counts of a run, given to `onProgress` after each result. */
export interface BulkProgress extends BulkCounts {
  /** Rows in the batch, when known before sending (arrays, buffered or replayable sources). */
  total?: number;
  /** Rows with a result so far. */
  done: number;
  /** Sends in flight now. */
  inFlight: number;
  /** Sends allowed in flight now (adapts to 429 / 503). */
  concurrency: number;
}

/** What `batch.summary()` resolves to: counts by status. */
export interface BulkSummary extends BulkCounts {
  /** Rows with a result. */
  total: number;
  /** `true` when the `signal` stopped the run before every row had a result. */
  aborted: boolean;
}

/** A bad row, as listed by the {@link InvalidParamsError} of a batch (its `rows` property). */
export interface BulkInvalidRow {
  index: number;
  /** The row's key, when the `key` function gave one. */
  key?: string;
  /** Each bad field of the row. */
  issues: ValidationIssue[];
}

/** The rows of a batch: an iterable, an async iterable, or a function returning a fresh one each call (read twice: checked, then sent). */
export type BulkRows<R> = Iterable<R> | AsyncIterable<R> | (() => Iterable<R> | AsyncIterable<R>);

/** Options of `payouts.createMany`. */
export interface CreateManyOptions<R = PayoutCreateParams> {
  /** Names the batch; every row's Idempotency-Key derives from it and the row key. Required. */
  batchId: string;
  /** The row's stable identity within the batch. Default: its index, as a string. */
  key?: (row: R, index: number) => string | number;
  /**
   * Where the runs remember each row (one key per row, `storeKey('bulk', batchId, rowKey)`): a store
   * of `payments-sdk/stores`. A shared store (Redis, D1, Postgres) lets several workers run one batch.
   * Default: a fresh `memoryStore()`, which protects one run only (a rerun then relies on the
   * service replaying the rows' keys, for 24 hours).
   */
  store?: Store<unknown, unknown>;
  /** Starting and maximum number of sends in flight. Default 4 (1 to 256). */
  concurrency?: number;
  /** `true`: a bad row gets a `failed` result and the others go on. Default `false`: one error lists every bad row and nothing is sent. */
  skipInvalid?: boolean;
  /**
   * `true`: a row that an earlier run saw refused before anything was created (the service refused
   * every send of it: a key without the right, an invalid or refused payout) is sent again, under
   * its same Idempotency-Key (a refused key created nothing, so it can never create twice), with the
   * row as it is now. Default `false`: such rows are reported `failed` (`retryable`) without a send.
   */
  retryFailed?: boolean;
  /** Stops new sends; those in flight finish and are recorded, then the iteration ends. */
  signal?: AbortSignal;
  /** Called after each result. */
  onProgress?: (progress: BulkProgress) => void;
  /** Retries of a row that got no answer or a 5xx (408 too), with the same key. Default: the client's `maxRetries`. 429 and 503 with `Retry-After` are waited out up to 20 times more. */
  maxRetries?: number;
  /** Backoff between those retries, when the answer gives no `Retry-After`. Default 500 ms doubling to 8 s, with jitter. */
  retryBackoff?: RetryBackoff;
  /**
   * How long a claim on a row holds against other workers unless renewed (it is, while the run
   * holds the row). Default 30 000 ms. A row is sent only under a live claim: one whose lease may
   * have ended (renewal failed, or the worker was frozen) is renewed first, or claimed again.
   */
  leaseMs?: number;
  /**
   * How long after its first claim (by the store's clock) a row without a known outcome is still
   * resent with the same key. The service keeps keys 24 hours; default 23 hours, a margin for long
   * runs. At most 24 hours.
   */
  resendWindowMs?: number;
}

/** What the runner needs from the client: one creation with a given key, the client's retry count, mode and telemetry. @internal */
export interface BulkSender {
  /** The kind of the client's key now (`'unknown'` until a key function was read). */
  mode(): 'live' | 'sandbox' | 'unknown';
  send(row: PayoutCreateParams, idempotencyKey: string): Promise<{ data: Payout; replayed: boolean }>;
  maxRetries: number;
  /** The client's telemetry: the batch reports one observed run and each row's status to it. */
  telemetry?: Telemetry;
}
