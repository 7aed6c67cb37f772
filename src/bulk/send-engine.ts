/**
 * One run of a batch, the engine of `payouts.createMany`: claims each row in the journal, sends it
 * through the client's own creation path with its derived Idempotency-Key, retries with the same
 * key, adapts concurrency and pace to 429 / 503, and queues one result per row, in completion order,
 * for the generator that hands them to the consumer (result-stream.ts).
 */
import { APIError, IdempotencyConflictError, PaymentsError } from '../core/errors.js';
import { HOUR_MS } from '../internal/durations.js';
import { backoffDelay, isRetryable, retryDelay } from '../internal/transport.js';
import type { Payout, PayoutCreateParams } from '../schemas/payout.js';
import { ChangeSignal } from './change-signal.js';
import { AdaptiveConcurrency } from './concurrency.js';
import { type BulkErrorInfo, type BulkJournal, type BulkOutcomeStatus, memoryJournal } from './journal.js';
import { bulkIdempotencyKey } from './keys.js';
import type { BatchItem, PreparedRows } from './rows.js';
import { BulkRowsChangedError } from './rows-changed-error.js';
import type { BulkProgress, BulkResult, BulkSender, BulkStatus, BulkSummary, CreateManyOptions } from './types.js';

/** Throttles (429, 503) of one row waited out before it gives up. */
const MAX_THROTTLES = 20;
/** Results waiting for the consumer before sending pauses (a slow `for await` body). */
const MAX_READY = 256;
/**
 * Refusals that prove the service created nothing under the key: a malformed request, a key that is
 * not accepted or lacks the right (a sandbox key, KYC not approved), an invalid or refused payout.
 * 409 is not one of them: the key is taken by another payout.
 */
const REFUSED_BEFORE_CREATION = [400, 401, 403, 422];

/**
 * The state of one run and the steps that move it. `pump` feeds rows in as the concurrency, the
 * pace and the consumer allow; each row is `launch`ed into `claimAndSend`, then `send`, and ends in
 * `settle` (an outcome, journaled), in `giveUp` (no known outcome: the claim is dropped), or back in
 * `deferred` to be retried with the same key. Every step that moves the state notifies `changes`,
 * which the waiting loops (`pump`, `send`, the consumer's) wake on.
 */
export class BatchRun<R extends PayoutCreateParams> {
  readonly #options: CreateManyOptions<R>;
  readonly #sender: BulkSender;
  readonly #batchId: string;
  readonly #signal: AbortSignal | undefined;
  readonly #journal: BulkJournal;
  readonly #clock: () => number;
  readonly #limiter: AdaptiveConcurrency;
  readonly #maxRetries: number;
  readonly #leaseMs: number;
  readonly #windowMs: number;
  readonly #retryFailed: boolean;
  /** Rows this run holds a claim on (waiting for a send slot, sending, or waiting for a retry), by row key. */
  readonly #held = new Map<string, BatchItem<R>>();
  /** Held rows whose renewal answered that the lease was lost: claimed again before they may be sent. */
  readonly #leaseLost = new Set<string>();
  #renewal: ReturnType<typeof setInterval> | undefined;
  /** Identifies this run to the journal (one per `createMany` call). */
  readonly #owner: string;
  readonly #progress: BulkProgress;
  /** Results the consumer has not taken yet, oldest first. */
  readonly #ready: BulkResult<R>[] = [];
  /** Rows waiting to be tried again (a retry, another process's lease), each until its `notBefore`. */
  readonly #deferred: BatchItem<R>[] = [];
  readonly #changes = new ChangeSignal();
  /** Why the run stopped before its end: the first error wins. */
  #failure: { error: unknown } | undefined;
  #aborted = false;
  #pumping = false;
  // Rows being claimed or sent, and sends on the wire.
  #inFlight = 0;
  #sending = 0;
  /** Resolves when the row before in line to send has its slot (see `#turnToSend`). */
  #sendTurn: Promise<void> = Promise.resolve();

