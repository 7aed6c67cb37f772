import type { PaymentsClient, RequestOptions } from '../client.js';
import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import {
  type Payout,
  type PayoutCreateParams,
  PayoutCreateParamsSchema,
  type PayoutListParams,
  PayoutListParamsSchema,
  PayoutSchema,
} from '../schemas/payout.js';

/** Payouts: money sent out, after an approval step. Live keys of a merchant with approved KYC only. */
export class Payouts {
  readonly #client: PaymentsClient;

  /** @internal */
  constructor(client: PaymentsClient) {
    this.#client = client;
  }

  /** Requests a payout: `POST /api/v1/payouts`. A sandbox key gets `PermissionDeniedError`. */
  create(params: PayoutCreateParams, options?: RequestOptions): APIPromise<Payout> {
    return this.#client.create(
      '/payouts',
      params,
      { params: PayoutCreateParamsSchema, result: PayoutSchema, label: 'payouts.create' },
      options,
    );
  }

  /**
   * Reads a payout: `GET /api/v1/payouts/{id}`. `id` is a string, or a number that is a safe
   * integer; pass `payout.id` as it came (an id beyond 2^53 comes as a string of its digits).
   */
  retrieve(id: string | number, options?: RequestOptions): APIPromise<Payout> {
    return this.#client.retrieve('/payouts', id, { result: PayoutSchema, label: 'payout' }, options);
  }

  /**
   * Lists payouts, most recent first: `GET /api/v1/payouts`. Filters beyond the documented ones pass
   * through when they are strings, finite numbers, booleans or valid Dates; anything else is an
   * `InvalidParamsError`.
   */
  list(params?: PayoutListParams, options?: RequestOptions): PagePromise<Payout> {
    return this.#client.list('/payouts', params, { params: PayoutListParamsSchema, item: PayoutSchema, label: 'payouts' }, options);
  }
}
