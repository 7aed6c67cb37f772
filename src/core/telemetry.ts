/**
 * The telemetry hooks: what the SDK tells an observer about its calls, HTTP attempts, webhook
 * deliveries, bulk payouts and reconciliations. `openTelemetry()` (`payments-sdk/opentelemetry`)
 * is one implementation; any object of this shape plugs in the same way.
 *
 * Each hook returns a small handle that the SDK calls once the work is over, so an implementation
 * keeps its span (or its start time) in the handle itself. Everything the SDK hands over is chosen
 * to be safe to export: operation names, path templates, statuses, identifiers the service or the
 * merchant assigned, counts. Never the API key, a webhook secret, a request or response body, a
 * full URL or its query, nor an error's message (which may quote what the service answered).
 *
 * Without a `telemetry` option the SDK calls none of this and loads nothing.
 */

/** An SDK call about to start: one method call (`payments.create`), or one page of a list. */
export interface TelemetryCallInfo {
  /**
   * `<resource>.<method>`: `payments.create`, `checkoutSessions.retrieve`, `payouts.list`,
   * `wallets.list`; `request` for `client.request`.
   */
  operation: string;
  /** The HTTP method of its requests. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * The path with identifiers as placeholders, without the query: `/api/v1/payments/{uuid}`.
   * Absent for `client.request`, whose path may hold identifiers the SDK cannot tell apart.
   */
  urlTemplate?: string;
  /** The service's host name (or address), from the client's `baseUrl`. */
  serverAddress: string;
  /** The service's port: the `baseUrl`'s, or 443 / 80 by its scheme. */
  serverPort: number;
  /** `'live'`, `'sandbox'` or `'unknown'`, from the key's text (never the key). */
  mode: 'live' | 'sandbox' | 'unknown';
  /** The `Idempotency-Key` sent, on creations. */
  idempotencyKey?: string;
}

/** How an SDK call ended. */
export interface TelemetryCallResult {
  /**
   * The record the call read or created, so that a trace can be found from a payment: a payment's
   * or payment link's `uuid`, a checkout session's `reference`, a payout's `id`. Absent for a list,
   * `client.request` and a failed call.
   */
  record?: { type: 'payment' | 'checkout_session' | 'payout' | 'payment_link'; id: string };
  /** The error's class name when the call failed (`NotFoundError`, `APITimeoutError`); absent on success. */
  errorType?: string;
  /** The HTTP status of the last answer, when there was one. */
  status?: number;
  /** `true` when a creation was answered as an idempotent replay (nothing new was created). */
  replayed?: boolean;
}

/** One HTTP attempt of a call about to be sent. */
export interface TelemetryAttemptInfo {
  /** 0 for the first attempt, then 1, 2… for each retry. */
  resendCount: number;
}

/** How one HTTP attempt ended. */
export interface TelemetryAttemptResult {
  /** The HTTP status received, when an answer came. */
  status?: number;
  /**
   * Why the attempt failed, absent when it succeeded: the status as text for an error status
   * (`'404'`, `'503'`), else the SDK error it leads to (`'APITimeoutError'`, `'APIConnectionError'`,
   * `'APIUserAbortError'`, `'ResponseValidationError'`, `'PaymentsError'`).
   */
  errorType?: string;
}

/** The handle of one HTTP attempt. */
export interface AttemptObserver {
  /** The attempt ended (answer read, or failed). Called once. */
  end(result: TelemetryAttemptResult): void;
}

/** The handle of one SDK call. */
export interface CallObserver {
  /** An HTTP attempt of this call starts. */
  onAttempt(info: TelemetryAttemptInfo): AttemptObserver;
  /** The call ended. Called once, after every attempt ended. */
  end(result: TelemetryCallResult): void;
}

/**
 * What became of one webhook delivery:
 * - `handled`: the effect ran and is recorded (or nothing wanted the event), answered 200;
 * - `duplicate`: an earlier delivery of the event ran the effect (200), or is still running it (409);
 * - `refused`: the delivery is not a valid one from the service (400, 405, 413);
 * - `failed`: the effect threw (500), the endpoint is misconfigured (500), or the store or database
 *   failed or did not answer in time (503). The service delivers the event again later.
 */
export type WebhookOutcome = 'handled' | 'duplicate' | 'refused' | 'failed';

/** How a webhook delivery was answered. */
export interface TelemetryWebhookResult {
  /**
   * - `handled`: answered 200 after the handler resolved (or with no handler for the type);
   * - `duplicate`: an `id` already handled (200) or being handled elsewhere (409);
   * - `refused`: not accepted as a delivery (400 bad signature or body, 405, 413);
   * - `failed`: the handler threw, the dedupe store failed, or the endpoint is misconfigured (500, 503).
   */
  outcome: WebhookOutcome;
  /** The HTTP status answered. */
  status: number;
  /** The event's `type`, once verified. */
  eventType?: string;
  /** The event's `id`, once verified. */
  eventId?: string;
  /**
   * Why it was refused: a verification reason (`signature_mismatch`, `missing_signature`…), or
   * `method_not_allowed` / `payload_too_large`.
   */
  reason?: string;
  /** The error's class name, for `failed`. */
  errorType?: string;
  /** The record of the event's `data`, once verified: the payment's `uuid`, the payout's `id`. */
  record?: { type: 'payment' | 'payout'; id: string };
}

