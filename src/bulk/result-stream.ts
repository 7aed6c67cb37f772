/**
 * The sending half of `payouts.createMany`, started by the batch's first iteration: checks every
 * row, then sends them through the client's own creation path with derived Idempotency-Keys, a
 * journal written ahead of each send and after each outcome, retries with the same key, and
 * adaptive concurrency (send-engine.ts). Results come out one per row, in completion order.
 */
import type { PayoutCreateParams } from '../schemas/payout.js';
import type { BulkResult, BulkRows, BulkSender, BulkSummary, CreateManyOptions } from './batch.js';
import { prepareRows } from './rows.js';
import { BatchRun } from './send-engine.js';

/** Runs a batch once: yields each result, then settles `outcome` with the summary or the error. */
export async function* runBatch<R extends PayoutCreateParams>(
  rows: BulkRows<R>,
  o: CreateManyOptions<R>,
  sender: BulkSender,
  outcome: { resolve: (summary: BulkSummary) => void; reject: (error: unknown) => void },
): AsyncGenerator<BulkResult<R>> {
  const run = new BatchRun(o, sender);
  try {
    const sent = run.start(await prepareRows(rows, o));
    for (;;) {
      const result = run.takeResult();
      if (result) yield result;
      else if (run.pumping) await run.changed();
      else break;
    }
    await sent;
    if (run.failure) throw run.failure.error;
    outcome.resolve(run.summary());
  } catch (error) {
    outcome.reject(error);
    throw error;
  } finally {
    // A consumer that leaves the loop early stops new sends; those in flight finish and are journaled.
    outcome.reject(await run.close());
  }
}
