/**
 * The transport: one exchange per attempt (`fetch`, or `node:http` on Node: node-http.ts), the
 * SDK's own retry loop, per-attempt timeout and `Retry-After` (API.md "Idempotency and retries"), and
 * the one place that turns whatever fetch throws into the SDK's errors.
 *
 * Why not ky, the design card's HTTP library (the transport until this change): measured on
 * this machine, ky alone costs 1.26–1.49× a raw `fetch` per loopback request (a `Request` built and
 * cloned per attempt, options merged and retry settings normalised per call), against the ≤ 1.15×
 * budget of the whole SDK (issue 7), and it is 8.3 KB gzip of the 25 KB client budget (issue 6).
 * Everything the SDK used it for is below, in about 1.5 KB: see BENCHMARKS.md.
 */
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  InvalidParamsError,
  makeAPIError,
  PaymentsError,
  parseRetryAfter,
  ResponseValidationError,
  safeString,
} from '../core/errors.js';
import { parseJson } from './json.js';
import type { Logger } from './logger.js';
import { redactHeaders, redactSecrets } from './logger.js';
import { nodeExchanger } from './node-http.js';
import { sleep } from './sleep.js';

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
  /** The client's API key: redacted from every answer (the only secret a request carries). */
  apiKey: string;
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

/** A non-2xx answer, its body read and the key redacted: retried when its status is, then mapped by makeAPIError. */
class StatusError extends Error {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  constructor(status: number, headers: Headers, text: string) {
    super(`status ${status}`);
    this.status = status;
    this.headers = headers;
    this.text = text;
  }
}

/** The SDK's own per-attempt timer fired (a fetch that throws a `TimeoutError` itself is mapped by name). */
class AttemptTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** The caller's signal aborted the attempt: never retried. */
class CallerAbortError extends Error {}

/** A request as an exchange sends it: the JSON body already serialised. */
export interface ExchangeInit {
  method: string;
  headers: Headers;
  body?: string;
}

/** One HTTP exchange, started: what it received (the whole body read), and how to cancel it. */
export interface Exchange {
  /** The response (its body consumed) and the body as text; rejects as fetch would (`TypeError` on a network error). */
  received: Promise<{ response: Response; text: string }>;
  /** Ends the exchange (a timeout, the caller's abort), also mid-body. A no-op once it settled. */
  cancel(reason?: unknown): void;
}

/** Starts one exchange: the platform's `fetch` (every runtime) or `node:http` (Node, node-http.ts). */
export type Exchanger = (url: string, init: ExchangeInit) => Exchange;

/** The exchange through a `fetch`: the global one, or the client's `fetch` option. */
function fetchExchanger(fetchImpl: typeof fetch): Exchanger {
  return (url, init) => {
    const controller = new AbortController();
    // async: a custom fetch that throws instead of rejecting is still one failed attempt.
    const received = (async () => {
      // `manual`: a 3xx comes back as it is and becomes an APIError, as on node:http, on every
      // runtime; followed, a POST would be replayed as a GET and the key could go to another host.
      const response = await fetchImpl(url, { ...init, redirect: 'manual', signal: controller.signal });
      return { response, text: await response.text() };
    })();
    return { received, cancel: (reason) => controller.abort(reason) };
  };
}

/**
 * One attempt: the request, then the WHOLE body, under one per-attempt timer. A socket reset or a
 * stall in the middle of the body then fails the attempt, which is retried with the same
 * Idempotency-Key and replayed by the service (service-api.md §5.2), instead of failing after the
 * retries are spent.
 *
 * The timer and the caller's signal settle the attempt themselves, then cancel the exchange: a
 * custom `fetch` (a mock, a proxy) that ignores its signal still times out.
 */
function attempt(exchange: Exchanger, req: TransportRequest, init: ExchangeInit, secrets: readonly string[]): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const signal = req.signal;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    // Whatever a custom fetch throws is kept as thrown (even `undefined`): toSDKError maps it.
    const fail = (error: unknown, reason?: unknown) => {
      done();
      reject(error);
      // Also cancels the body of an answer already received (a stall mid-body).
      call.cancel(reason);
    };
    const timer = setTimeout(() => {
      const error = new AttemptTimeoutError(`No answer within ${req.timeout} ms.`);
      fail(error, error);
    }, req.timeout);
    const onAbort = () => fail(new CallerAbortError(), signal?.reason);
    signal?.addEventListener('abort', onAbort);
    const call = exchange(req.url, init);
    call.received.then(({ response, text }) => {
      done();
      try {
        resolve(settle(response, text, secrets));
      } catch (error) {
        reject(error);
      }
    }, fail);
  });
}

/** Redacts the key from what was received and parses a 2xx; a non-2xx throws {@link StatusError}. */
function settle(received: Response, raw: string, secrets: readonly string[]): TransportResponse {
  // A service or proxy that echoes the request ("Invalid key: Bearer sk_…", a header, a 2xx page)
  // must not put the key into anything the SDK hands back (API.md "Client": never in an error).
  // Redacting here, once, covers every status, the body text and the header values.
  const text = redactSecrets(raw, secrets);
  const headers = redactHeaderValues(received.headers, secrets);
  if (!received.ok) throw new StatusError(received.status, headers, text);
  let body: unknown;
  if (text !== '' && received.status !== 204 && received.status !== 205) {
    try {
      body = parseJson(text);
    } catch {
      throw new MalformedBodyError(text);
    }
  }
  // A 2xx is handed on as received (its body read): a new Response would cost a web stream per call.
  // One is built only when the headers echoed the key. A constructed Response has an empty `url`
  // and `redirected` false: the received ones are kept, so `.withResponse().response` tells where
  // the answer came from.
  let response = received;
  if (headers !== received.headers) {
    response = new Response(null, { status: received.status, statusText: received.statusText, headers });
    Object.defineProperties(response, { url: { value: received.url }, redirected: { value: received.redirected } });
  }
  return { response, body };
}

