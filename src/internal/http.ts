/**
 * The transport: one ky instance per client, over the platform's `fetch` (or the `fetch` option)
 * through {@link exchange}. ky owns the retry loop, the per-attempt timeout and `Retry-After`; its
 * hooks log, and turn whatever an attempt throws into the SDK's errors.
 */
import ky, { HTTPError, type KyInstance, NetworkError, type Options } from 'ky';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  InvalidParamsError,
  makeAPIError,
  PaymentsError,
  ResponseValidationError,
} from '../core/errors.js';
// --- telemetry wiring: types only ---
import type { CallObserver } from '../core/telemetry.js';
import { AttemptAbortedError, exchange, MalformedBodyError, receivedBody, ThrownValueError } from './exchange.js';
import type { Logger } from './logger.js';
import { redactHeaders, redactSecrets, sanitizeError } from './logger.js';
import { safeString } from './safe-string.js';
// --- end telemetry wiring ---

/** Statuses retried: 408, 429 and the 5xx that mean "try again". 409 and other 4xx never are. */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504] as const;

/** `Retry-After` is honoured up to this many milliseconds. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Default of the `maxResponseBytes` client option: 10 MiB, some 240 full pages of 100 payments. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Backoff of the retries: `initialMs * 2^(n-1)`, capped at `maxMs`, then jittered to 50–100 %. */
export interface RetryBackoff {
  /** First delay, before jitter. Default 500 ms. */
  initialMs?: number;
  /** Largest delay, before jitter. Default 8 000 ms. */
  maxMs?: number;
}

/** The exponential delay before retry number `attempt` (1-based), before jitter. */
function exponential(attempt: number, backoff: RetryBackoff): number {
  return Math.min(backoff.maxMs ?? 8_000, (backoff.initialMs ?? 500) * 2 ** Math.max(0, attempt - 1));
}

/** Jitter down to 50–100 % of a delay, so that many clients failing together do not retry in lockstep. */
function jitter(delay: number, random: () => number = Math.random): number {
  return delay * (0.5 + random() / 2);
}

/**
 * Delay before retry number `attempt` (1-based) when the service gave no `Retry-After`:
 * exponential (`initialMs * 2^(attempt-1)`, capped at `maxMs`), then jittered down to 50–100 % of
 * that. `random` is injectable for tests; it must return a number in [0, 1).
 */
export function backoffDelay(attempt: number, backoff: RetryBackoff = {}, random: () => number = Math.random): number {
  return jitter(exponential(attempt, backoff), random);
}

/** Settings fixed when the client is built. */
export interface TransportConfig {
  fetch?: typeof fetch;
  /** The client's API key: redacted from every answer (the only secret a request carries). */
  apiKey: string;
  logger?: Logger;
  backoff?: RetryBackoff;
  /** Default milliseconds per attempt. */
  timeout: number;
  /** Default retries. */
  maxRetries: number;
  /** Largest decoded body accepted, in bytes. */
  maxResponseBytes: number;
  /** `true` when the client has a `telemetry` option: each attempt is then reported to its call's observer. */
  observed?: boolean;
}

/** One call, after the client resolved URL, headers and options. */
export interface TransportRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Headers;
  body?: unknown;
  timeout: number;
  maxRetries: number;
  signal?: AbortSignal;
  /** The telemetry handle of the call, when the client is observed. */
  call?: CallObserver;
}

/** A received 2xx: the response (body already read) and its parsed JSON. */
export interface TransportResponse {
  response: Response;
  body: unknown;
}

/** What {@link toSDKError} needs to know of the call. */
type CallInfo = Pick<TransportRequest, 'timeout' | 'signal' | 'method' | 'url'>;

