/**
 * The error hierarchy of the SDK. Every error the SDK throws is a
 * {@link PaymentsError}; every non-2xx answer is an {@link APIError} subclass picked by status.
 *
 * Errors never hold the API key or the request: the request headers carry `Authorization`, and a
 * `util.inspect` of an error (or of its `cause`) must not print it. Only response data is kept.
 *
 * @module
 */
import { formatIssues } from '../internal/format-issues.js';
import { isRecord } from '../internal/is-record.js';
import { parseRetryAfter } from '../internal/retry-after.js';
import { safeString } from '../internal/safe-string.js';

/** One field problem, as carried by {@link InvalidParamsError} and {@link ResponseValidationError}. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `['destination', 'phone']`. Empty for the value as a whole. */
  path: (string | number)[];
  /** What is wrong, in English. */
  message: string;
}

/** Base class of every error thrown by payments-sdk. */
export class PaymentsError extends Error {
  /**
   * The `Idempotency-Key` of the creation that failed, when the error comes from one of the four
   * creations. Retry the same operation later with `{ idempotencyKey }` and the service replays
   * the original result instead of charging twice (the service keeps a key 24 hours).
   */
  declare idempotencyKey?: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
setName(PaymentsError, 'PaymentsError');

/** Options accepted by the {@link APIError} constructor. */
export interface APIErrorInit {
  status: number;
  body: unknown;
  headers: Headers;
  message?: string;
  idempotencyKey?: string;
}

/** Any non-2xx answer from the service. Subclasses name the common statuses. */
export class APIError extends PaymentsError {
  /** HTTP status of the answer. */
  declare readonly status: number;
  /** The answer's body: parsed JSON when it was JSON, else its text (an HTML 502 page), else `undefined`. */
  declare readonly body: unknown;
  /** The answer's headers. */
  declare readonly headers: Headers;
  /** Field → messages, from the body's `errors` member when it has one (a 422, say). */
  declare readonly errors?: Record<string, string[]>;

  constructor(init: APIErrorInit) {
    super(init.message ?? messageFromBody(init.status, init.body));
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    const errors = fieldErrorsFromBody(init.body);
    if (errors) this.errors = errors;
    if (init.idempotencyKey !== undefined) this.idempotencyKey = init.idempotencyKey;
  }
}
setName(APIError, 'APIError');

/** 400 Bad Request. */
export class BadRequestError extends APIError {}
setName(BadRequestError, 'BadRequestError');

/** 401: the API key is missing, wrong or revoked. */
export class AuthenticationError extends APIError {}
setName(AuthenticationError, 'AuthenticationError');

/** 403: live key without approved KYC, suspended merchant, or payouts with a sandbox key. */
export class PermissionDeniedError extends APIError {}
setName(PermissionDeniedError, 'PermissionDeniedError');

/** 404: unknown resource, or a resource of another merchant (the service answers both alike). */
export class NotFoundError extends APIError {}
setName(NotFoundError, 'NotFoundError');

/** 409: the `Idempotency-Key` was already used with a different payload. Never retried. */
export class IdempotencyConflictError extends APIError {}
setName(IdempotencyConflictError, 'IdempotencyConflictError');

/** 422: invalid fields (see {@link APIError.errors}) or a refused charge (see {@link UnprocessableEntityError.failureReason}). */
export class UnprocessableEntityError extends APIError {
  /** The body's `failure_reason`, when a direct charge was refused. */
  declare readonly failureReason?: string;

  constructor(init: APIErrorInit) {
    super(init);
    const reason = isRecord(init.body) ? init.body.failure_reason : undefined;
    if (typeof reason === 'string') this.failureReason = reason;
  }
}
setName(UnprocessableEntityError, 'UnprocessableEntityError');

/** 429: too many requests. Retried automatically; thrown once retries are spent. */
export class RateLimitError extends APIError {
  /** Seconds to wait, from the `Retry-After` header (seconds or HTTP date), when it was sent. */
  declare readonly retryAfter?: number;