  /** Sets up a run of `options` over `sender`; nothing is read or sent before {@link start}. */
  constructor(options: CreateManyOptions<R>, sender: BulkSender) {
    this.#options = options;
    this.#sender = sender;
    this.#batchId = options.batchId;
    this.#signal = options.signal;
    this.#journal = options.journal ?? memoryJournal();
    const clock = options.clock ?? Date.now;
    // Called as given, with no `this`: never with the run as `this`.
    this.#clock = () => clock();
    this.#limiter = new AdaptiveConcurrency(options.concurrency ?? 4);
    this.#maxRetries = options.maxRetries ?? sender.maxRetries;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#windowMs = options.resendWindowMs ?? 23 * HOUR_MS;
    this.#retryFailed = options.retryFailed === true;
    this.#owner = globalThis.crypto.randomUUID();
    this.#progress = {
      done: 0,
      created: 0,
      replayed: 0,
      skipped: 0,
      failed: 0,
      conflict: 0,
      needs_reconciliation: 0,
      inFlight: 0,
      concurrency: this.#limiter.current,
    };
    this.#signal?.addEventListener('abort', this.#changes.notify);
  }

  /**
   * Starts sending the rows. Resolves once every row started has a result, or the run stopped; never
   * rejects: an error stops the run and becomes its {@link failure}.
   */
  start(rows: PreparedRows<R>): Promise<void> {
    this.#progress.total = rows.total;
    this.#pumping = true;
    this.#renewHeldClaims();
    return this.#checkPositions(rows.positionHashes)
      .then(() => this.#pump(rows.items))
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        clearInterval(this.#renewal);
        this.#pumping = false;
        this.#changes.notify();
      });
  }

  /**
   * For a batch keyed by position: compares each row with the row its journal holds at the same
   * position, before anything is sent. Any difference refuses the run: a position no longer names
   * the payout it named, and sending would pay a row under another row's key.
   */
  async #checkPositions(hashes: string[] | undefined): Promise<void> {
    if (!hashes) return;
    const records = await this.#journal.read(
      this.#batchId,
      hashes.map((_, i) => String(i)),
    );
    const changed = hashes.flatMap((hash, i) => ((records[i]?.rowHash ?? hash) !== hash ? [i] : []));
    if (changed.length > 0) throw new BulkRowsChangedError(changed);
  }

  /**
   * Keeps alive the lease of every row this run holds, whether it is waiting for a send slot,
   * sending, or waiting to be retried (journals with leases), so no other process takes it over.
   * A renewal that answers `false` means the lease was lost (it ended, and another process may have
   * taken the row): the row is no longer held, and is claimed again before this run sends it (a
   * send already on the wire goes on; the journal ignores its outcome if another process holds the row).
   */
  #renewHeldClaims(): void {
    const journal = this.#journal;
    if (!journal.renew) return;
    this.#renewal = setInterval(() => {
      for (const item of this.#held.values())
        journal.renew?.(this.#batchId, item.key, this.#owner, this.#leaseMs, this.#clock()).then(
          (held) => {
            if (held || this.#held.get(item.key) !== item) return;
            this.#held.delete(item.key);
            this.#leaseLost.add(item.key);
          },
          () => {},
        );
    }, this.#leaseMs / 3);
  }

  /** `true` from {@link start} until the rows stop coming: more results may still be queued. */
  get pumping(): boolean {
    return this.#pumping;
  }

  /** Why the run stopped before its end (a journal that cannot be written, a bug), if it did. */
  get failure(): { error: unknown } | undefined {
    return this.#failure;
  }

  /** The oldest result the consumer has not taken yet, if any; taking one makes room for more sends. */
  takeResult(): BulkResult<R> | undefined {
    const result = this.#ready.shift();
    if (result) this.#changes.notify();
    return result;
  }

  /** Resolves at the run's next change: a result, a finished send, an abort, the end. */
  changed(): Promise<void> {
    return this.#changes.wait();
  }

  /** Counts by status, and whether the signal stopped the run. */
  summary(): BulkSummary {
    const { inFlight: _i, concurrency: _c, total: _t, done, ...counts } = this.#progress;
    return { total: done, ...counts, aborted: this.#aborted };
  }

  /**
   * Ends the run: stops new sends (when the consumer leaves the loop early), waits for those in
   * flight to finish and be journaled, then closes the journal. Resolves to the run's error: its
   * failure, or "left before it finished" when it had none (a summary already resolved stays so).
   */
  async close(): Promise<unknown> {
    this.#failure ??= { error: new PaymentsError('The batch was left before it finished.') };
    const failure = this.#failure;
    this.#changes.notify();
    while (this.#inFlight > 0) await this.#changes.wait();
    this.#signal?.removeEventListener('abort', this.#changes.notify);
    clearInterval(this.#renewal);
    await this.#journal.close?.();
    return failure.error;
  }

  #stopped(): boolean {
    return this.#failure !== undefined || this.#signal?.aborted === true;
  }

  /** Stops the run with `error`, unless it has already stopped: the first error is the run's. */
  #fail(error: unknown): void {
    this.#failure ??= { error };
  }

  /** Queues the row's result for the consumer and reports progress. */
  #emit(item: BatchItem<R>, status: BulkStatus, extra: Partial<BulkResult<R>> = {}): void {
    this.#ready.push({
      index: item.index,
      key: item.key,
      row: item.row,
      status,
      idempotencyKey: item.idempotencyKey ?? '',
      attempts: item.attempts,
      ...extra,
    });
    this.#progress.done += 1;
    this.#progress[status] += 1;
    this.#progress.concurrency = this.#limiter.current;
    this.#options.onProgress?.({ ...this.#progress });
    this.#changes.notify();
  }

  /** Journals the row's outcome, then reports it. */
  async #settle(
    item: BatchItem<R>,
    status: BulkOutcomeStatus,
    extra: { payout?: Payout; error?: PaymentsError; retryable?: boolean },
  ): Promise<void> {
    const { retryable, ...result } = extra;
    await this.#journal.settle(this.#batchId, item.key, this.#owner, {
      status,
      at: this.#clock(),
      ...(extra.payout && { payout: { id: extra.payout.id, status: extra.payout.status } }),
      ...(extra.error && { error: errorInfo(extra.error) }),
      ...(retryable && { retryable }),
    });
    this.#held.delete(item.key);
    this.#emit(item, status, { ...result, ...(retryable && { retryable }) });
  }

  /** No answer in the end: the payout may exist. The claim is dropped; a rerun resends the same key. */
  async #giveUp(item: BatchItem<R>, error?: PaymentsError): Promise<void> {
    await this.#journal.release(this.#batchId, item.key, this.#owner, error && errorInfo(error));
    this.#held.delete(item.key);
    this.#emit(item, 'failed', { error });
  }

  /**
   * Derives the row's key, claims the row in the journal, and sends it when the claim is granted.
   * With `retryFailed`, a row journaled as a refusal that created nothing is claimed again under
   * the key of its next generation.
   */
  async #claimAndSend(item: BatchItem<R>): Promise<void> {
    item.idempotencyKey ??= await bulkIdempotencyKey(this.#batchId, item.key);
    const now = this.#clock();
    const request = {
      batchId: this.#batchId,
      rowKey: item.key,
      idempotencyKey: item.idempotencyKey,
      index: item.index,
      owner: this.#owner,
      now,
      leaseMs: this.#leaseMs,
      sentBefore: now - this.#windowMs,
      rowHash: item.rowHash,
    };
    let claim = await this.#journal.claim(request);
    const refused = claim.record?.outcome;
    if (claim.state === 'done' && this.#retryFailed && refused?.status === 'failed' && refused.retryable) {
      const generation = (claim.record?.generation ?? 0) + 1;
      const idempotencyKey = await bulkIdempotencyKey(this.#batchId, item.key, generation);
      claim = await this.#journal.claim({ ...request, retry: { generation, idempotencyKey } });
    }
    const record = claim.record;
    // The key the row was first sent with, as journaled, wins: a rerun must resend exactly it.
    item.idempotencyKey = record?.idempotencyKey ?? item.idempotencyKey;
    if (claim.state === 'claimed') {
      this.#held.set(item.key, item);
      this.#leaseLost.delete(item.key);
      if (this.#options.key === undefined && record?.rowHash !== undefined && record.rowHash !== item.rowHash) {
        // Keyed by position, and the row at this position is not the one journaled (a source read
        // twice that changed in between): never send it under the other row's key.
        await this.#journal.release(this.#batchId, item.key, this.#owner);
        this.#held.delete(item.key);
        throw new BulkRowsChangedError([item.index]);
      }
      // Claimed before, in an earlier run, without an outcome: that send may have created the payout.
      if (item.attempts === 0 && (record?.attempts ?? 1) > 1) item.ambiguous = true;
      return this.#send(item);
    }
    if (claim.state === 'busy') {
      // Another process holds the row: look again once it may have finished or its lease expired.
      item.notBefore = Date.now() + Math.min(1000, this.#leaseMs / 4);
      this.#deferred.push(item);
    } else if (claim.state === 'done') {
      this.#emit(item, 'skipped', {
        record,
        payout: record?.outcome?.payout as Payout | undefined,
        ...(record?.outcome?.retryable && { retryable: true }),
      });
    } else {
      const error = new PaymentsError(
        `Sent at ${new Date(record?.sentAt ?? 0).toISOString()} with no known outcome, past the service's Idempotency-Key retention: not resent. Check whether the payout exists.`,
      );
      error.idempotencyKey = item.idempotencyKey;
      this.#emit(item, 'needs_reconciliation', { error, record });
    }
  }

  /** Sends a claimed row once a send slot is free, and settles, retries or gives up on its answer. */
  async #send(item: BatchItem<R>): Promise<void> {
    const epoch = item.epoch ?? this.#limiter.epoch;
    if (!(await this.#turnToSend())) {
      // Stopped before this send. A row sent before (waiting to be retried) has no known outcome: it
      // is reported, and left resendable. A row never sent is not reported.
      if (item.attempts > 0) return this.#giveUp(item, item.lastError);
      this.#held.delete(item.key);
      return this.#journal.release(this.#batchId, item.key, this.#owner);
    }
    if (this.#leaseLost.delete(item.key)) {
      // Its lease was lost while it waited: another process may have sent it, or be sending it. The
      // send slot goes back, and the row through the claim again.
      this.#progress.inFlight = --this.#sending;
      this.#changes.notify();
      return this.#claimAndSend(item);
    }
    item.attempts += 1;
    try {
      const { data, replayed } = await this.#sender.send(item.row, item.idempotencyKey as string).finally(() => {
        this.#progress.inFlight = --this.#sending;
        this.#changes.notify();
      });
      this.#limiter.succeeded();
      return await this.#settle(item, replayed ? 'replayed' : 'created', { payout: data });
    } catch (error) {
      const end = this.#afterFailedSend(item, error, epoch);
      if (end) return await end;
    }
  }

  /**
   * Waits until a claimed row may be sent: a send slot is free (the concurrency), and the pace and
   * any pause allow it; then takes the slot and answers `true` (`false`: the run stopped). Claims run ahead of sends (a file journal's fsync
   * overlaps the sends in flight; a row another worker already finished is skipped without waiting
   * for the pace), and the rows waiting here take their turns one at a time, in order, so that one
   * timer at most waits for the pace.
   */
  async #turnToSend(): Promise<boolean> {
    const previous = this.#sendTurn;
    let next = noop;
    this.#sendTurn = new Promise<void>((resolve) => {
      next = resolve;
    });
    await previous;
    try {
      while (!this.#stopped()) {
        if (this.#sending >= this.#limiter.current) await this.#changes.wait();
        else {
          const ms = this.#limiter.wait();
          if (ms === 0) {
            this.#sending += 1;
            this.#progress.inFlight = this.#sending;
            return true;
          }
          await this.#changes.wait(ms);
        }
      }
      return false;
    } finally {
      next();
    }
  }

  /**
   * Decides what a failed send of `item` leads to: a retry with the same key (the row goes back to
   * `deferred`; nothing is returned), or the row's end (`settle` or `giveUp`, returned to be
   * awaited). An error that is not the service's answer to this row (a journal that cannot be
   * written, a bug) is thrown again.
   */
  #afterFailedSend(item: BatchItem<R>, error: unknown, epoch: number): Promise<void> | undefined {
    if (!(error instanceof PaymentsError) || error.idempotencyKey === undefined) throw error;
    if (error instanceof IdempotencyConflictError) return this.#settle(item, 'conflict', { error });
    const status = error instanceof APIError ? error.status : 0;
    const throttle = status === 429 || status === 503;
    const waitMs = throttle ? retryDelay(error, item.throttles + 1, this.#options.retryBackoff) : 0;
    if (throttle) this.#limiter.throttled(epoch, waitMs, Date.now(), status === 429);
    if (isRetryable(error)) {
      item.lastError = error;
      // Only a rate limit says the request was not processed; the others leave it unknown.
      if (status !== 429) item.ambiguous = true;
      if ((throttle ? item.throttles++ < MAX_THROTTLES : item.retries++ < this.#maxRetries) && !this.#stopped()) {
        item.notBefore = Date.now() + (throttle ? waitMs : backoffDelay(item.retries, this.#options.retryBackoff));
        this.#deferred.push(item);
        return undefined;
      }
      return this.#giveUp(item, error);
    }
    // A refusal (another 4xx): the service created nothing under this key; it is the row's outcome.
    // It is retryable (under a new key) when every send of the row under this key was refused.
    if (status) return this.#settle(item, 'failed', { error, retryable: REFUSED_BEFORE_CREATION.includes(status) && !item.ambiguous });
    // A 2xx of an unexpected shape: the payout was made but its answer is unreadable.
    return this.#giveUp(item, error);
  }

  /** Starts claiming and sending the row, without waiting for it; counts it in flight until it ends. */
  #launch(item: BatchItem<R>): void {
    item.epoch = this.#limiter.epoch;
    this.#inFlight += 1;
    this.#claimAndSend(item)
      // A journal that cannot be written (or a bug) stops the batch: without it, nothing is safe.
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#inFlight -= 1;
        this.#changes.notify();
      });
  }

  /**
   * Feeds the rows in (retries first, once due), as far as the concurrency, the pace and the
   * consumer allow, until every row has a result or the run stops; then waits for the rows in
   * flight, and on an abort reports the rows left waiting for a retry.
   */
  async #pump(source: AsyncIterator<BatchItem<R>>): Promise<void> {
    let sourceDone = false;
    while (!this.#stopped()) {
      const now = Date.now();
      if (this.#inFlight >= 2 * this.#limiter.current || this.#ready.length >= MAX_READY) {
        await this.#changes.wait();
        continue;
      }
      let item = this.#takeDueRow(now);
      if (!item && !sourceDone) {
        const next = await source.next();
        sourceDone = next.done === true;
        item = next.value;
      }
      if (item?.invalid) this.#emit(item, 'failed', { error: item.invalid });
      else if (item) this.#launch(item);
      else if (sourceDone && this.#inFlight === 0 && this.#deferred.length === 0) break;
      else await this.#changes.wait(this.#untilNextDueRow(now));
    }
    while (this.#inFlight > 0) await this.#changes.wait();
    if (this.#signal?.aborted && !this.#failure) {
      this.#aborted = true;
      // Rows waiting for a retry were sent without a known outcome: reported, and left resendable.
      // Rows never sent are not reported.
      for (const item of this.#deferred.splice(0)) if (item.attempts > 0) await this.#giveUp(item, item.lastError);
    }
    if (!sourceDone) await source.return?.();
  }

  /** Takes the first deferred row whose time has come, if any. */
  #takeDueRow(now: number): BatchItem<R> | undefined {
    const due = this.#deferred.findIndex((d) => d.notBefore <= now);
    return due >= 0 ? this.#deferred.splice(due, 1)[0] : undefined;
  }

  /** Milliseconds until the first deferred row is due; `undefined` when none is deferred. */
  #untilNextDueRow(now: number): number | undefined {
    return this.#deferred.length > 0 ? Math.min(...this.#deferred.map((d) => d.notBefore)) - now : undefined;
  }
}

function noop(): void {}

function errorInfo(error: PaymentsError): BulkErrorInfo {
  return { name: error.name, message: error.message, ...(error instanceof APIError && { status: error.status }) };
}