/** The handle of one webhook delivery. */
export interface WebhookObserver {
  /**
   * Runs the delivery's work (verification and the merchant's handler) so that what it does is
   * seen as part of this delivery (an OpenTelemetry implementation makes its span the active one).
   */
  run<T>(work: () => T): T;
  /** The delivery was answered. Called once. */
  end(result: TelemetryWebhookResult): void;
  /**
   * The store's work for this delivery starts: its transaction with the merchant's `onEvent`
   * inside (a transactional store), or its claim, `onEvent` and the record. Optional.
   */
  onStore?(kind: string): StoreObserver;
}

/** The handle of a store's work for one delivery (see {@link WebhookObserver.onStore}). */
export interface StoreObserver {
  /** Runs the store's work (and the merchant's `onEvent` within it) as part of this observation. */
  run<T>(work: () => T): T;
  /** The work ended; `errorType` when the store failed or did not answer. Called once. */
  end(result: { errorType?: string }): void;
}

/** A bulk payout run about to start. */
export interface TelemetryBulkInfo {
  /** The merchant's `batchId`. */
  batchId: string;
}

/** How a bulk payout run ended. */
export interface TelemetryBulkResult {
  /** Rows with a result, by status (`created`, `replayed`, `skipped`, `failed`, `conflict`, `needs_reconciliation`). */
  rows: Readonly<Record<string, number>>;
  /** `true` when the merchant's signal (or leaving the loop) stopped the run early. */
  aborted?: boolean;
  /** The error's class name when the run itself failed (bad rows, a journal that failed). */
  errorType?: string;
}

/** The handle of one bulk payout run. */
export interface BulkObserver {
  /** Runs the batch's sends, so that each `payouts.create` is seen as part of this run. */
  run<T>(work: () => T): T;
  /** A row got its result (`created`, `replayed`, `skipped`, `failed`, `conflict`, `needs_reconciliation`). */
  onRow(status: string): void;
  /** The run ended. Called once. */
  end(result: TelemetryBulkResult): void;
}

/** A reconciliation run about to start. */
export interface TelemetryReconcileInfo {
  /** Start of the window read, as an ISO 8601 date or time, when the run has one. */
  from?: string;
  /** End of the window read, likewise. */
  to?: string;
}

/** How a reconciliation run ended. */
export interface TelemetryReconcileResult {
  /** Records read from the service. */
  checked?: number;
  /** The error's class name when the run failed. */
  errorType?: string;
}

/** The handle of one reconciliation run. */
export interface ReconcileObserver {
  /** Runs the reconciliation's reads, so that each list call is seen as part of this run. */
  run<T>(work: () => T): T;
  /** A discrepancy was found; `kind` is its low-cardinality name (e.g. `missed_webhook`). */
  onFinding(kind: string): void;
  /** The run ended. Called once. */
  end(result: TelemetryReconcileResult): void;
}

/**
 * Hooks the SDK calls when given as the `telemetry` option of `PaymentsClient`, `webhookHandler`
 * or `expressWebhook`. `openTelemetry()` from `payments-sdk/opentelemetry` implements it; write your
 * own to feed another tool. A hook that throws loses its measurement and nothing else: the SDK
 * catches around every hook, and the call (delivery, run) ends with its own result or error.
 */
export interface Telemetry {
  /** An SDK call starts (each page of a list is a call of its own). */
  onCall(info: TelemetryCallInfo): CallObserver;
  /** A webhook delivery arrives at a handler. Without it, deliveries are not reported. */
  onWebhook?(): WebhookObserver;
  /** A bulk payout run starts (`payouts.createMany`). Without it, bulk runs are not reported (their calls are). */
  onBulk?(info: TelemetryBulkInfo): BulkObserver;
  /** A reconciliation run starts. Without it, reconciliations are not reported (their calls are). */
  onReconcile?(info: TelemetryReconcileInfo): ReconcileObserver;
}

/**
 * The record a webhook event is about, from its type and `data`: a `payment.*` event's payment
 * `uuid`, a `payout.*` event's payout `id`; `undefined` for any other event or a `data` without one.
 */
export function eventRecord(type: string, data: unknown): TelemetryWebhookResult['record'] {
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  if (type.startsWith('payment.') && typeof fields.uuid === 'string') return { type: 'payment', id: fields.uuid };
  // A payout's `id` may be a number.
  if (type.startsWith('payout.') && (typeof fields.id === 'string' || typeof fields.id === 'number'))
    return { type: 'payout', id: String(fields.id) };
  return undefined;
}

/** The class name of what was thrown, for `errorType`: never its message. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return error.name || 'Error';
  return '_OTHER';
}
