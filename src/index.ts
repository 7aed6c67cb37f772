/**
 * payments-sdk: the typed client of the mobile-money payments service.
 *
 * ```ts
 * import { PaymentsClient } from 'payments-sdk';
 * const client = new PaymentsClient(); // PAYMENTS_API_KEY, PAYMENTS_BASE_URL
 * const session = await client.checkoutSessions.create({ amount: 5000, currency: 'XOF' });
 * ```
 * @packageDocumentation
 */

// What a merchant codes against for calls, and nothing else: the client and its options, the
// errors, the records and their params, pagination, money helpers, bulk payouts and reconciliation.
// Each public name comes from exactly one entry: webhooks from `payments-sdk/webhooks`, stores from
// `payments-sdk/stores`, telemetry from `payments-sdk/opentelemetry`, the zod schemas from
// `payments-sdk/schemas`.
export { PayoutBatch } from './bulk/batch.js';
export { bulkIdempotencyKey } from './bulk/keys.js';
export { BulkRowsChangedError } from './bulk/rows-changed-error.js';
export type {
  BulkCounts,
  BulkInvalidRow,
  BulkProgress,
  BulkResult,
  BulkRows,
  BulkStatus,
  BulkSummary,
  CreateManyOptions,
} from './bulk/types.js';
export type { APIRequest, ClientDefaults, ClientVerifyWebhookInput, HttpMethod, RetryBackoff } from './client.js';
export { type ClientMode, type ClientOptions, PaymentsClient, type RequestOptions } from './client.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  IdempotencyConflictError,
  InternalServerError,
  InvalidParamsError,
  NotFoundError,
  PaymentsError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
  type ValidationIssue,
} from './core/errors.js';
export { Page, PagePromise, type ToArrayOptions } from './core/pagination.js';
export type {
  MissedPaymentFinding,
  PaymentFinalEventType,
  ReconciledPaymentEvent,
  ReconcileFinding,
  ReconcileOptions,
  ReconcileProgress,
  ReconcileWindow,
  ReconcileWithCheck,
  ReconcileWithStore,
  StalePaymentFinding,
} from './core/reconcile.js';
export { type CurrencyCode, isKnownCurrency, type KnownCurrencyCode } from './currencies.js';
export type { Logger, LogLevel } from './internal/logger.js';
export { currencyExponent, formatAmount, fromMinorUnits, toMinorUnits } from './money.js';
// The resource classes as types only: `client.payments` and the others are documented by them.
export type { CheckoutSessions } from './resources/checkout-sessions.js';
export type { PaymentLinks } from './resources/payment-links.js';
export type { Payments, WaitForCompletionOptions } from './resources/payments.js';
export type { Payouts } from './resources/payouts.js';
export type { Wallets } from './resources/wallets.js';
export type { Webhooks } from './resources/webhook-verifier.js';
export {
  CHECKOUT_SESSION_STATUSES,
  type CheckoutSession,
  type CheckoutSessionCreateParams,
  type CheckoutSessionListParams,
  type CheckoutSessionStatus,
} from './schemas/checkout-session.js';
export type { PageLinks, PageMeta } from './schemas/list-envelope.js';
export { PAYMENT_STATUSES, type Payment, type PaymentCreateParams, type PaymentListParams, type PaymentStatus } from './schemas/payment.js';
export type { PaymentLink, PaymentLinkCreateParams, PaymentLinkListParams } from './schemas/payment-link.js';
export type { Payout, PayoutCreateParams, PayoutDestination, PayoutListParams } from './schemas/payout.js';
export { readField } from './schemas/read-field.js';
export type { Wallet } from './schemas/wallet.js';
export { VERSION } from './version.js';
