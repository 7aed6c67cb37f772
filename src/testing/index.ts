/**
 * `payments-sdk/testing`: an in-process model of the whole payments service for your tests.
 * Plug `mock.fetch` into the client (or `mock.handlers` into msw, or
 * `mock.listen()` for a real 127.0.0.1 port), then drive it: settle payments, pay checkout sessions
 * and payment links, move payouts along, and deliver the signed webhooks to your own handler.
 *
 * ```ts
 * import { PaymentsClient } from 'payments-sdk';
 * import { createMockService } from 'payments-sdk/testing';
 *
 * const mock = createMockService();
 * const client = new PaymentsClient({ apiKey: mock.apiKey, baseUrl: mock.baseUrl, fetch: mock.fetch });
 * ```
 *
 * msw is an optional peer dependency used only by `mock.handlers`.
 * @packageDocumentation
 */
export type { DeliverOptions, WebhookDelivery, WebhookDeliveryHeaders, WebhookTarget } from './delivery.js';
export { LINK_UNAVAILABLE } from './engine/actions.js';
export { IDEMPOTENCY_TTL_MS } from './engine/idempotency.js';
export {
  type KeyMode,
  MOCK_PAYMENT_LINK_STATUSES,
  MOCK_PAYOUT_STATUSES,
  type MockKeyInfo,
  type MockPayerOptions,
  type MockPaymentLinkStatus,
  type MockPayoutStatus,
} from './engine/model.js';
export type { FieldErrors } from './field-rules.js';
export { MockServiceError } from './mock-errors.js';
export {
  createMockService,
  type MockFault,
  type MockRecord,
  type MockRecords,
  type MockRequestLog,
  MockService,
  type PaymentEvent,
  type PayoutEvent,
  type PayPaymentLinkOptions,
  type PaySessionOptions,
} from './mock-service.js';
export type { MswHandler, MswModule } from './msw.js';
export type { ListenOptions, MockHttpServer } from './node-server.js';
export {
  DEFAULT_COUNTRIES,
  DEFAULT_FEES,
  DEFAULT_RATES,
  defaultRefusal,
  type MockChargeInput,
  type MockClockOption,
  type MockCountry,
  type MockFeeInput,
  type MockFeeRule,
  type MockFees,
  type MockKeyOptions,
  type MockKycStatus,
  type MockMerchantOptions,
  type MockSeed,
  type MockServiceOptions,
} from './options.js';
export {
  MOCK_DELIVERY_MAX_ATTEMPTS,
  MOCK_DELIVERY_RETRY_DELAYS_MS,
  type MockDelivery,
  type MockDeliveryAttempt,
  type MockWebhooksOptions,
} from './webhook-schedule.js';
