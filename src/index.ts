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

export {
  type BulkCounts,
  type BulkInvalidRow,
  type BulkProgress,
  type BulkResult,
  type BulkRows,
  type BulkStatus,
  type BulkSummary,
  type CreateManyOptions,
  PayoutBatch,
} from './bulk/batch.js';
export { fileJournal } from './bulk/file-journal.js';
export {
  type BulkClaim,
  type BulkClaimRequest,
  type BulkErrorInfo,
  type BulkJournal,
  type BulkJournalRecord,
  type BulkOutcome,
  type BulkOutcomeStatus,
  memoryJournal,
} from './bulk/journal.js';
export { BULK_KEY_PREFIX, bulkIdempotencyKey } from './bulk/keys.js';
export { type IORedisCommandClient, type NodeRedisCommandClient, type RedisJournalOptions, redisJournal } from './bulk/redis-journal.js';
export { type ClientMode, type ClientOptions, PaymentsClient, type RequestOptions } from './client.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
// The error classes and their types; `makeAPIError` and `setName` stay internal.
export {
  APIConnectionError,
  APIError,
  type APIErrorInit,
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
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './core/errors.js';
export { Page, PagePromise, type ToArrayOptions } from './core/pagination.js';
export type {
  AttemptObserver,
  BulkObserver,
  CallObserver,
  ReconcileObserver,
  Telemetry,
  TelemetryAttemptInfo,
  TelemetryAttemptResult,
  TelemetryBulkInfo,
  TelemetryBulkResult,
  TelemetryCallInfo,
  TelemetryCallResult,
  TelemetryReconcileInfo,
  TelemetryReconcileResult,
  TelemetryWebhookResult,
  WebhookObserver,
  WebhookOutcome,
} from './core/telemetry.js';
export { type CurrencyCode, isKnownCurrency, type KnownCurrencyCode } from './currencies.js';
export type { RetryBackoff } from './internal/http.js';
export type { Logger, LogLevel } from './internal/logger.js';
export { currencyExponent, formatAmount, fromMinorUnits, toMinorUnits } from './money.js';
export type { CheckoutSessions } from './resources/checkout-sessions.js';
export type { PaymentLinks } from './resources/payment-links.js';
export type { Payments, WaitForCompletionOptions } from './resources/payments.js';
export type { Payouts } from './resources/payouts.js';
export type { Wallets } from './resources/wallets.js';
export type { ClientVerifyWebhookInput, Webhooks } from './resources/webhooks.js';
export {
  CHECKOUT_SESSION_STATUSES,
  type CheckoutSession,
  type CheckoutSessionCreateParams,
  type CheckoutSessionListParams,
  type CheckoutSessionStatus,
} from './schemas/checkout-session.js';
export type { ListEnvelope, PageLinks, PageMeta } from './schemas/list-envelope.js';
export type { DateFilter, ListParamsBase } from './schemas/list-params.js';
export { PAYMENT_STATUSES, type Payment, type PaymentCreateParams, type PaymentListParams, type PaymentStatus } from './schemas/payment.js';
export type { PaymentLink, PaymentLinkCreateParams, PaymentLinkListParams } from './schemas/payment-link.js';
export type { Payout, PayoutCreateParams, PayoutDestination, PayoutListParams } from './schemas/payout.js';
export type { OpenEnum } from './schemas/primitives.js';
export type { Wallet } from './schemas/wallet.js';
export { VERSION } from './version.js';
export * from './webhooks/index.js';