/** Builds the transport of a client. */
export function createTransport(config: TransportConfig) {
  const { logger } = config;
  const backoff = config.backoff ?? {};
  const secrets = [config.apiKey];
  const callOf = (options: { context: Record<string, unknown> }) => options.context.call as CallInfo;

  const api: KyInstance = ky.create({
    fetch: watchedAttempts(exchange({ fetch: config.fetch, secrets, maxResponseBytes: config.maxResponseBytes }), config.observed),
    timeout: config.timeout,
    // A 3xx comes back as it is and becomes an APIError: followed, a POST would be replayed as a GET
    // and the key could go to another host.
    redirect: 'manual',
    retry: {
      limit: config.maxRetries,
      // POST is safe to retry: every creation carries an Idempotency-Key, the same on every attempt.
      methods: ['get', 'post'],
      statusCodes: [...RETRY_STATUSES],
      afterStatusCodes: [...RETRY_STATUSES],
      maxRetryAfter: MAX_RETRY_AFTER_MS,
      delay: (attempt) => exponential(attempt, backoff),
      jitter: (delay) => jitter(delay),
      retryOnTimeout: true,
      shouldRetry: ({ error }) => {
        // A 2xx that is not JSON (a proxy page, a body cut short): the same request may well succeed.
        if (error instanceof MalformedBodyError) return true;
        if (error instanceof AttemptAbortedError || error instanceof PaymentsError) return false;
        // fetch rejects with a TypeError on a network error (Fetch standard), whatever its message.
        if (error instanceof TypeError) return true;
        return undefined;
      },
    },
    hooks: {
      beforeRequest: logger
        ? [({ request }) => logger.debug(`payments-sdk: → ${request.method} ${request.url}`, { headers: redactHeaders(request.headers) })]
        : [],
      beforeRetry: logger
        ? [
            ({ request, error, retryCount }) =>
              logger.info(`payments-sdk: retry ${retryCount} of ${request.method} ${request.url} after ${describeFailure(error)}`),
          ]
        : [],
      beforeError: [({ error, options }) => logged(toSDKError(error, callOf(options), secrets), callOf(options))],
    },
  });

  /** Logs a call that failed for good and returns its error. */
  function logged(mapped: PaymentsError, call: CallInfo): PaymentsError {
    // A refusal (4xx: the request itself was wrong) is a warning; the service or the network failing
    // for good (5xx, no answer, timeout, a 2xx of the wrong shape) is an error.
    const refused = mapped instanceof APIError && mapped.status < 500;
    (refused ? logger?.warn : logger?.error)?.(`payments-sdk: ${call.method} ${call.url} failed: ${mapped.name}: ${mapped.message}`);
    return mapped;
  }

  /** Sends one call (with its retries). Resolves on 2xx; rejects with an SDK error. */
  return async function send(req: TransportRequest): Promise<TransportResponse> {
    const started = logger ? Date.now() : 0;
    const options: Options = { method: req.method, headers: req.headers, context: { call: req } };
    if (req.body !== undefined) {
      options.body = toJson(req.body);
      req.headers.set('content-type', 'application/json');
    }
    // Only what differs from the instance's defaults is merged in.
    if (req.timeout !== config.timeout) options.timeout = req.timeout;
    if (req.maxRetries !== config.maxRetries) options.retry = { limit: req.maxRetries };
    if (req.signal) options.signal = req.signal;
    // --- telemetry wiring: the call's observer rides to each attempt as a fetch option ---
    if (req.call) (options as WatchedInit)[WATCH_ATTEMPT] = attemptWatcher(req.call, req.signal);
    // --- end telemetry wiring ---
    let response: Response;
    try {
      response = await api(req.url, options);
    } catch (error) {
      // ky's hooks mapped every Error already; what is left is a non-Error the caller's signal
      // aborted with while ky waited between attempts.
      if (error instanceof PaymentsError) throw error;
      throw logged(toSDKError(error, req, secrets), req);
    }
    logger?.debug(`payments-sdk: ← ${response.status} ${req.method} ${req.url} (${Date.now() - started} ms)`);
    return { response, body: receivedBody(response) };
  };
}

/** The function {@link createTransport} returns. */
export type Send = ReturnType<typeof createTransport>;

