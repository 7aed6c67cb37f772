import { PayoutBatch } from '../bulk/batch.js';
import type { BulkRows, CreateManyOptions } from '../bulk/types.js';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request-options.js';
import { APIResource } from '../core/resource.js';
import {
  type Payout,
  type PayoutCreateParams,
  PayoutCreateParamsSchema,
  type PayoutListParams,
  PayoutListParamsSchema,
  PayoutSchema,
} from '../schemas/payout.js';

/** Payouts: money sent out, after an approval step. Live keys of a merchant with approved KYC only. */
export class Payouts extends APIResource {
  /** Requests a payout: `POST /api/v1/payouts`. A sandbox key gets `PermissionDeniedError`. */
  create(params: PayoutCreateParams, options?: RequestOptions): APIPromise<Payout> {
    return this._client.postCreation('/payouts', params, PayoutCreateParamsSchema, PayoutSchema, options);
  }

  /**
   * Creates many payouts, never paying one twice: a sandbox key is refused before anything is sent,
   * every row is checked first, each row's Idempotency-Key derives from `batchId` and the row's key
   * alone, a store (`payments-sdk/stores`) records each claim and outcome (a rerun skips rows already
   * done and resends, with the same key, those without a known outcome), and concurrency adapts to
   * 429 / 503. Iterate the batch for one result per row, or await `batch.summary()`. See
   * docs/bulk-payouts.md.
   *
   * ```ts
   * const batch = client.payouts.createMany(rows, { batchId: 'payroll-2026-11', key: (row) => row.reference, store: fileStore('payroll.store') });
   * for await (const r of batch) if (r.status === 'failed') console.error(r.key, r.error?.message);
   * ```
   */
  createMany<R extends PayoutCreateParams>(rows: BulkRows<R>, options: CreateManyOptions<R>): PayoutBatch<R> {
    return new PayoutBatch(rows, options, {
      maxRetries: this._client.maxRetries,
      mode: () => this._client.mode,
      telemetry: this._client.telemetry,
      // The client's own creation path (validation, headers, error mapping, `replayed`), one attempt
      // per call: the batch retries itself, with the same key, so that it sees every 429 and 503.
      send: async (row, idempotencyKey) => {
        const { data, replayed } = await this.create(row, { idempotencyKey, maxRetries: 0 }).withResponse();
        return { data, replayed };
      },
    });
  }

  /**
   * Reads a payout: `GET /api/v1/payouts/{id}`. `id` is a string, or a number that is a safe
   * integer; pass `payout.id` as it came (an id beyond 2^53 comes as a string of its digits).
   */
  retrieve(id: string | number, options?: RequestOptions): APIPromise<Payout> {
    return this._client.getObject('/payouts/{id}', id, PayoutSchema, options);
  }

  /**
   * Lists payouts, most recent first: `GET /api/v1/payouts`. Filters beyond the documented ones pass
   * through when they are strings, finite numbers, booleans or valid Dates; anything else is an
   * `InvalidParamsError`.
   */
  list(params?: PayoutListParams, options?: RequestOptions): PagePromise<Payout> {
    return this._client.getPaginated('/payouts', params, PayoutListParamsSchema, PayoutSchema, options);
  }
}
