/**
 * `payouts.createMany`'s batch object: it checks the options at once and starts sending when it is
 * first iterated. Its types are in types.ts.
 */
import { InvalidParamsError, PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';
import type { PayoutCreateParams } from '../schemas/payout.js';
import { runBatch } from './result-stream.js';
import type { BulkResult, BulkRows, BulkSender, BulkSummary, CreateManyOptions } from './types.js';

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
  const { batchId: id, concurrency: c = 1, maxRetries: m = 0, leaseMs: l = 10, resendWindowMs: w = 0, store: st } = o ?? {};
  const bad = Object.entries({
    batchId: [typeof id === 'string' && id.trim() !== '' && id.length <= 200, 'a non-empty string of at most 200 characters'],
    concurrency: [Number.isInteger(c) && c >= 1 && c <= 256, 'an integer from 1 to 256'],
    maxRetries: [Number.isInteger(m) && m >= 0 && m <= 10, 'an integer from 0 to 10'],
    leaseMs: [Number.isFinite(l) && l >= 10, 'at least 10 ms'],
    resendWindowMs: [w >= 0 && w <= DAY_MS, 'from 0 to 24 hours'],
    store: [
      st === undefined ||
        ['claim', 'renew', 'settle', 'release', 'read'].every(
          (name) => typeof (st as unknown as Record<string, unknown>)?.[name] === 'function',
        ),
      'a store of payments-sdk/stores (claim, renew, settle, release, read)',
    ],
  } as Record<string, [boolean, string]>).filter(([, [ok]]) => !ok);
  if (bad.length > 0)
    throw new InvalidParamsError(
      bad.map(([name, [, what]]) => ({ path: ['options', name], message: `must be ${what}` })),
      'createMany options',
    );
}
