/**
 * The transport: ky does the retrying, the per-attempt timeout and `Retry-After`; this module is the
 * one place that configures it (API.md "Idempotency and retries") and turns whatever ky or fetch
 * throws into the SDK's errors.
 */
import type { HTTPError, KyInstance } from 'ky';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  makeAPIError,
  PaymentsError,
  ResponseValidationError,
  safeString,
} from '../core/errors.js';
import type { Logger } from './logger.js';
import { redactHeaders, redactSecrets } from './logger.js';

/** Statuses retried (API.md): 408, 429 and the 5xx that mean "try again". 409 and other 4xx never are. */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504] as const;

/** `Retry-After` is honoured up to this many milliseconds (issue: capped at 60 s). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Backoff of the retries: `initialMs * 2^(n-1)`, capped at `maxMs`, then jittered to 50–100 %. */
export interface RetryBackoff {
  /** First delay, before jitter. Default 500 ms. */
  initialMs?: number;
  /** Largest delay, before jitter. Default 8 000 ms. */
  maxMs?: number;
}

/**
 * Delay before retry number `attempt` (1-based) when the service gave no `Retry-After`:
 * exponential (`initialMs * 2^(attempt-1)`, capped at `maxMs`), then jittered down to 50–100 % of
 * that, so that many clients failing together do not retry in lockstep. `random` is injectable for
 * tests; it must return a number in [0, 1).
 */
export function backoffDelay(attempt: number, backoff: RetryBackoff = {}, random: () => number = Math.random): number {
  const initialMs = backoff.initialMs ?? 500;
  const maxMs = backoff.maxMs ?? 8_000;
  const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return base * (0.5 + random() / 2);
}

/** Settings fixed when the client is built. */
export interface TransportConfig {
  fetch?: typeof fetch;
  logger?: Logger;
  backoff?: RetryBackoff;
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
}

/** A received 2xx: the response (body already read) and its parsed JSON. */
export interface TransportResponse {
  response: Response;
  body: unknown;
}

/** A 2xx whose body is not JSON (a proxy page, or a body cut short): retried, then reported. */
class MalformedBodyError extends Error {
  readonly text: string;
  constructor(text: string) {
    super('The response body is not valid JSON.');
    this.text = text;
  }
}

const parsedBodies = new WeakMap<Response, unknown>();
// The text of each non-2xx answer, for the error: ky would parse error bodies only by content type,
// and drop a body that says JSON but is not (an HTML page from a proxy).
const errorTexts = new WeakMap<Response, string>();

/**
 * Wraps `fetch` so that each attempt reads the whole body before it counts as answered. A socket
 * reset or a stall in the middle of the body then fails the attempt, inside ky's per-attempt
 * timeout and retry loop, instead of after it: a creation whose answer was cut short is retried
 * with the same Idempotency-Key and the service replays it (service-api.md §5.2).
 */
function bufferingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const received = await inner(input, init);
    // A service or proxy that echoes the request ("Invalid key: Bearer sk_…", a header, a 2xx page)
    // must not put the key into anything the SDK hands back (API.md "Client": never in an error).
    // Redacting here, once, covers every status, the body text and the header values.
    const secrets = credentialsOf(input instanceof Request ? input.headers : new Headers(init?.headers));
    const text = redactSecrets(await received.text(), secrets);
    const noBody = text === '' || received.status === 204 || received.status === 205 || received.status === 304;
    const headers = redactHeaderValues(received.headers, secrets);
    // A 2xx is handed on as received, its body read and parsed here: building a new Response would
    // cost a web stream per call (~14 µs, BENCHMARKS.md 1). A new one is built only when it must
    // differ: an error answer or headers that echoed the key. It carries no body: the text is kept
    // in errorTexts, so ky has nothing to read and parse a second time into HTTPError.data.
    const response =
      received.ok && headers === received.headers
        ? received
        : new Response(null, { status: received.status, statusText: received.statusText, headers });
    if (response !== received) {
      // A constructed Response has an empty `url` and `redirected` false; keep the received ones so
      // `.withResponse().response` tells where the answer came from.
      Object.defineProperties(response, { url: { value: received.url }, redirected: { value: received.redirected } });
    }
    if (!received.ok) errorTexts.set(response, text);
    if (received.ok && !noBody) {
      try {
        parsedBodies.set(response, JSON.parse(text));
      } catch {
        throw new MalformedBodyError(text);
      }
    }
    return response;
  };
}