/** Maps what an attempt, ky or a custom fetch throws to the SDK's classes, the key redacted from every message. */
export function toSDKError(error: unknown, req: CallInfo, secrets: readonly string[] = []): PaymentsError {
  if (error instanceof PaymentsError) return error;
  if (error instanceof HTTPError) {
    return makeAPIError({ status: error.response.status, body: receivedBody(error.response), headers: error.response.headers });
  }
  if (req.signal?.aborted) {
    return new APIUserAbortError(`${req.method} ${req.url} was aborted by the caller's signal.`, { cause: req.signal.reason });
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    const cause = new DOMException(`No answer within ${req.timeout} ms.`, 'TimeoutError');
    return new APITimeoutError(`${req.method} ${req.url} timed out: no answer within ${req.timeout} ms on the last attempt.`, { cause });
  }
  if (error instanceof MalformedBodyError) {
    return new ResponseValidationError([{ path: [], message: 'the body is not valid JSON' }], error.text);
  }
  // ky wraps fetch's own network errors, the exchange what is not an Error: the SDK reports (and
  // keeps, sanitised) what fetch threw.
  let thrown = error instanceof NetworkError ? error.cause : error;
  if (thrown instanceof ThrownValueError) thrown = thrown.value;
  const message =
    thrown instanceof TypeError
      ? `Connection error on ${req.method} ${req.url}: ${describeCause(thrown)}`
      : `Request ${req.method} ${req.url} failed: ${thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : safeString(thrown)}`;
  return new APIConnectionError(redactSecrets(message, secrets), { cause: sanitizeError(thrown, secrets) });
}

// --- telemetry wiring: one report per attempt ---

/** The fetch option (forwarded by ky to the exchange, as it forwards every option it does not know) that starts an attempt's report. */
const WATCH_ATTEMPT = 'paymentsWatchAttempt';

/** A fetch `init` that may carry {@link WATCH_ATTEMPT}. */
type WatchedInit = { [WATCH_ATTEMPT]?: () => (status: number | undefined, error: unknown) => void };

/** Reports each attempt of an observed call: its resend count, then its status or why it failed. */
function attemptWatcher(call: CallObserver, callerSignal: AbortSignal | undefined) {
  let resendCount = 0;
  return () => {
    const attempt = call.onAttempt({ resendCount: resendCount++ });
    return (status: number | undefined, error: unknown) => {
      const errorType =
        error !== undefined
          ? attemptErrorType(error, callerSignal)
          : status !== undefined && (status < 200 || status > 299)
            ? String(status)
            : undefined;
      attempt.end({ status, errorType });
    };
  };
}

/** The SDK error an attempt's failure leads to, by class name (the attempt's own error is not yet mapped). */
function attemptErrorType(error: unknown, callerSignal: AbortSignal | undefined): string {
  if (error instanceof MalformedBodyError) return 'ResponseValidationError';
  if (error instanceof AttemptAbortedError) return callerSignal?.aborted ? 'APIUserAbortError' : 'APITimeoutError';
  if (error instanceof PaymentsError) return error.name;
  return 'APIConnectionError';
}

/** The exchange, reporting each attempt whose init carries {@link WATCH_ATTEMPT}; unchanged when the client is not observed. */
function watchedAttempts(attempt: typeof fetch, observed: boolean | undefined): typeof fetch {
  if (!observed) return attempt;
  return async (input, init) => {
    const watch = (init as WatchedInit | undefined)?.[WATCH_ATTEMPT];
    if (!watch) return attempt(input, init);
    // The option stays here: a custom fetch sees the init it would see without telemetry.
    const { [WATCH_ATTEMPT]: _, ...plain } = init as RequestInit & WatchedInit;
    const end = watch();
    let response: Response;
    try {
      response = await attempt(input, plain);
    } catch (error) {
      end(undefined, error);
      throw error;
    }
    end(response.status, undefined);
    return response;
  };
}

// --- end telemetry wiring ---

/**
 * The body as JSON text. Params passed their schema, but a `metadata` value may still be a BigInt or
 * hold a cycle: that is bad input, named as such before anything is sent, not a connection error.
 */
function toJson(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    // First line only: V8 draws the cycle over several lines.
    const reason = (error instanceof Error ? error.message : safeString(error)).split('\n')[0];
    throw new InvalidParamsError([{ path: [], message: `cannot be sent as JSON (${reason})` }]);
  }
}

function describeCause(error: Error): string {
  // undici: TypeError('fetch failed') whose cause is the socket's error, with a `code` (ECONNREFUSED...).
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}

function describeFailure(error: Error): string {
  if (error instanceof HTTPError) return `status ${error.response.status}`;
  if (error.name === 'TimeoutError') return 'a timeout';
  if (error instanceof MalformedBodyError) return 'a malformed body';
  return 'a connection error';
}
