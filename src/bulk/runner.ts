/**
 * The sending half of `payouts.createMany`, started by the batch's first iteration: checks every
 * row, then sends them through the client's own creation path with derived Idempotency-Keys, a
 * journal written ahead of each send and after each outcome, retries with the same key, and
 * adaptive concurrency. Results come out one per row, in completion order.
 */
import { APIConnectionError, APIError, IdempotencyConflictError, PaymentsError } from '../core/errors.js';
import { HOUR_MS } from '../internal/durations.js';
import { backoffDelay, MAX_RETRY_AFTER_MS } from '../internal/http.js';
import { parseRetryAfter } from '../internal/retry-after.js';
import type { Payout, PayoutCreateParams } from '../schemas/payout.js';
import type { BulkProgress, BulkResult, BulkRows, BulkSender, BulkStatus, BulkSummary, CreateManyOptions } from './batch.js';
import { AdaptiveConcurrency } from './concurrency.js';
import { type BulkErrorInfo, type BulkOutcomeStatus, memoryJournal } from './journal.js';
import { bulkIdempotencyKey } from './keys.js';
import { type BatchItem, prepareRows } from './rows.js';

const MAX_THROTTLES = 20;
/** Results waiting for the consumer before sending pauses (a slow `for await` body). */
const MAX_READY = 256;

