/**
 * One run of a batch, the engine of `payouts.createMany`: claims rows in the store in groups, sends
 * each claimed row through the client's own creation path with its one Idempotency-Key, retries with
 * the same key, adapts concurrency and pace to 429 / 503, and queues one result per row, in
 * completion order, for the generator that hands them to the consumer (result-stream.ts).
 *
 * What the store holds per row (`storeKey('bulk', batchId, rowKey)`): `data` of the first claim
 * (`{ index, rowHash, idempotencyKey }`); once there is an outcome (201, 200, 409), the settled
 * `result` (`{ status, payout?: { id, status }, at }`); otherwise the `note` of the last release:
 * `{ uncertain: true, error }` once any send had no known outcome (kept for good), `{ refused: true,
 * error }` when the last send was refused before anything was created.
 */
import { APIError, IdempotencyConflictError, PaymentsError } from '../core/errors.js';
import { HOUR_MS } from '../internal/durations.js';
import { isRetryable, retryDelay } from '../internal/transport.js';
import type { Payout, PayoutCreateParams } from '../schemas/payout.js';
import { processNow } from '../stores/clock.js';
import { type Store, type StoreClaim, type StoreJsonObject, type StoreRecord, storeKey } from '../stores/store.js';
import { ChangeSignal } from './change-signal.js';
import { AdaptiveConcurrency } from './concurrency.js';
import { bulkIdempotencyKey, rowHash } from './keys.js';
import { type BatchItem, batchError, type PreparedRows, type SendNote } from './rows.js';
import { BulkRowsChangedError } from './rows-changed-error.js';
import type { BulkProgress, BulkResult, BulkSender, BulkStatus, BulkSummary, CreateManyOptions } from './types.js';

/** Throttles (429, 503) of one row waited out before it gives up. */
const MAX_THROTTLES = 20;
/** Results waiting for the consumer before sending pauses (a slow `for await` body). */
const MAX_READY = 256;
/** Rows claimed in one store call: a few times the concurrency, within these bounds. */
const GROUP_MIN = 8;
const GROUP_MAX = 64;
/**
 * Refusals that prove the service created nothing under the key: a malformed request, a key that is
 * not accepted or lacks the right (a sandbox key, KYC not approved), an invalid or refused payout.
 * 409 is not one of them: the key is taken by another payout.
 */
const REFUSED_BEFORE_CREATION = [400, 401, 403, 422];

/**
 * The state of one run and the steps that move it. `pump` claims rows in groups as the concurrency,
 * the pace and the consumer allow; each claimed row goes through `afterClaim` (skipped, deferred,
 * reported, or sent), then `send`, and ends in `settle` (an outcome, recorded), in `released` (no
 * outcome: the claim is dropped with a note), or back in `deferred` to be claimed again (a retry with
 * the same key, another worker's lease, a lease lost). Every step that moves the state notifies
 * `changes`, which the waiting loops (`pump`, `send`, the consumer's) wake on.
 */
