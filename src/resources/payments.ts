import type { APIPromise } from '../core/api-promise.js';
import type { PaymentsClient, RequestOptions } from '../core/client.js';
import { APITimeoutError } from '../core/errors.js';
import type { PagePromise } from '../core/pagination.js';
import { sleep } from '../internal/sleep.js';
import {
  type Payment,
  type PaymentCreateParams,
  PaymentCreateParamsSchema,
  type PaymentListParams,
  PaymentListParamsSchema,
  PaymentSchema,
} from '../schemas/payment.js';

/** Options of {@link Payments.waitForCompletion}. */
export interface WaitForCompletionOptions {
  /** Give up after this many milliseconds with {@link APITimeoutError}. Default 300 000 (5 minutes). */
  timeout?: number;
  /** First wait between polls, growing ×1.5 up to 15 s. Default 2 000. */
  interval?: number;
  /** Stops waiting (with `APIUserAbortError`). */
  signal?: AbortSignal;
}

// A mobile-money payment stays pending until the customer confirms on their phone (service-api.md §3.1).
const UNSETTLED = new Set(['pending', 'processing']);

/** Direct mobile-money charges and payment reads (service-api.md §4.1–§4.3). */
export class Payments {
  readonly #client: PaymentsClient;

  /** @internal */
  constructor(client: PaymentsClient) {
    this.#client = client;
  }

  /**
   * Starts a direct mobile-money charge: `POST /api/v1/payments`. Answers `pending`; the customer
   * confirms on their phone. When `currency` differs from the country's, the service converts and
   * the payment shows the amount charged in the operator's currency (service-api.md §4.1).
   */
  create(params: PaymentCreateParams, options?: RequestOptions): APIPromise<Payment> {
    return this.#client.create('/payments', params, { params: PaymentCreateParamsSchema, result: PaymentSchema, what: 'payments.create' }, options);
  }

  /** Reads a payment: `GET /api/v1/payments/{uuid}`. */
  retrieve(uuid: string, options?: RequestOptions): APIPromise<Payment> {
    return this.#client.retrieve('/payments', uuid, { result: PaymentSchema, what: 'payment' }, options);
  }

  /** Lists payments, most recent first: `GET /api/v1/payments`. Await it for one page, or `for await` over every payment. */
  list(params?: PaymentListParams, options?: RequestOptions): PagePromise<Payment> {
    return this.#client.list('/payments', params, { params: PaymentListParamsSchema, item: PaymentSchema, what: 'payments' }, options);
  }

  /**
   * Polls `GET /api/v1/payments/{uuid}` with a growing interval until the status is neither
   * `pending` nor `processing`, and returns the payment. Throws {@link APITimeoutError} at the deadline.
   * Prefer webhooks in production; this suits scripts and tests.
   */
  async waitForCompletion(uuid: string, options: WaitForCompletionOptions = {}): Promise<Payment> {
    const timeout = options.timeout ?? 300_000;
    let interval = options.interval ?? 2_000;
    const deadline = Date.now() + timeout;
    for (;;) {
      const remaining = deadline - Date.now();
      const payment = await this.retrieve(uuid, { signal: options.signal, timeout: Math.max(1, Math.min(this.#client.timeout, remaining)) });
      if (!UNSETTLED.has(payment.status)) return payment;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new APITimeoutError(`Payment ${uuid} is still ${payment.status} after ${timeout} ms: the customer has not confirmed yet.`);
      }
      await sleep(Math.min(interval, left), options.signal);
      interval = Math.min(interval * 1.5, 15_000);
    }
  }
}
