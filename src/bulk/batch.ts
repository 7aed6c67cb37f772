/**
 * `payouts.createMany`'s batch object: it checks the options at once and starts sending when it is
 * first iterated. Its types are in types.ts.
 */
import * as z from 'zod/mini';
import { PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import { checkParams } from '../internal/validation.js';
import type { PayoutCreateParams } from '../schemas/payout.js';
import { runBatch } from './result-stream.js';
import type { BulkResult, BulkRows, BulkSender, BulkSummary, CreateManyOptions } from './types.js';

/**
 * A bulk payout: iterate it for one {@link BulkResult} per row (in completion order), or await
 * {@link PayoutBatch.summary}. Nothing is sent until one of the two starts it; it runs once.
 */
export class PayoutBatch<R extends PayoutCreateParams = PayoutCreateParams> implements AsyncIterable<BulkResult<R>> {
  /** Starts the batch's one run; `undefined` once it was started. */
  #run: (() => AsyncGenerator<BulkResult<R>>) | undefined;
  /** Settled by the run: its summary, or why it stopped. */
  readonly #finished: Promise<BulkSummary>;

  /** @internal Made by `payouts.createMany`. */
  constructor(rows: BulkRows<R>, options: CreateManyOptions<R>, sender: BulkSender) {
    checkParams(optionsSchema, { options }, 'createMany options');
    let outcome!: { resolve: (summary: BulkSummary) => void; reject: (error: unknown) => void };
    this.#finished = new Promise((resolve, reject) => {
      outcome = { resolve, reject };
    });
    this.#finished.catch(() => {});
    this.#run = () => runBatch(rows, options, sender, outcome);
  }

  /** Starts the batch and yields one result per row, as each completes. A batch can be iterated once. */
  [Symbol.asyncIterator](): AsyncIterator<BulkResult<R>> {
    const run = this.#run;
    if (!run) throw new PaymentsError('This batch already ran: call createMany again to rerun it.');
    this.#run = undefined;
    return run();
  }

  /** Counts by status once every row has a result. Runs the batch when nobody iterates it. */
  async summary(): Promise<BulkSummary> {
    if (this.#run) for await (const _ of this);
    return this.#finished;
  }
}

/** A store of `payments-sdk/stores`, as far as a run needs one: the five calls it makes. */
function isStore(value: unknown): boolean {
  return ['claim', 'renew', 'settle', 'release', 'read'].every((name) => typeof (value as Record<string, unknown>)?.[name] === 'function');
}

/**
 * The options a run reads before it starts; every bad one is named in one error. They sit under
 * `options`, so that each issue's path names the option (`options.concurrency`).
 */
const optionsSchema = z.object({
  options: z.object({
    batchId: z.string().check(z.maxLength(200), z.regex(/\S/, { error: 'must not be empty or blank' })),
    concurrency: z.optional(z.int().check(z.minimum(1), z.maximum(256))),
    maxRetries: z.optional(z.int().check(z.minimum(0), z.maximum(10))),
    leaseMs: z.optional(z.number().check(z.minimum(10))),
    resendWindowMs: z.optional(z.number().check(z.minimum(0), z.maximum(DAY_MS))),
    store: z.optional(z.custom(isStore, { error: 'must be a store of payments-sdk/stores (claim, renew, settle, release, read)' })),
  }),
});