/** Runs a batch once: yields each result, then settles `outcome` with the summary or the error. */
export async function* runBatch<R extends PayoutCreateParams>(
  rows: BulkRows<R>,
  o: CreateManyOptions<R>,
  sender: BulkSender,
  outcome: { resolve: (summary: BulkSummary) => void; reject: (error: unknown) => void },
): AsyncGenerator<BulkResult<R>> {
  const { batchId, signal } = o;
  const journal = o.journal ?? memoryJournal();
  const clock = o.clock ?? Date.now;
  const limiter = new AdaptiveConcurrency(o.concurrency ?? 4);
  const maxRetries = o.maxRetries ?? sender.maxRetries;
  const leaseMs = o.leaseMs ?? 30_000;
  const windowMs = o.resendWindowMs ?? 23 * HOUR_MS;
  const owner = globalThis.crypto.randomUUID();
  const progress: BulkProgress = {
    done: 0,
    created: 0,
    replayed: 0,
    skipped: 0,
    failed: 0,
    conflict: 0,
    needs_reconciliation: 0,
    inFlight: 0,
    concurrency: limiter.current,
  };
  const ready: BulkResult<R>[] = [];
  const deferred: BatchItem<R>[] = [];
  let failure: { error: unknown } | undefined;
  let aborted = false;
  // Rows being claimed or sent, and sends on the wire.
  let inFlight = 0;
  let sending = 0;

  // One event for "something changed": a result, a finished send, an abort.
  let tick!: () => void;
  let changed!: Promise<void>;
  const notify = () => {
    tick?.();
    changed = new Promise<void>((resolve) => (tick = resolve));
  };
  notify();
  const waitChange = (ms?: number) =>
    ms === undefined ? changed : Promise.race([changed, new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))]);
  signal?.addEventListener('abort', notify);
  const stopped = () => failure !== undefined || signal?.aborted === true;

  const emit = (item: BatchItem<R>, status: BulkStatus, extra: Partial<BulkResult<R>> = {}) => {
    ready.push({
      index: item.index,
      key: item.key,
      row: item.row,
      status,
      idempotencyKey: item.idempotencyKey ?? '',
      attempts: item.attempts,
      ...extra,
    });
    progress.done += 1;
    progress[status] += 1;
    progress.concurrency = limiter.current;
    o.onProgress?.({ ...progress });
    notify();
  };
  const settle = async (item: BatchItem<R>, status: BulkOutcomeStatus, extra: { payout?: Payout; error?: PaymentsError }) => {
    await journal.settle(batchId, item.key, owner, {
      status,
      at: clock(),
      ...(extra.payout && { payout: { id: extra.payout.id, status: extra.payout.status } }),
      ...(extra.error && { error: errorInfo(extra.error) }),
    });
    emit(item, status, extra);
  };
  // No answer in the end: the payout may exist. The claim is dropped; a rerun resends the same key.
  const giveUp = async (item: BatchItem<R>, error?: PaymentsError) => {
    await journal.release(batchId, item.key, owner, error && errorInfo(error));
    emit(item, 'failed', { error });
  };

  const send = async (item: BatchItem<R>) => {
    const epoch = item.epoch ?? limiter.epoch;
    // Claims run ahead of sends (a file journal's fsync overlaps the sends in flight); the sends
    // themselves never exceed the concurrency.
    while (sending >= limiter.current && !stopped()) await waitChange();
    if (stopped()) return journal.release(batchId, item.key, owner);
    sending += 1;
    progress.inFlight = sending;
    item.attempts += 1;
    const renewal =
      journal.renew && setInterval(() => journal.renew?.(batchId, item.key, owner, leaseMs, clock()).catch(() => {}), leaseMs / 3);
    try {
      const { data, replayed } = await sender.send(item.row, item.idempotencyKey as string).finally(() => {
        progress.inFlight = --sending;
        notify();
      });
      limiter.succeeded();
      return await settle(item, replayed ? 'replayed' : 'created', { payout: data });
    } catch (error) {
      if (!(error instanceof PaymentsError) || error.idempotencyKey === undefined) throw error;
      if (error instanceof IdempotencyConflictError) return await settle(item, 'conflict', { error });
      const status = error instanceof APIError ? error.status : 0;
      const throttle = status === 429 || status === 503;
      if (throttle) {
        const seconds = parseRetryAfter((error as APIError).headers.get('retry-after'));
        limiter.throttled(
          epoch,
          seconds === undefined ? backoffDelay(item.throttles + 1, o.retryBackoff) : Math.min(seconds * 1000, MAX_RETRY_AFTER_MS),
        );
      }
      if (throttle || error instanceof APIConnectionError || [408, 500, 502, 504].includes(status)) {
        item.lastError = error;
        if ((throttle ? item.throttles++ < MAX_THROTTLES : item.retries++ < maxRetries) && !stopped()) {
          item.notBefore = Date.now() + (throttle ? 0 : backoffDelay(item.retries, o.retryBackoff));
          deferred.push(item);
          return;
        }
        return await giveUp(item, error);
      }
      // A refusal (another 4xx): the service created nothing under this key; it is the row's outcome.
      if (status) return await settle(item, 'failed', { error });
      // A 2xx of an unexpected shape: the payout was made but its answer is unreadable.
      return await giveUp(item, error);
    } finally {
      if (renewal) clearInterval(renewal);
    }
  };

  const processRow = async (item: BatchItem<R>) => {
    item.idempotencyKey ??= await bulkIdempotencyKey(batchId, item.key);
    const now = clock();
    const claim = await journal.claim({
      batchId,
      rowKey: item.key,
      idempotencyKey: item.idempotencyKey,
      index: item.index,
      owner,
      now,
      leaseMs,
      sentBefore: now - windowMs,
    });
    const record = claim.record;
    // The key the row was first sent with, as journaled, wins: a rerun must resend exactly it.
    item.idempotencyKey = record?.idempotencyKey ?? item.idempotencyKey;
    if (claim.state === 'claimed') return send(item);
    if (claim.state === 'busy') {
      // Another process holds the row: look again once it may have finished or its lease expired.
      item.notBefore = Date.now() + Math.min(1000, leaseMs / 4);
      deferred.push(item);
    } else if (claim.state === 'done') {
      emit(item, 'skipped', { record, payout: record?.outcome?.payout as Payout | undefined });
    } else {
      const error = new PaymentsError(
        `Sent at ${new Date(record?.sentAt ?? 0).toISOString()} with no known outcome, past the service's Idempotency-Key retention: not resent. Check whether the payout exists.`,
      );
      error.idempotencyKey = item.idempotencyKey;
      emit(item, 'needs_reconciliation', { error, record });
    }
  };

  const launch = (item: BatchItem<R>) => {
    item.epoch = limiter.epoch;
    inFlight += 1;
    processRow(item)
      // A journal that cannot be written (or a bug) stops the batch: without it, nothing is safe.
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        inFlight -= 1;
        notify();
      });
  };

  const pump = async (source: AsyncIterator<BatchItem<R>>) => {
    let sourceDone = false;
    while (!stopped()) {
      const now = Date.now();
      if (inFlight >= 2 * limiter.current || ready.length >= MAX_READY) {
        await waitChange();
        continue;
      }
      const due = deferred.findIndex((d) => d.notBefore <= now);
      let item = due >= 0 ? deferred.splice(due, 1)[0] : undefined;
      if (!item && !sourceDone) {
        const next = await source.next();
        sourceDone = next.done === true;
        item = next.value;
      }
      if (item?.invalid) emit(item, 'failed', { error: item.invalid });
      else if (item) {
        // Paused (Retry-After) or paced: the row waits at the head of the queue.
        for (let ms = limiter.wait(); ms > 0 && !stopped(); ms = limiter.wait()) await waitChange(ms);
        if (stopped()) {
          deferred.unshift(item);
          break;
        }
        launch(item);
      } else if (sourceDone && inFlight === 0 && deferred.length === 0) break;
      else await waitChange(deferred.length > 0 ? Math.min(...deferred.map((d) => d.notBefore)) - now : undefined);
    }
    while (inFlight > 0) await waitChange();
    if (signal?.aborted && !failure) {
      aborted = true;
      // Rows waiting for a retry were sent without a known outcome: reported, and left resendable.
      // Rows never sent are not reported.
      for (const item of deferred.splice(0)) if (item.attempts > 0) await giveUp(item, item.lastError);
    }
    if (!sourceDone) await source.return?.();
  };

  try {
    const prepared = await prepareRows(rows, o);
    progress.total = prepared.total;
    let pumping = true;
    const pumped = pump(prepared.items)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        pumping = false;
        notify();
      });
    for (;;) {
      const result = ready.shift();
      if (result) {
        notify();
        yield result;
      } else if (pumping) await waitChange();
      else break;
    }
    await pumped;
    if (failure) throw failure.error;
    const { inFlight: _i, concurrency: _c, total: _t, done, ...counts } = progress;
    outcome.resolve({ total: done, ...counts, aborted });
  } catch (error) {
    outcome.reject(error);
    throw error;
  } finally {
    // A consumer that leaves the loop early stops new sends; those in flight finish and are journaled.
    failure ??= { error: new PaymentsError('The batch was left before it finished.') };
    notify();
    while (inFlight > 0) await waitChange();
    signal?.removeEventListener('abort', notify);
    await journal.close?.();
    outcome.reject(failure.error);
  }
}

function errorInfo(error: PaymentsError): BulkErrorInfo {
  return { name: error.name, message: error.message, ...(error instanceof APIError && { status: error.status }) };
}