  constructor(init: APIErrorInit) {
    super(init);
    const seconds = parseRetryAfter(init.headers.get('retry-after'));
    if (seconds !== undefined) this.retryAfter = seconds;
  }
}
setName(RateLimitError, 'RateLimitError');

/** A 5xx answer. 500, 502, 503 and 504 are retried automatically and thrown once retries are spent; other 5xx at once. */
export class InternalServerError extends APIError {}
setName(InternalServerError, 'InternalServerError');

/** No answer: the connection failed or was reset. Retried automatically; thrown once retries are spent. */
export class APIConnectionError extends PaymentsError {
  constructor(message = 'Connection error: no answer from the payments service.', options?: { cause?: unknown }) {
    super(message, options);
  }
}
setName(APIConnectionError, 'APIConnectionError');

/** The attempt (or `waitForCompletion`) ran past its timeout. */
export class APITimeoutError extends APIConnectionError {
  constructor(message = 'Request timed out.', options?: { cause?: unknown }) {
    super(message, options);
  }
}
setName(APITimeoutError, 'APITimeoutError');

/** The caller's `AbortSignal` fired. `cause` is the signal's reason. */
export class APIUserAbortError extends PaymentsError {
  constructor(message = 'Request was aborted.', options?: { cause?: unknown }) {
    super(message, options);
  }
}
setName(APIUserAbortError, 'APIUserAbortError');

/** A 2xx body that does not match its schema: a known field has the wrong type (money is never guessed). */
export class ResponseValidationError extends PaymentsError {
  /** Each mismatch, with its path. */
  declare readonly issues: ValidationIssue[];
  /** The body as received. */
  declare readonly body: unknown;

  constructor(issues: ValidationIssue[], body: unknown, label = 'response') {
    super(`The ${label} from the payments service did not match the expected shape: ${formatIssues(issues)}`);
    this.issues = issues;
    this.body = body;
  }
}
setName(ResponseValidationError, 'ResponseValidationError');

/** Params that break the service's rules, caught before anything is sent. Names every bad field. */
export class InvalidParamsError extends PaymentsError {
  /** Each bad field, with its path. */
  declare readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[], label = 'params') {
    super(`Invalid ${label}: ${formatIssues(issues)}. Nothing was sent.`);
    this.issues = issues;
  }
}
setName(InvalidParamsError, 'InvalidParamsError');

/** Why a webhook failed verification. */
export type WebhookVerificationReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'signature_mismatch'
  | 'invalid_payload'
  | 'event_type_mismatch';

/** A webhook delivery that failed verification; answer it with 400. */
export class WebhookVerificationError extends PaymentsError {
  /** The machine-readable reason. */
  declare readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
setName(WebhookVerificationError, 'WebhookVerificationError');

/**
 * Builds the {@link APIError} subclass for a status. Bodies that are not JSON (an HTML 502 page)
 * still map by status; the service's own `message` (French or not) becomes the error message.
 */
export function makeAPIError(init: APIErrorInit): APIError {
  const { status } = init;
  if (status === 400) return new BadRequestError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionDeniedError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new IdempotencyConflictError(init);
  if (status === 422) return new UnprocessableEntityError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new InternalServerError(init);
  if (status >= 300 && status < 400) {
    // The SDK follows no redirect (the service's API answers none; followed, a POST would be replayed
    // as a GET, or the key sent to another host): say where it pointed.
    const location = init.headers.get('location');
    const target = location ? ` with a redirect to ${location}` : ' with a redirect';
    const message = `The payments service answered ${status}${target}, which the SDK does not follow. Check baseUrl: an http:// address in front of an HTTPS redirect, or a host that moved.`;
    return new APIError({ ...init, message });
  }
  return new APIError(init);
}

function messageFromBody(status: number, body: unknown): string {
  if (isRecord(body) && typeof body.message === 'string' && body.message.trim() !== '') return body.message;
  if (isRecord(body) && typeof body.error === 'string' && body.error.trim() !== '') return body.error;
  const kind = typeof body === 'string' && body.trim() !== '' ? ' (the body was not JSON)' : '';
  return `The payments service answered ${status}${kind}.`;
}

function fieldErrorsFromBody(body: unknown): Record<string, string[]> | undefined {
  if (!isRecord(body) || !isRecord(body.errors)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, messages] of Object.entries(body.errors)) {
    // A `__proto__` key would replace the prototype of `out` instead of naming a field.
    if (field === '__proto__') continue;
    if (Array.isArray(messages)) out[field] = messages.map(safeString);
    else if (messages != null) out[field] = [safeString(messages)];
  }
  return out;
}

// `name` lives on the prototype, not on each instance: it stays out of `JSON.stringify` and
// survives minification (class names do not).
/** @internal Sets a class's `name` on its prototype (not enumerable: `defineProperty`'s default). */
export function setName(ctor: { prototype: Error }, name: string): void {
  Object.defineProperty(ctor.prototype, 'name', { value: name, writable: true, configurable: true });
}