/** Retried failures (API.md): the statuses of {@link RETRY_STATUSES}, timeouts, network errors, cut bodies. */
function isRetryable(error: unknown): boolean {
  if (error instanceof StatusError) return (RETRY_STATUSES as readonly number[]).includes(error.status);
  // fetch rejects with a TypeError on a network error (Fetch standard), and so does reading a body
  // whose connection dropped (undici's "terminated"): the same request may well succeed again.
  return error instanceof AttemptTimeoutError || error instanceof MalformedBodyError || error instanceof TypeError;
}

/**
 * Milliseconds before retry number `retry`: the service's `Retry-After` on a retried status (seconds
 * or HTTP date, capped at {@link MAX_RETRY_AFTER_MS}), else the backoff.
 */
function retryDelay(error: unknown, retry: number, backoff: RetryBackoff): number {
  const seconds = error instanceof StatusError ? parseRetryAfter(error.headers.get('retry-after')) : undefined;
  return seconds === undefined ? backoffDelay(retry, backoff) : Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
}

/** Builds the transport of a client. */
export function createTransport(config: TransportConfig) {
  const backoff = config.backoff ?? {};
  const logger = config.logger;
  const secrets = [config.apiKey];
  // Resolved per call, not captured: tests and merchants may swap globalThis.fetch after construction.
  const viaFetch = fetchExchanger(config.fetch ?? ((input, init) => globalThis.fetch(input, init)));
  // On Node, node:http unless the client was given a fetch (node-http.ts says why and when).
  const viaNode = config.fetch ? undefined : nodeExchanger();

  /** Sends one call (with its retries). Resolves on 2xx; rejects with an SDK error. */
  return async function send(req: TransportRequest): Promise<TransportResponse> {
    logger?.debug(`payments-sdk: → ${req.method} ${req.url}`, { headers: redactHeaders(req.headers) });
    const started = Date.now();
    if (req.body !== undefined) req.headers.set('Content-Type', 'application/json');
    try {
      const payload = req.body === undefined ? undefined : toJson(req.body);
      for (let retry = 0; ; retry++) {
        // Checked before each attempt: an aborted signal sends nothing.
        if (req.signal?.aborted) throw new CallerAbortError();
        try {
          const exchange = viaNode?.() ?? viaFetch;
          const answer = await attempt(exchange, req, { method: req.method, headers: req.headers, body: payload }, secrets);
          logger?.debug(`payments-sdk: ← ${answer.response.status} ${req.method} ${req.url} (${Date.now() - started} ms)`);
          return answer;
        } catch (error) {
          if (retry >= req.maxRetries || req.signal?.aborted || !isRetryable(error)) throw error;
          logger?.info(`payments-sdk: retry ${retry + 1} of ${req.method} ${req.url} after ${describeFailure(error)}`);
          await sleep(retryDelay(error, retry + 1, backoff), req.signal).catch(() => {
            throw new CallerAbortError();
          });
        }
      }
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

/** Maps what an attempt or a custom fetch throws to the SDK's classes. */
export function toSDKError(error: unknown, req: Pick<TransportRequest, 'timeout' | 'signal' | 'method' | 'url'>): PaymentsError {
  if (error instanceof PaymentsError) return error;
  if (error instanceof StatusError) {
    return makeAPIError({
      status: error.status,
      body: error.text === '' ? undefined : reparse(error.text),
      headers: error.headers,
    }) as APIError;
  }
  if (req.signal?.aborted || error instanceof CallerAbortError) {
    return new APIUserAbortError(`${req.method} ${req.url} was aborted by the caller's signal.`, { cause: req.signal?.reason });
  }
  if (isNamedError(error, 'TimeoutError')) {
    const cause = new DOMException(`No answer within ${req.timeout} ms.`, 'TimeoutError');
    return new APITimeoutError(`${req.method} ${req.url} timed out: no answer within ${req.timeout} ms on the last attempt.`, { cause });
  }
  if (error instanceof MalformedBodyError) {
    return new ResponseValidationError([{ path: [], message: 'the body is not valid JSON' }], error.text);
  }
  if (error instanceof TypeError) {
    return new APIConnectionError(`Connection error on ${req.method} ${req.url}: ${describeCause(error)}`, { cause: error });
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : safeString(error);
  return new APIConnectionError(`Request ${req.method} ${req.url} failed: ${message}`, { cause: error });
}

/** An Error of that name (a `DOMException` TimeoutError from `AbortSignal.timeout()` is one). */
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

function describeCause(error: Error): string {
  // undici: TypeError('fetch failed') whose cause is the socket's error, with a `code` (ECONNREFUSED...).
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}

function describeFailure(error: unknown): string {
  if (error instanceof StatusError) return `status ${error.status}`;
  if (error instanceof AttemptTimeoutError) return 'a timeout';
  if (error instanceof MalformedBodyError) return 'a malformed body';
  return 'a connection error';
}