// ky is loaded on the first request, not with the SDK: its import runs a feature test that starts
// Node's fetch machinery (undici), 30–45 ms of a cold start (BENCHMARKS.md, "cold import"). The
// first request pays it, exactly as a plain `fetch` would.
let kyModule: Promise<typeof import('./ky.js')> | undefined;
function loadKy(): Promise<typeof import('./ky.js')> {
  kyModule ??= import('./ky.js');
  return kyModule;
}

/** Builds the transport of a client: one ky instance per retry limit, made on first use. */
export function createTransport(config: TransportConfig) {
  const backoff = config.backoff ?? {};
  const logger = config.logger;
  // Resolved per call, not captured: tests and merchants may swap globalThis.fetch after construction.
  const fetchImpl: typeof fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // Cached per retry limit: passing `retry` on each call made ky merge and normalise it every time.
  const instances = new Map<number, Promise<KyInstance>>();
  const instanceFor = (limit: number): Promise<KyInstance> => {
    let instance = instances.get(limit);
    if (!instance) {
      instance = loadKy().then(({ ky }) => createKy(ky, limit));
      instances.set(limit, instance);
    }
    return instance;
  };

  const createKy = (ky: KyInstance, limit: number): KyInstance =>
    ky.create({
      fetch: bufferingFetch(fetchImpl),
      throwHttpErrors: true,
      retry: {
        limit,
        methods: ['get', 'post'],
        statusCodes: [...RETRY_STATUSES],
        // Honour Retry-After on every retried status, not only ky's default 413/429/503.
        afterStatusCodes: [...RETRY_STATUSES],
        maxRetryAfter: MAX_RETRY_AFTER_MS,
        // The whole backoff (exponential + jitter) is ours; ky's own jitter stays off. A Retry-After
        // bypasses this function: ky waits exactly what the service asked, up to maxRetryAfter.
        delay: (attempt) => backoffDelay(attempt, backoff),
        retryOnTimeout: true,
        // A cut or garbled 2xx body is retried like a reset; ky leaves every other error to its defaults.
        shouldRetry: ({ error }) => (error instanceof MalformedBodyError ? true : undefined),
      },
      hooks: logger
        ? {
            beforeRetry: [
              ({ request, error, retryCount }) => {
                logger.info(`payments-sdk: retry ${retryCount} of ${request.method} ${request.url} after ${describeKyError(error)}`);
              },
            ],
          }
        : {},
    });

  /** Sends one call (with its retries). Resolves on 2xx; rejects with an SDK error. */
  return async function send(req: TransportRequest): Promise<TransportResponse> {
    logger?.debug(`payments-sdk: → ${req.method} ${req.url}`, { headers: redactHeaders(req.headers) });
    const started = Date.now();
    try {
      const instance = await instanceFor(req.maxRetries);
      const response = await instance(req.url, {
        method: req.method,
        headers: req.headers,
        json: req.body,
        timeout: req.timeout,
        signal: req.signal,
      });
      logger?.debug(`payments-sdk: ← ${response.status} ${req.method} ${req.url} (${Date.now() - started} ms)`);
      return { response, body: parsedBodies.get(response) };
    } catch (error) {
      const mapped = toSDKError(error, req);
      // A refusal (4xx: the request itself was wrong) is a warning; the service or the network failing
      // for good (5xx, no answer, timeout, a 2xx of the wrong shape) is an error.
      const refused = mapped instanceof APIError && mapped.status < 500;
      (refused ? logger?.warn : logger?.error)?.(`payments-sdk: ${req.method} ${req.url} failed: ${mapped.name}: ${mapped.message}`);
      throw mapped;
    }
  };
}