export class BatchRun<R extends PayoutCreateParams> {
  readonly #options: CreateManyOptions<R>;
  readonly #sender: BulkSender;
  readonly #store: Store<unknown, unknown>;
  readonly #limiter: AdaptiveConcurrency;
  readonly #leaseMs: number;
  readonly #groupSize: number;
  /**
   * Rows this run holds a claim on (waiting for a send slot, sending, or waiting for a retry), by row
   * key. A row whose renewal answered that its lease was lost leaves it, and is claimed again before
   * it may be sent.
   */
  readonly #held = new Map<string, BatchItem<R>>();
  #renewal: ReturnType<typeof setInterval> | undefined;
  /** Identifies this run to the store (one per `createMany` call). */
  readonly #owner: string;
  /** Rows with a result so far (`done`), by status, and the rows of the batch when known (`total`). */
  readonly #progress: Omit<BulkProgress, 'inFlight' | 'concurrency'> = {
    done: 0,
    created: 0,
    replayed: 0,
    skipped: 0,
    failed: 0,
    conflict: 0,
    needs_reconciliation: 0,
  };
  /** Results the consumer has not taken yet, oldest first. */
  readonly #ready: BulkResult<R>[] = [];
  /** Rows waiting to be claimed again (a retry, another worker's lease), each until its `notBefore`. */
  readonly #deferred: BatchItem<R>[] = [];
  readonly #changes = new ChangeSignal();
  /** Why the run stopped before its end: the first error wins. */
  #failure: { error: unknown } | undefined;
  #aborted = false;
  #pumping = false;
  /** Rows taken into a claim and not yet ended or deferred. */
  #inFlight = 0;
  /** Claimed rows waiting for a send slot. */
  #queued = 0;
  /** Sends on the wire. */
  #sending = 0;
  /** Resolves when the row before in line to send has its slot (see `#turnToSend`). */
  #sendTurn: Promise<void> = Promise.resolve();

  /** Sets up a run of `options` over `sender` and `store`; nothing is read or sent before {@link start}. */
  constructor(options: CreateManyOptions<R>, sender: BulkSender, store: Store<unknown, unknown>) {
    this.#options = options;
    this.#sender = sender;
    this.#store = store;
    const concurrency = options.concurrency ?? 4;
    this.#limiter = new AdaptiveConcurrency(concurrency);
    this.#groupSize = Math.min(GROUP_MAX, Math.max(GROUP_MIN, 4 * concurrency));
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#owner = globalThis.crypto.randomUUID();
    this.#options.signal?.addEventListener('abort', this.#changes.notify);
  }

  /**
   * Starts sending the rows. Resolves once every row started has a result, or the run stopped; never
   * rejects: an error stops the run, and {@link results} throws it.
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

  /** The store key of row `rowKey`. */
  #keyOf(rowKey: string): string {
    return storeKey('bulk', this.#options.batchId, rowKey);
  }

  /**
   * For a batch keyed by position: compares each row with the row its store holds at the same
   * position, before anything is sent. Any difference refuses the run: a position no longer names
   * the payout it named, and sending would pay a row under another row's key.
   */
  async #checkPositions(hashes: string[] | undefined): Promise<void> {
    if (!hashes) return;
    const changed: number[] = [];
    for (let from = 0; from < hashes.length; from += 500) {
      const page = hashes.slice(from, from + 500);
      const records = await this.#store.read(page.map((_, i) => this.#keyOf(String(from + i))));
      page.forEach((hash, i) => {
        const held = records[i]?.data?.rowHash;
        if (typeof held === 'string' && held !== hash) changed.push(from + i);
      });
    }
    if (changed.length > 0) throw new BulkRowsChangedError(changed);
  }

  /**
   * Keeps alive the lease of every row this run holds, whether it is waiting for a send slot,
   * sending, or waiting to be retried, so no other worker takes it over. A renewal that answers
   * `false` means the lease was lost (it ended, and another worker may have taken the row): the row
   * is no longer held, and is claimed again before this run sends it (a send already on the wire goes
   * on; the store ignores its outcome if another worker holds the row). A renewal that answers `true`
   * moves the row's claim time (on this worker's clock, read before the renewal was asked).
   */
  #renewHeldClaims(): void {
    this.#renewal = setInterval(() => {
      for (const item of this.#held.values()) {
        if (item.renewing) continue;
        item.renewing = true;
        this.#renew(item)
          .then((held) => {
            if (!held && this.#held.get(item.key) === item) this.#held.delete(item.key);
          }, noop)
          .finally(() => {
            item.renewing = false;
          });
      }
    }, this.#leaseMs / 3);
  }

  /**
   * Renews the row's claim; `true` when it is still this run's. A renewal granted moves the row's
   * claim time to when it was asked (on this worker's clock, read before the request). A renew that
   * throws at once becomes a rejection.
   */
  async #renew(item: BatchItem<R>): Promise<boolean> {
    const asked = processNow();
    const held = await this.#store.renew(this.#keyOf(item.key), this.#owner, this.#leaseMs);
    if (held) item.claimedAt = Math.max(item.claimedAt ?? 0, asked);
    return held;
  }

  /**
   * Yields each result as the consumer takes it (taking one makes room for more sends), until the
   * run started by {@link start} ends; then throws why it stopped before its end (a store that
   * cannot be written, a bug), if it did.
   */
  async *results(): AsyncGenerator<BulkResult<R>> {
    for (;;) {
      const result = this.#ready.shift();
      if (result) {
        this.#changes.notify();
        yield result;
      } else if (this.#pumping) await this.#changes.wait();
      else break;
    }
    if (this.#failure) throw this.#failure.error;
  }

  /** Counts by status, and whether the signal stopped the run. */
  summary(): BulkSummary {
    const { total: _t, done, ...counts } = this.#progress;
    return { total: done, ...counts, aborted: this.#aborted };
  }

  /**
   * Ends the run: stops new sends (when the consumer leaves the loop early), and waits for those in
   * flight to finish and be recorded. Resolves to the run's error: its failure, or "left before it
   * finished" when it had none (a summary already resolved stays so). The store stays open: it is
   * the caller's.
   */
  async close(): Promise<unknown> {
    this.#failure ??= { error: new PaymentsError('The batch was left before it finished.') };
    const failure = this.#failure;
    this.#changes.notify();
    while (this.#inFlight > 0) await this.#changes.wait();
    this.#options.signal?.removeEventListener('abort', this.#changes.notify);
    clearInterval(this.#renewal);
    return failure.error;
  }

  #stopped(): boolean {
    return this.#failure !== undefined || this.#options.signal?.aborted === true;
  }

  /** Stops the run with `error`, unless it has already stopped: the first error is the run's. */
  #fail(error: unknown): void {
    this.#failure ??= { error };
  }

  /**
   * Queues the row's result for the consumer and reports progress. `recorded`: whether the store
   * recorded the row's end (`false`: another worker had taken the row over, see `leaseLost`).
   */
  #emit(item: BatchItem<R>, status: BulkStatus, extra: Partial<BulkResult<R>> = {}, recorded = true): void {
    this.#ready.push({
      index: item.index,
      key: item.key,
      row: item.row,
      status,
      idempotencyKey: item.idempotencyKey ?? '',
      attempts: item.attempts,
      ...extra,
      ...(!recorded && { leaseLost: true }),
    });
    this.#progress.done += 1;
    this.#progress[status] += 1;
    this.#options.onProgress?.({ ...this.#progress, inFlight: this.#sending, concurrency: this.#limiter.current });
    this.#changes.notify();
  }

  /** Records the row's outcome (201, 200, 409) for good, then reports it. */
  async #settle(
    item: BatchItem<R>,
    status: 'created' | 'replayed' | 'conflict',
    extra: { payout?: Payout; error?: PaymentsError },
  ): Promise<void> {
    const payout = extra.payout && storedPayout(extra.payout);
    const result: StoreJsonObject = {
      status,
      at: Date.now(),
      ...(payout && { payout }),
      ...(extra.error && { error: errorInfo(extra.error) }),
    };
    const recorded = await this.#store.settle(this.#keyOf(item.key), this.#owner, result);
    this.#held.delete(item.key);
    this.#emit(item, status, extra, recorded);
  }

  /**
   * Ends the row's claim without an outcome, leaving `note` for later runs, then reports the row as
   * `status` (when given), `leaseLost` if another worker had taken it.
   */
  async #release(item: BatchItem<R>, note: SendNote, status?: BulkStatus, extra?: Partial<BulkResult<R>>): Promise<void> {
    this.#held.delete(item.key);
    const recorded = await this.#store.release(this.#keyOf(item.key), this.#owner, note);
    if (status) this.#emit(item, status, extra, recorded);
  }

  /**
   * The service refused the row before creating anything (400, 401, 403, 422): the claim is dropped
   * with `refused` (and `uncertain`, when an earlier send had no known outcome). When the note the
   * row was claimed with says an earlier send was refused too (sent again with `retryFailed`), the
   * message says that the service keeps refusing this key.
   */
  async #refused(item: BatchItem<R>, error: PaymentsError): Promise<void> {
    if (item.note.refused)
      error.message +=
        ' The service refused this row again under the same Idempotency-Key: it keeps refusing this key. ' +
        'Sending the row anyway needs a new batch id, the only way to get a new key; check first that no payout was made for it.';
    const note: SendNote = { ...(item.ambiguous && { uncertain: true }), refused: true, error: errorInfo(error) };
    return this.#release(item, note, 'failed', { error, retryable: !item.ambiguous });
  }

  /** Claims a group of rows in one store call, then handles each answer. */
  async #claimGroup(items: BatchItem<R>[]): Promise<void> {
    for (const item of items) {
      item.idempotencyKey ??= await bulkIdempotencyKey(this.#options.batchId, item.key);
      item.rowHash ??= await rowHash(item.row);
    }
    // The claim's time on this worker's clock, read before the request: a duration from it is never
    // shorter than the lease the store granted. The clock counts the time a suspended machine slept
    // (the monotonic one does not), so a row held across a suspend is renewed before it is sent.
    const asked = processNow();
    const claims = await this.#store.claim(
      items.map((item) => ({
        key: this.#keyOf(item.key),
        owner: this.#owner,
        leaseMs: this.#leaseMs,
        data: { index: item.index, rowHash: item.rowHash as string, idempotencyKey: item.idempotencyKey as string },
      })),
    );
    if (claims.length !== items.length)
      throw new PaymentsError(`The ${this.#store.kind} store answered ${claims.length} claims for ${items.length} rows.`);
    items.forEach((item, i) => {
      this.#track(this.#afterClaim(item, claims[i] as StoreClaim, asked));
    });
  }

  /** Runs one row's next steps without waiting for them; counts the row in flight until they end. */
  #track(steps: Promise<void>): void {
    steps
      // A store that cannot be written (or a bug) stops the batch: without it, nothing is safe.
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#inFlight -= 1;
        this.#changes.notify();
      });
  }

  /** Puts the row back to be claimed again after `delayMs`. */
  #defer(item: BatchItem<R>, delayMs: number): void {
    item.notBefore = Date.now() + delayMs;
    this.#deferred.push(item);
  }

  /**
   * What a claim's answer leads to: a row settled earlier is `skipped`; a row another worker holds
   * is looked at again later; a claimed row is sent, unless what its earlier sends left says not to:
   * a send without a known outcome too long ago (by the store's clock) for the service to still know
   * its key is `needs_reconciliation`, a refusal is `failed` (sent again with `retryFailed`).
   */
  async #afterClaim(item: BatchItem<R>, claim: StoreClaim, asked: number): Promise<void> {
    const record = claim.record;
    if (claim.state === 'settled') return this.#skip(item, record);
    if (claim.state === 'busy') {
      // Another worker holds the row: look again once it may have finished or its lease expired.
      this.#held.delete(item.key);
      return this.#defer(item, Math.min(1000, this.#leaseMs / 4));
    }
    this.#held.set(item.key, item);
    item.claimedAt = asked;
    const heldHash = record.data?.rowHash;
    const earlier: SendNote = record.note ?? {};
    if (this.#options.key === undefined && typeof heldHash === 'string' && heldHash !== item.rowHash) {
      // Keyed by position, and the row at this position is not the one recorded (a source read
      // twice that changed in between): never send it under the other row's key.
      await this.#release(item, earlier);
      throw new BulkRowsChangedError([item.index], true);
    }
    // A claim that ended without a release (a worker killed, or frozen past its lease) may have sent.
    if (earlier.uncertain || (record.claims > 1 && record.note === undefined && item.attempts === 0)) item.ambiguous = true;
    if (item.ambiguous && record.age >= (this.#options.resendWindowMs ?? 23 * HOUR_MS)) {
      const error = new PaymentsError(
        `First claimed ${(record.age / HOUR_MS).toFixed(1)} hours ago (by the store's clock) and sent without a known outcome: ` +
          "too long ago for the service's 24-hour Idempotency-Key retention, so it is not resent. Check whether the payout exists.",
      );
      error.idempotencyKey = item.idempotencyKey;
      return this.#release(item, { ...earlier, uncertain: true }, 'needs_reconciliation', { error, record });
    }
    if (item.attempts === 0 && earlier.refused && this.#options.retryFailed !== true) {
      const error = earlierRefusal(earlier, item.idempotencyKey as string);
      return this.#release(item, earlier, 'failed', { error, retryable: !item.ambiguous, record });
    }
    item.note = earlier;
    return this.#send(item);
  }

  /** Reports a row settled by an earlier run (or another worker) as `skipped`, with its recorded payout. */
  #skip(item: BatchItem<R>, record: StoreRecord): void {
    this.#held.delete(item.key);
    const payout = record.result?.payout;
    this.#emit(item, 'skipped', { record, ...(payout && { payout: payout as unknown as Payout }) });
  }

  /**
   * Sends a claimed row once a send slot is free, and settles, retries or gives up on its answer.
   * The request leaves only under a live claim: when the time since the claim (or its last renewal)
   * was granted, on this worker's clock (which counts a suspend), nears the lease (a worker frozen
   * or suspended, or a long wait for the pace), the claim is renewed first, and the send dropped if
   * the renewal fails.
   */
  async #send(item: BatchItem<R>): Promise<void> {
    const epoch = this.#limiter.epoch;
    this.#queued += 1;
    const turn = await this.#turnToSend().finally(() => {
      this.#queued -= 1;
    });
    if (!turn) {
      // Stopped before this send. A row sent before (waiting to be retried) has no known outcome: it
      // is reported, and left resendable. A row never sent is not reported.
      return item.attempts > 0 ? this.#giveUp(item) : this.#release(item, item.note);
    }
    // The slot goes back once the answer has reached the limiter (a throttle pauses the next send),
    // before the row's outcome is recorded. A renewal that fails (a store that cannot be written)
    // goes through #afterFailedSend, which throws it again.
    try {
      // No longer held: a renewal answered that its lease was lost.
      let live = this.#held.has(item.key);
      if (live && processNow() - (item.claimedAt ?? 0) > this.#leaseMs / 2) live = await this.#renew(item);
      if (!live) {
        // Its lease was lost while it waited: another worker may have sent it, or be sending it. The
        // send slot goes back, and the row through the claim again.
        this.#held.delete(item.key);
        return this.#defer(item, 0);
      }
      item.attempts += 1;
      const { data, replayed } = await this.#sender.send(item.row, item.idempotencyKey as string);
      this.#limiter.succeeded();
      return this.#settle(item, replayed ? 'replayed' : 'created', { payout: data });
    } catch (error) {
      return this.#afterFailedSend(item, error, epoch);
    } finally {
      this.#giveBackSlot();
    }
  }

  #giveBackSlot(): void {
    this.#sending -= 1;
    this.#changes.notify();
  }

  /**
   * A row sent without a known outcome in the end (retries spent, the run stopped while it waited
   * for one, or an answer that proves nothing): reported `failed`, its claim dropped with what is
   * known. Once a send may have created the payout (no answer, a 5xx, an unreadable 2xx), the note
   * says `uncertain`, kept for good: a rerun resends the same key while the service still knows it.
   * A row only ever rate-limited (429: not processed) keeps the note it had.
   */
  async #giveUp(item: BatchItem<R>, error = item.lastError): Promise<void> {
    const note = item.ambiguous ? { uncertain: true as const, ...(error && { error: errorInfo(error) }) } : item.note;
    return this.#release(item, note, 'failed', { ...(error && { error }) });
  }

  /**
   * Waits until a claimed row may be sent: a send slot is free (the concurrency), and the pace and
   * any pause allow it; then takes the slot and answers `true` (`false`: the run stopped). Claims run
   * ahead of sends (a row another worker already finished is skipped without waiting for the pace),
   * and the rows waiting here take their turns one at a time, in order, so that one timer at most
   * waits for the pace.
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
   * Decides what a failed send of `item` leads to: a retry with the same key after the answer's
   * `Retry-After` or the backoff, as the client's own retries wait (the row goes back to `deferred`,
   * still held; nothing is returned), or the row's end (returned to be awaited). An error
   * that is not the service's answer to this row (a store that cannot be written, a bug) is thrown again.
   */
  #afterFailedSend(item: BatchItem<R>, error: unknown, epoch: number): Promise<void> | undefined {
    if (!(error instanceof PaymentsError) || error.idempotencyKey === undefined) throw error;
    if (error instanceof IdempotencyConflictError) return this.#settle(item, 'conflict', { error });
    const status = error instanceof APIError ? error.status : 0;
    if (isRetryable(error)) {
      item.lastError = error;
      // Only a rate limit says the request was not processed; the others leave it unknown.
      if (status !== 429) item.ambiguous = true;
      const throttle = status === 429 || status === 503;
      const retry = throttle ? ++item.throttles : ++item.retries;
      const waitMs = retryDelay(error, retry, this.#options.retryBackoff);
      if (throttle) this.#limiter.throttled(epoch, waitMs, Date.now(), status === 429);
      if (retry <= (throttle ? MAX_THROTTLES : (this.#options.maxRetries ?? this.#sender.maxRetries)) && !this.#stopped()) {
        this.#defer(item, waitMs);
        return undefined;
      }
      return this.#giveUp(item);
    }
    if (REFUSED_BEFORE_CREATION.includes(status)) return this.#refused(item, error);
    // Another answer (another 4xx, a 2xx of an unexpected shape): whether a payout was made is unknown.
    item.ambiguous = true;
    return this.#giveUp(item, error);
  }

  /**
   * Claims the rows in groups (rows due to be claimed again first), as far as the concurrency, the
   * pace and the consumer allow, until every row has a result or the run stops; then waits for the
   * rows in flight, and on an abort reports the rows left waiting for a retry.
   */
  async #pump(source: AsyncIterator<BatchItem<R>>): Promise<void> {
    let sourceDone = false;
    while (!this.#stopped()) {
      const now = Date.now();
      // Enough claimed rows wait for a send slot, or enough results for the consumer.
      if (this.#queued >= this.#limiter.current || this.#ready.length >= MAX_READY || this.#inFlight >= 4 * this.#groupSize) {
        await this.#changes.wait(this.#untilNextDueRow(now));
        continue;
      }
      const group: BatchItem<R>[] = [];
      while (group.length < this.#groupSize) {
        let item = this.#takeDueRow(now);
        if (!item && !sourceDone) {
          const next = await source.next();
          sourceDone = next.done === true;
          item = next.value;
        }
        if (!item) break;
        if (item.invalid) this.#emit(item, 'failed', { error: batchError([item.invalid]) });
        else group.push(item);
      }
      if (group.length > 0) {
        this.#inFlight += group.length;
        try {
          await this.#claimGroup(group);
        } catch (error) {
          this.#inFlight -= group.length;
          throw error;
        }
      } else if (sourceDone && this.#inFlight === 0 && this.#deferred.length === 0) break;
      else await this.#changes.wait(this.#untilNextDueRow(now));
    }
    while (this.#inFlight > 0) await this.#changes.wait();
    if (this.#options.signal?.aborted && !this.#failure) {
      this.#aborted = true;
      // Rows waiting for a retry were sent without a known outcome: reported, and left resendable.
      // Rows never sent are not reported.
      for (const item of this.#deferred.splice(0)) if (item.attempts > 0) await this.#giveUp(item);
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

/** A failure, summarised for the store (the error object itself is not kept): its class, message and status. */
function errorInfo(error: PaymentsError): StoreJsonObject {
  return { name: error.name, message: error.message, ...(error instanceof APIError && { status: error.status }) };
}

/** The payout as a settled row's result keeps it: its id and status, those it has. */
function storedPayout({ id, status }: Payout): StoreJsonObject {
  return { ...(id !== undefined && { id }), ...(status !== undefined && { status }) };
}

/** The error of a row an earlier run saw refused, reported without a send. */
function earlierRefusal(note: SendNote, idempotencyKey: string): PaymentsError {
  const { name, status, message } = note.error ?? {};
  const refusal = new PaymentsError(
    `An earlier run's send of this row was refused before anything was created (${name}${status === undefined ? '' : ` ${status}`}: ${message}). ` +
      'Once the cause is fixed, rerun with retryFailed to send it again under the same Idempotency-Key.',
  );
  refusal.idempotencyKey = idempotencyKey;
  return refusal;
}
