import { APIPromise, type WithResponse } from '../core/api-promise.js';
import { type PagePromise, walkPages } from '../core/pagination.js';
import type { RequestOptions } from '../core/request-options.js';
import { APIResource } from '../core/resource.js';
import { DAY_MS } from '../internal/durations.js';
import {
  type CheckoutSession,
  type CheckoutSessionCreateParams,
  CheckoutSessionCreateParamsSchema,
  type CheckoutSessionListParams,
  CheckoutSessionListParamsSchema,
  CheckoutSessionSchema,
} from '../schemas/checkout-session.js';
import type { Payment } from '../schemas/payment.js';

/** Hosted checkout sessions. */
export class CheckoutSessions extends APIResource {
  /** Creates a session: `POST /api/v1/checkout-sessions`. Redirect the customer to its `checkout_url`. */
  create(params: CheckoutSessionCreateParams, options?: RequestOptions): APIPromise<CheckoutSession> {
    return this._client.postCreation('/checkout-sessions', params, CheckoutSessionCreateParamsSchema, CheckoutSessionSchema, options);
  }

  /** Reads a session: `GET /api/v1/checkout-sessions/{reference}`. */
  retrieve(reference: string, options?: RequestOptions): APIPromise<CheckoutSession> {
    return this._client.getObject('/checkout-sessions/{reference}', reference, CheckoutSessionSchema, options);
  }

  /** Lists sessions, most recent first: `GET /api/v1/checkout-sessions`. */
  list(params?: CheckoutSessionListParams, options?: RequestOptions): PagePromise<CheckoutSession> {
    return this._client.getPaginated('/checkout-sessions', params, CheckoutSessionListParamsSchema, CheckoutSessionSchema, options);
  }

  /**
   * The payment that settled a session, or `null`. The session carries no payment field: its payment
   * is the one in `GET /api/v1/payments` whose `checkout_session` is `reference`.
   * It reads the session first (`GET /api/v1/checkout-sessions/{reference}`, so an unknown reference
   * throws `NotFoundError`), then walks the payments from the session's creation date, so it reads
   * few pages.
   */
  findPayment(reference: string, options?: RequestOptions): APIPromise<Payment | null> {
    return new APIPromise(this.#findPayment(reference, options));
  }

  // `.withResponse()` gives the response of the page where the payment was found, or of the last page read.
  async #findPayment(reference: string, options?: RequestOptions): Promise<WithResponse<Payment | null>> {
    const session = await this.retrieve(reference, options);
    const created = Date.parse(session.created_at);
    // One day of margin: the service may read `from` in its own time zone, not UTC.
    const from = Number.isNaN(created) ? undefined : new Date(created - DAY_MS);
    let response: Response | undefined;
    for await (const page of walkPages(this._client.payments.list({ from, per_page: 100 }, options))) {
      response = page.response;
      const found = page.data.data.find((payment) => payment.checkout_session === reference);
      if (found) return { data: found, response, replayed: false };
    }
    return { data: null, response: response as Response, replayed: false };
  }
}
