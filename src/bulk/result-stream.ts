/**
 * The sending half of `payouts.createMany`, started by the batch's first iteration: refuses a
 * sandbox key, checks every row, then sends them through the client's own creation path with
 * derived Idempotency-Keys, the store written ahead of each send and after each outcome, retries
 * with the same key, and adaptive concurrency (send-engine.ts). Results come out one per row, in
 * completion order.
 */
import { PaymentsError } from '../core/errors.js';
import { errorTypeOf } from '../core/telemetry.js';
import type { PayoutCreateParams } from '../schemas/payout.js';
import { memoryStore } from '../stores/memory.js';
import { prepareRows } from './rows.js';
import { BatchRun } from './send-engine.js';
import type { BulkResult, BulkRows, BulkSender, BulkSummary, CreateManyOptions } from './types.js';

/** Runs a batch once: yields each result, then settles `outcome` with the summary or the error. */
export async function* runBatch<R extends PayoutCreateParams>(
  rows: BulkRows<R>,
  o: CreateManyOptions<R>,
  sender: BulkSender,
  outcome: { resolve: (summary: BulkSummary) => void; reject: (error: unknown) => void },
): AsyncGenerator<BulkResult<R>> {
  const run = new BatchRun(o, sender, o.store ?? memoryStore());
  // --- telemetry wiring: one observed run, its sends inside it, one report per row ---
  const observer = sender.telemetry?.onBulk?.({ batchId: o.batchId });
  let finished = false;
  let failed: unknown;
  // --- end telemetry wiring ---
  try {
    // Payouts are live-only: a sandbox key is refused before any row is read, claimed or sent. A key
    // of unknown kind (a key function not read yet) goes on: the service refuses a sandbox key with
    // a 403, a refusal that creates nothing.
    if (sender.mode() === 'sandbox')
      throw new PaymentsError("Payouts need a live key; this client's key is a sandbox key. Nothing was sent.");
    const prepared = await prepareRows(rows, o);
    const sent = observer ? observer.run(() => run.start(prepared)) : run.start(prepared);
    for await (const result of run.results()) {
      observer?.onRow(result.status);
      yield result;
    }
    await sent;
    outcome.resolve(run.summary());
    finished = true;
  } catch (error) {
    failed = error;
    outcome.reject(error);
    throw error;
  } finally {
    // A consumer that leaves the loop early stops new sends; those in flight finish and are recorded.
    outcome.reject(await run.close());
    // --- telemetry wiring ---
    if (observer) {
      const { total: _total, aborted, ...counts } = run.summary();
      observer.end({
        rows: counts,
        aborted: aborted || (!finished && failed === undefined),
        ...(failed !== undefined && { errorType: errorTypeOf(failed) }),
      });
    }
    // --- end telemetry wiring ---
  }
}
