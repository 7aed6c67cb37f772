/**
 * The base of every resource, and the four calls resources are built from. Resources see the client
 * through {@link ResourceClient} only, so that they never import the client (which imports them).
 */
import type * as z from 'zod/mini';
import type { Payment, PaymentListParams } from '../schemas/payment.js';
import type { APIPromise } from './api-promise.js';
import type { PagePromise } from './pagination.js';
import type { RequestOptions } from './request-options.js';
import type { Telemetry } from './telemetry.js';

/** What a resource sees of its client: the calls it makes through it. */
export interface ResourceClient {
  /** Default retries of the client (the bulk payout runner retries rows itself, as many times). */
  readonly maxRetries: number;
  /** The kind of the client's key (`'unknown'` until a key function was read): bulk payouts refuse a sandbox key up front. */
  readonly mode: 'live' | 'sandbox' | 'unknown';
  /** The client's payments, where `checkoutSessions.findPayment` looks for a session's payment. */
  readonly payments: { list(params?: PaymentListParams, options?: RequestOptions): PagePromise<Payment> };
  /** The client's telemetry, for what a resource runs over many calls (bulk payouts, reconciliation). @internal */
  readonly telemetry?: Telemetry | undefined;
  // Each call is named after the resource of its path and its kind (`payments.create`): its
  // errors and its telemetry carry that name.
  /** A creation: `POST` with params checked first and an `Idempotency-Key`, the answer unwrapped from `{ data }`. @internal */
  postCreation<P, T>(
    path: string,
    params: P,
    paramsSchema: z.ZodMiniType<P>,
    result: z.ZodMiniType<T>,
    options?: RequestOptions,
  ): APIPromise<T>;
  /** `GET` of one object by identifier, unwrapped from `{ data }`; `template` is its path with the identifier's placeholder. @internal */
  getObject<T>(template: string, id: string | number, result: z.ZodMiniType<T>, options?: RequestOptions): APIPromise<T>;
  /** `GET` of a list that is not paginated. @internal */
  getUnpaginated<T>(path: string, result: z.ZodMiniType<T>, options?: RequestOptions): APIPromise<T>;
  /** `GET` of a paginated list, walked page by page. @internal */
  getPaginated<P extends object, T>(
    path: string,
    params: P | undefined,
    paramsSchema: z.ZodMiniType<P>,
    item: z.ZodMiniType<T>,
    options?: RequestOptions,
  ): PagePromise<T>;
}

/** Base of every resource of the client: holds the client its requests go through. */
export abstract class APIResource {
  /** The client this resource sends its requests through. */
  protected _client: ResourceClient;

  /** @internal */
  constructor(client: ResourceClient) {
    this._client = client;
  }
}