/** The function {@link createTransport} returns. */
export type Send = ReturnType<typeof createTransport>;

/** Maps ky's and fetch's errors to the SDK's classes. Never keeps ky's error: it holds the Request, and so the key. */
export function toSDKError(error: unknown, req: Pick<TransportRequest, 'timeout' | 'signal' | 'method' | 'url'>): PaymentsError {
  if (error instanceof PaymentsError) return error;
  if (isKyHTTPError(error)) {
    // The text as bufferingFetch kept it (the key already redacted there); every answer goes through it.
    const text = errorTexts.get(error.response) ?? '';
    return makeAPIError({
      status: error.response.status,
      body: text === '' ? undefined : reparse(text),
      headers: error.response.headers,
    }) as APIError;
  }
  if (req.signal?.aborted) {
    return new APIUserAbortError(`${req.method} ${req.url} was aborted by the caller's signal.`, { cause: req.signal.reason });
  }
  if (isNamedError(error, 'TimeoutError')) {
    // ky's TimeoutError holds the Request (and so the key): the cause is a fresh DOMException instead.
    const cause = new DOMException(`No answer within ${req.timeout} ms.`, 'TimeoutError');
    return new APITimeoutError(`${req.method} ${req.url} timed out: no answer within ${req.timeout} ms on the last attempt.`, { cause });
  }
  if (isNamedError(error, 'NetworkError')) {
    const cause = (error as { cause?: unknown }).cause;
    return new APIConnectionError(`Connection error on ${req.method} ${req.url}: ${describeCause(cause)}`, { cause });
  }
  if (error instanceof MalformedBodyError) {
    return new ResponseValidationError([{ path: [], message: 'the body is not valid JSON' }], error.text);
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : safeString(error);
  return new APIConnectionError(`Request ${req.method} ${req.url} failed: ${message}`, { cause: error });
}

/**
 * ky's HTTPError, recognised by shape (ky is loaded lazily, so no class to test against): ky's own
 * `isHTTPError` matches by name only, and another library's error named 'HTTPError', thrown by a
 * custom fetch, has no `response`.
 */
function isKyHTTPError(error: unknown): error is HTTPError {
  return isNamedError(error, 'HTTPError') && (error as { response?: unknown }).response instanceof Response;
}

/** An Error of that name: how ky names its TimeoutError and NetworkError (its own guards do the same). */
function isNamedError(error: unknown, name: string): error is Error {
  return error instanceof Error && error.name === name;
}

/** Headers with every value that holds a secret redacted; the same object when none does. */
function redactHeaderValues(headers: Headers, secrets: readonly string[]): Headers {
  let leaks = false;
  headers.forEach((value) => {
    if (!leaks && secrets.some((secret) => secret.length >= 4 && value.includes(secret))) leaks = true;
  });
  if (!leaks) return headers;
  const out = new Headers();
  headers.forEach((value, name) => {
    out.append(name, redactSecrets(value, secrets));
  });
  return out;
}

/** The secrets a request carries: the bearer token of its Authorization header. */
function credentialsOf(headers: Headers | undefined): string[] {
  const auth = headers?.get('authorization');
  if (!auth) return [];
  return [auth.replace(/^Bearer\s+/i, '')];
}

/** An error body as JSON when it is JSON (whatever its content type says), else as text. */
function reparse(data: string): unknown {
  const trimmed = data.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return data;
  try {
    return JSON.parse(trimmed);
  } catch {
    return data;
  }
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return 'no answer';
  const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
  const code = inner?.code ?? (cause as { code?: string }).code;
  return code ? `${cause.message} (${code})` : cause.message;
}

function describeKyError(error: unknown): string {
  if (isKyHTTPError(error)) return `status ${error.response.status}`;
  if (isNamedError(error, 'TimeoutError')) return 'a timeout';
  if (error instanceof MalformedBodyError) return 'a malformed body';
  return 'a connection error';
}
