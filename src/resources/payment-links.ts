import type { APIPromise } from '../core/api-promise.js';
import type { PagePromise } from '../core/pagination.js';
import type { RequestOptions } from '../core/request-options.js';
import { APIResource } from '../core/resource.js';
import {
  type PaymentLink,
  type PaymentLinkCreateParams,
  PaymentLinkCreateParamsSchema,
  type PaymentLinkListParams,
  PaymentLinkListParamsSchema,
  PaymentLinkSchema,
} from '../schemas/payment-link.js';

/** Reusable payment links. Activation and deactivation are dashboard-only. */
export class PaymentLinks extends APIResource {
  /** Creates a link: `POST /api/v1/payment-links`. Leave `amount` out to let the customer choose. Share its `url` as it is. */
  create(params: PaymentLinkCreateParams, options?: RequestOptions): APIPromise<PaymentLink> {
    return this._client.postCreation('/payment-links', params, PaymentLinkCreateParamsSchema, PaymentLinkSchema, options);
  }

  /** Reads a link: `GET /api/v1/payment-links/{id}`. */
  retrieve(id: string | number, options?: RequestOptions): APIPromise<PaymentLink> {
    return this._client.getObject('/payment-links/{id}', id, PaymentLinkSchema, options);
  }

  /** Lists links, most recent first: `GET /api/v1/payment-links`. Filters beyond the documented ones pass through. */
  list(params?: PaymentLinkListParams, options?: RequestOptions): PagePromise<PaymentLink> {
    return this._client.getPaginated('/payment-links', params, PaymentLinkListParamsSchema, PaymentLinkSchema, options);
  }
}
