/**
 * `payouts.createMany`: its types, and the batch object it returns, which checks the options at
 * once and starts the runner (result-stream.ts) when it is first iterated.
 */
import { InvalidParamsError, PaymentsError, type ValidationIssue } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import type { RetryBackoff } from '../internal/transport.js';
import type { Payout, PayoutCreateParams } from '../schemas/payout.js';
import type { BulkJournal, BulkJournalRecord } from './journal.js';
import { runBatch } from './result-stream.js';

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
   * - `skipped`: the journal has its outcome from an earlier run (see `record.outcome`); nothing sent;
   * - `failed`: refused (4xx), or no answer after the retries (`error`); in the second case the
   *   outcome is unknown and a rerun resends it with the same key;
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
   * `true` on a `failed` row that the service refused before creating anything (now, or for a
   * `skipped` row in an earlier run): a rerun with `retryFailed` sends it again under a new key.
   */
  retryable?: boolean;
  /** The Idempotency-Key of the row (derived from `batchId` and the row key). */
  idempotencyKey: string;
  /** Sends of this row in this run. */
  attempts: number;
  /** What the journal held, for `skipped` and `needs_reconciliation` (when it was sent, its outcome). */
  record?: BulkJournalRecord;
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
  /** Where the journal is kept. Default: a fresh {@link memoryJournal}. */
  journal?: BulkJournal;
  /** Starting and maximum number of sends in flight. Default 4 (1 to 256). */
  concurrency?: number;
  /** `true`: a bad row gets a `failed` result and the others go on. Default `false`: one error lists every bad row and nothing is sent. */
  skipInvalid?: boolean;
  /**
   * `true`: a row whose journaled outcome is a refusal that created nothing (the service refused
   * every send of it: a key without the right, an invalid or refused payout) is sent again, under a
   * new Idempotency-Key derived from the first (see {@link bulkIdempotencyKey}), with the row as it
   * is now. Every other outcome stays as journaled. Default `false`: such rows are `skipped`.
   */
  retryFailed?: boolean;
  /** Stops new sends; those in flight finish and are journaled, then the iteration ends. */
  signal?: AbortSignal;
  /** Called after each result. */
  onProgress?: (progress: BulkProgress) => void;
  /** Retries of a row that got no answer or a 5xx (408 too), with the same key. Default: the client's `maxRetries`. 429 and 503 with `Retry-After` are waited out up to 20 times more. */
  maxRetries?: number;
  /** Backoff between those retries. Default 500 ms doubling to 8 s, with jitter. */
  retryBackoff?: RetryBackoff;
  /** How long a claim on a row holds against other processes unless renewed (it is, while a send is in flight). Default 30 000 ms. */
  leaseMs?: number;
  /**
   * How long after its first send a row without a known outcome is still resent with the same key.
   * The service keeps keys 24 hours; default 23 hours, a margin for clocks and long runs. At most 24 hours.
   */
  resendWindowMs?: number;
  /** The clock of the journal's timestamps and of the resend window (ms since the epoch). Default `Date.now`. */
  clock?: () => number;
}

/**
 * A batch keyed by position (no `key` option) whose rows differ from the rows its journal holds at
 * the same positions: rows were inserted, removed, reordered or edited since the earlier run, so a
 * position no longer names the same payout. Thrown before anything is sent.
 */
export class BulkRowsChangedError extends PaymentsError {
  /** The indexes (from 0) of the rows that differ, in order. */
  readonly rows: number[];

  /** @internal */
  constructor(rows: number[]) {
    super(
      `Rows at index ${rows.slice(0, 10).join(', ')}${rows.length > 10 ? ` and ${rows.length - 10} more` : ''} differ from the rows journaled there. ` +
        'Rows without a key are known by position and must not change between runs. Nothing was sent.',
    );
    this.name = 'BulkRowsChangedError';
    this.rows = rows;
  }
}

/** What the runner needs from the client: one creation with a given key, and the client's retry count. @internal */
export interface BulkSender {
  send(row: PayoutCreateParams, idempotencyKey: string): Promise<{ data: Payout; replayed: boolean }>;
  maxRetries: number;
}

/**
 * A bulk payout: iterate it for one {@link BulkResult} per row (in completion order), or await
 * {@link PayoutBatch.summary}. Nothing is sent until one of the two starts it; it runs once.
 */
export class PayoutBatch<R extends PayoutCreateParams = PayoutCreateParams> implements AsyncIterable<BulkResult<R>> {
  readonly #rows: BulkRows<R>;
  readonly #options: CreateManyOptions<R>;
  readonly #sender: BulkSender;
  #started = false;
  readonly #finished: Promise<BulkSummary>;
  #settle!: { resolve: (summary: BulkSummary) => void; reject: (error: unknown) => void };

  /** @internal Made by `payouts.createMany`. */
  constructor(rows: BulkRows<R>, options: CreateManyOptions<R>, sender: BulkSender) {
    checkOptions(options);
    this.#rows = rows;
    this.#options = options;
    this.#sender = sender;
    this.#finished = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    this.#finished.catch(() => {});
  }

  /** Starts the batch and yields one result per row, as each completes. A batch can be iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<BulkResult<R>> {
    if (this.#started) throw new PaymentsError('This batch already ran: call createMany again to rerun it.');
    this.#started = true;
    return this.#run();
  }

  /** Counts by status once every row has a result. Runs the batch when nobody iterates it. */
  async summary(): Promise<BulkSummary> {
    if (!this.#started) for await (const _ of this);
    return this.#finished;
  }

  async *#run(): AsyncGenerator<BulkResult<R>> {
    yield* runBatch(this.#rows, this.#options, this.#sender, this.#settle);
  }
}

function checkOptions(o: CreateManyOptions<never>): void {
  const { batchId: id, concurrency: c = 1, maxRetries: m = 0, leaseMs: l = 10, resendWindowMs: w = 0, journal: j } = o ?? {};
  const bad = Object.entries({
    batchId: [typeof id === 'string' && id.trim() !== '' && id.length <= 200, 'a non-empty string of at most 200 characters'],
    concurrency: [Number.isInteger(c) && c >= 1 && c <= 256, 'an integer from 1 to 256'],
    maxRetries: [Number.isInteger(m) && m >= 0 && m <= 10, 'an integer from 0 to 10'],
    leaseMs: [l >= 10, 'at least 10 ms'],
    resendWindowMs: [w >= 0 && w <= DAY_MS, 'from 0 to 24 hours'],
    journal: [
      j === undefined || (typeof j?.claim === 'function' && typeof j?.read === 'function'),
      'a BulkJournal (claim, read, settle, release)',
    ],
  } as Record<string, [boolean, string]>).filter(([, [ok]]) => !ok);
  if (bad.length > 0)
    throw new InvalidParamsError(
      bad.map(([name, [, what]]) => ({ path: ['options', name], message: `must be ${what}` })),
      'createMany options',
    );
}
