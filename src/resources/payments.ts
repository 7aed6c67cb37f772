import * as z from 'zod/mini';
import { APIPromise, type WithResponse } from '../core/api-promise.js';
import { APITimeoutError, APIUserAbortError } from '../core/errors.js';
import type { PagePromise } from '../core/pagination.js';
import { type ReconcileFinding, type ReconcileOptions, reconcilePayments, UNSETTLED_STATUSES } from '../core/reconcile.js';
import type { RequestOptions } from '../core/request-options.js';
import { APIResource } from '../core/resource.js';
import { sleep } from '../internal/sleep.js';
import { checkParams } from '../internal/validation.js';
import {
  type Payment,
  type PaymentCreateParams,
  PaymentCreateParamsSchema,
  type PaymentListParams,
  PaymentListParamsSchema,
  PaymentSchema,
} from '../schemas/payment.js';
import { milliseconds } from '../schemas/primitives.js';

/** Options of {@link Payments.waitForCompletion}. */
export interface WaitForCompletionOptions {
  /** Give up after this many milliseconds with {@link APITimeoutError}. Default 300 000 (5 minutes). */
  timeout?: number;
  /** First wait between polls in milliseconds, growing ×1.5 up to 15 s. Default 2 000. */
  interval?: number;
  /** Stops waiting (with `APIUserAbortError`). */
  signal?: AbortSignal;
}

const MAX_INTERVAL_MS = 15_000;

// An interval of 0 would never grow (0 × 1.5): a busy loop of requests until the deadline.
const WaitForCompletionOptionsSchema = z.looseObject({ interval: z.optional(milliseconds), timeout: z.optional(milliseconds) });

/** Direct mobile-money charges and payment reads. */
export class Payments extends APIResource {
  /**
   * Starts a direct mobile-money charge: `POST /api/v1/payments`. Answers `pending`; the customer
   * confirms on their phone. When `currency` differs from the country's, the service converts and
   * the payment shows the amount charged in the operator's currency.
   */
  create(params: PaymentCreateParams, options?: RequestOptions): APIPromise<Payment> {
    return this._client.postCreation('/payments', params, PaymentCreateParamsSchema, PaymentSchema, options);
  }

  /** Reads a payment: `GET /api/v1/payments/{uuid}`. */
  retrieve(uuid: string, options?: RequestOptions): APIPromise<Payment> {
    return this._client.getObject('/payments/{uuid}', uuid, PaymentSchema, options);
  }

  /** Lists payments, most recent first: `GET /api/v1/payments`. Await it for one page, or `for await` over every payment. */
  list(params?: PaymentListParams, options?: RequestOptions): PagePromise<Payment> {
    return this._client.getPaginated('/payments', params, PaymentListParamsSchema, PaymentSchema, options);
  }

  /**
   * Finds the payments of a window whose final status was never handled, and those stuck unsettled:
   * an async iterator of findings. `{ kind: 'missed', payment, expectedEvent }` for each `succeeded`
   * or `failed` payment whose final event `store` did not record (or `isHandled` answers `false`
   * for), handled at once through the store when `onEvent` is given, then
   * `{ kind: 'stale', payment }` for each payment still `pending` or `processing` more than
   * `stalePendingAfter` (default 30 minutes) after it was created. It lists only those statuses,
   * within `from`/`to`, each page once: memory stays flat over any window. Bad options throw an
   * `InvalidParamsError` at once, before any request. See docs/reconciliation.md.
   *
   * ```ts
   * for await (const finding of client.payments.reconcile({ from: '2026-11-24', to: '2026-11-24', store, onEvent })) {
   *   console.log(finding.kind, finding.payment.uuid, finding.expectedEvent, finding.handled);
   * }
   * ```
   */
  reconcile<Context = undefined, Effects = unknown>(
    options: ReconcileOptions<Context, Effects>,
    requestOptions?: RequestOptions,
  ): AsyncGenerator<ReconcileFinding, void, undefined> {
    return reconcilePayments(
      (params, listOptions) => this.list(params, listOptions),
      options as ReconcileOptions<unknown, unknown>,
      requestOptions,
      this._client.telemetry,
    );
  }

  /**
   * Polls `GET /api/v1/payments/{uuid}` until the status is neither `pending` nor `processing`, and
   * returns the payment. The wait between polls starts at `interval` and grows ×1.5 up to 15 s.
   * Throws {@link APITimeoutError} when `timeout` runs out (an unanswered poll is cut off then too),
   * and `APIUserAbortError` when `signal` aborts. Prefer webhooks in production; this suits scripts and tests.
   * Like every call it returns an {@link APIPromise}: `.withResponse()` gives the last poll's response.
   */
  waitForCompletion(uuid: string, options: WaitForCompletionOptions = {}): APIPromise<Payment> {
    return new APIPromise(this.#waitForCompletion(uuid, options));
  }

  async #waitForCompletion(uuid: string, options: WaitForCompletionOptions): Promise<WithResponse<Payment>> {
    const checked = checkParams(WaitForCompletionOptionsSchema, options, 'waitForCompletion options');
    const timeout = checked.timeout ?? 300_000;
    let interval = checked.interval ?? 2_000;

    // The deadline aborts whatever is under way (a poll and its retries, or the wait between polls),
    // so the whole call never outlives `timeout`. The caller's signal is forwarded to the same controller.
    const controller = new AbortController();
    const userSignal = options.signal;
    const onUserAbort = () => controller.abort(userSignal?.reason);
    if (userSignal?.aborted) onUserAbort();
    else userSignal?.addEventListener('abort', onUserAbort, { once: true });
    let deadlinePassed = false;
    const timer = setTimeout(() => {
      deadlinePassed = true;
      controller.abort();
    }, timeout);
    let lastStatus: string | undefined;
    try {
      for (;;) {
        const polled = await this.retrieve(uuid, { signal: controller.signal }).withResponse();
        const payment = polled.data;
        if (!UNSETTLED_STATUSES.includes(payment.status)) return polled;
        lastStatus = payment.status;
        await sleep(interval, controller.signal);
        interval = Math.min(interval * 1.5, MAX_INTERVAL_MS);
      }
    } catch (error) {
      if (deadlinePassed && !userSignal?.aborted && error instanceof APIUserAbortError) {
        const still = lastStatus ? `still ${lastStatus}` : 'not read once';
        throw new APITimeoutError(`Payment ${uuid} is ${still} after ${timeout} ms: the customer has not confirmed yet.`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', onUserAbort);
    }
  }
}
