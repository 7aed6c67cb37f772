/**
 * The transport: how one SDK call reaches the service and comes back. Two functions, read top to
 * bottom:
 *
 * - {@link Transport.send} is one CALL: attempts until one succeeds, one fails for good, or the
 *   retries are spent; waits the backoff (or `Retry-After`) between attempts; logs; throws the last
 *   failure as an SDK error, the key redacted.
 * - `attempt` is one HTTP ATTEMPT: ky over `fetch` sends the request; the WHOLE body is read under
 *   the attempt's timeout, capped at `maxResponseBytes`, the key redacted, the JSON parsed; it
 *   returns `{ response, body }` for a 2xx and throws an SDK error for anything else.
 *
 * ky sends each attempt (the base URL as its `prefix`, `redirect: 'manual'`, the platform `fetch`
 * bound per request). Its own retry loop is not used: it retries only until the headers arrive,
 * and an attempt here includes reading the body, so that a body cut short or stalled half-way is
 * retried, with the same Idempotency-Key, like an attempt that never got an answer.
 */
import ky, { NetworkError } from 'ky';
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
import { type AttemptObserver, type CallObserver, errorTypeOf } from '../core/telemetry.js';
import { readCapped } from './capped-stream.js';
import { isRecord } from './is-record.js';
import { parseJson } from './json.js';
import type { LevelledLogger } from './logger.js';
import { maskPersonalData, maskText } from './personal-data.js';
import { redactDeep, redactHeaders, redactSecrets, sanitizeError } from './redaction.js';
import { parseRetryAfter } from './retry-after.js';
import { safeString } from './safe-string.js';
import { sleep } from './sleep.js';

/** Statuses that mean "try again later": 408, 429 and the 5xx of a busy or restarting service. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** `Retry-After` is honoured up to this many milliseconds. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Default of the `maxResponseBytes` client option: 10 MiB, some 240 full pages of 100 payments. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * Whether a failed call is worth another attempt with the same Idempotency-Key: the service
 * answered a status that means "try again later" (408, 429, 500, 502, 503, 504), or no answer came
 * (the connection failed or was cut, which `fetch` reports as a `TypeError`, or the attempt timed
 * out). A refusal (another 4xx), the caller's abort, bad input and a 2xx of the wrong shape are not.
 * The client's retries and the bulk payout runner both decide with this; the client's own attempts
 * also retry a 2xx whose body is not JSON (see `send`).
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof APIError) return RETRY_STATUSES.has(error.status);
  if (error instanceof APITimeoutError) return true;
  return error instanceof APIConnectionError && error.cause instanceof TypeError;
}

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
  const exponential = Math.min(backoff.maxMs ?? 8_000, (backoff.initialMs ?? 500) * 2 ** (attempt - 1));
  return exponential * (0.5 + random() / 2);
}

/**
 * The wait before retry number `retry` (1-based) after `error`: its `Retry-After` (capped), else the
 * backoff. Shared by the client's retries and the bulk payout runner's.
 */
export function retryDelay(error: unknown, retry: number, backoff?: RetryBackoff): number {
  const seconds = error instanceof APIError ? parseRetryAfter(error.headers.get('retry-after')) : undefined;
  return seconds === undefined ? backoffDelay(retry, backoff) : Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
}

/** The HTTP methods a call can use. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Settings fixed when the client is built. */
export interface TransportConfig {
  /** The client's `fetch` option; the global `fetch` (read per attempt) when absent. */
  fetch?: typeof fetch | undefined;
  /** The API root every path is under: the base URL and `/api/v1`. */
  apiRoot: string;
  /**
   * The client's API key, read once per call before anything is sent (a key function may answer
   * another key for each call): sent as `Authorization` and redacted from every answer (the only
   * secret a request carries). Rejects with a {@link PaymentsError} when there is no key.
   */
  apiKey: () => Promise<string>;
  logger?: LevelledLogger | undefined;
  backoff?: RetryBackoff | undefined;
  /** Largest decoded body accepted, in bytes. */
  maxResponseBytes: number;
}

/** One call, as the client hands it over: everything already checked. */
export interface CallRequest {
  method: HttpMethod;
  /** Path and query under the API root, e.g. `/payments/9b2f…` or `/payments?page=2`. */
  path: string;
  headers: Headers;
  /** The body, as JSON text (see {@link jsonBody}). */
  body?: string | undefined;
  /** Milliseconds per attempt. */
  timeout: number;
  /** Attempts after the first one. */
  maxRetries: number;
  signal?: AbortSignal | undefined;
  /** The telemetry handle of the call, when the client has telemetry: each attempt is reported to it. */
  observer?: CallObserver | undefined;
}

/** A 2xx answer: the response (its body read) and the body, parsed, the key redacted. */
export interface Received {
  response: Response;
  body: unknown;
}

/** What {@link createTransport} returns. */
export interface Transport {
  /** Sends one call (with its retries). Resolves on a 2xx; rejects with an SDK error. */
  send(call: CallRequest): Promise<Received>;
}

/** Builds the transport of a client (and of the clients `withOptions` derives from it). */
export function createTransport(config: TransportConfig): Transport {
  const { logger, apiRoot, maxResponseBytes } = config;
  const backoff = config.backoff ?? {};
  const api = ky.create({
    prefix: apiRoot,
    // Without one, ky binds globalThis.fetch for each request: a program (or msw) may replace it at
    // any time.
    fetch: config.fetch,
    // One attempt per ky call: `send` below is the retry loop (see the module comment).
    retry: 0,
    // The attempt's own timer covers the body too (ky's stops when the headers arrive).
    timeout: false,
    // Every status comes back as a Response; the attempt maps it.
    throwHttpErrors: false,
    // A 3xx comes back as it is and becomes an APIError: followed, a POST would be replayed as a GET
    // and the key could go to another host.
    redirect: 'manual',
  });
  const debugging = logger?.debugging === true;

  /**
   * One SDK call: attempts until one succeeds, one fails for good, or the retries are spent. The
   * error a call ends with is logged once, here.
   */
  async function send(call: CallRequest): Promise<Received> {
    // Messages and logs name the URL without its query: a query given to client.request may hold a
    // customer's phone or e-mail.
    const url = `${apiRoot}${call.path.split('?')[0]}`;
    const started = logger ? Date.now() : 0;
    try {
      let key: string;
      try {
        key = await config.apiKey();
      } catch (error) {
        // A key function that threw (a secret manager down): a PaymentsError like every failure of a call.
        throw error instanceof PaymentsError
          ? error
          : new PaymentsError(`The apiKey function failed (${errorTypeOf(error)}): nothing was sent.`, { cause: error });
      }
      call.headers.set('authorization', `Bearer ${key}`);
      const secrets = [key];
      for (let retry = 1; ; retry++) {
        const observer = call.observer?.onAttempt({ resendCount: retry - 1 });
        // What `attempt` throws is an SDK error: its catch maps anything else.
        let failure: PaymentsError;
        try {
          const received = await attempt(call, url, secrets);
          observer?.end({ status: received.response.status });
          if (debugging) {
            logger?.log('debug', `payments-sdk: ← ${received.response.status} ${call.method} ${url} (${Date.now() - started} ms)`, {
              body: maskPersonalData(received.body, secrets),
            });
          }
          return received;
        } catch (error) {
          failure = error as PaymentsError;
        }
        const failed = attemptFailure(failure);
        observer?.end(failed);
        // Retried besides what isRetryable says: a 2xx whose body is not JSON (a body cut short, a
        // proxy's page), the one ResponseValidationError an attempt throws (the schema is checked
        // once the call is over). Methods retried: those the service may safely see twice. GET, PUT
        // and DELETE by their meaning; POST because the SDK sends every POST with an
        // Idempotency-Key, the same on every attempt. PATCH is sent once.
        const retryable = isRetryable(failure) || failure instanceof ResponseValidationError;
        if (retry > call.maxRetries || !retryable || call.method === 'PATCH') throw failure;
        logger?.log('info', `payments-sdk: retry ${retry} of ${call.method} ${url} after ${failed.errorType}`);
        // The caller's abort during the wait rejects with an APIUserAbortError.
        await sleep(retryDelay(failure, retry, backoff), call.signal);
      }
    } catch (error) {
      if (logger) logFailure(logger, error as PaymentsError, call, url);
      throw error;
    }
  }

  /**
   * One HTTP attempt: the request, then the WHOLE body, under the attempt's timeout. Returns
   * `{ response, body }` for a 2xx; throws an SDK error (a ResponseValidationError for a 2xx
   * whose body is not JSON) for anything else.
   */
  async function attempt(call: CallRequest, url: string, secrets: readonly string[]): Promise<Received> {
    // Aborted by the attempt's timer or by the caller's signal, whichever fires first.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`No answer within ${call.timeout} ms.`, 'TimeoutError')),
      call.timeout,
    );
    const callerSignal = call.signal;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      // Checked first: an aborted signal sends nothing.
      callerSignal?.throwIfAborted();
      if (debugging) {
        logger?.log('debug', `payments-sdk: → ${call.method} ${url}`, {
          headers: redactHeaders(call.headers),
          // The body is JSON text, as jsonBody made it.
          body: call.body === undefined ? undefined : maskPersonalData(JSON.parse(call.body), secrets),
        });
      }
      const exchange = async () => {
        const response = await api(call.path, { method: call.method, headers: call.headers, body: call.body, signal: controller.signal });
        return received(response, await readText(response, maxResponseBytes, call.method, url), secrets);
      };
      // A custom `fetch` may ignore its signal: the attempt ends when the signal fires all the same.
      return await untilAborted(exchange(), controller.signal);
    } catch (error) {
      if (error instanceof PaymentsError) throw error;
      if (callerSignal?.aborted) {
        throw new APIUserAbortError(`${call.method} ${url} was aborted by the caller's signal.`, { cause: callerSignal.reason });
      }
      // Not the caller: the attempt's timer.
      if (controller.signal.aborted) {
        throw new APITimeoutError(`${call.method} ${url} timed out: no answer within ${call.timeout} ms on the last attempt.`, {
          cause: controller.signal.reason,
        });
      }
      throw connectionError(error, call.method, url, secrets);
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  return { send };
}

/**
 * Logs a call that failed for good. An answer of the service is logged by its status, error class
 * and the names of the fields it refused: its message may quote what the customer typed (a name, a
 * phone number), so it is never logged. The SDK's own messages are logged masked.
 */
function logFailure(logger: LevelledLogger, error: PaymentsError, call: CallRequest, url: string): void {
  // A refusal (4xx: the request itself was wrong) is a warning; the service or the network failing
  // for good (5xx, no answer, timeout, a 2xx of the wrong shape) is an error.
  const refused = error instanceof APIError && error.status < 500;
  // The names of the fields the service refused (only an APIError has `errors`), masked.
  const fields = Object.keys((error as APIError).errors ?? {}).map((field) => maskText(field));
  const what =
    error instanceof APIError
      ? `${error.name} (${error.status})${fields.length === 0 ? '' : ` (fields: ${fields.join(', ')})`}`
      : `${error.name}: ${maskText(error.message)}`;
  logger.log(refused ? 'warn' : 'error', `payments-sdk: ${call.method} ${url} failed: ${what}`);
}

/**
 * The answer of one attempt, its body read: `{ response, body }` for a 2xx, else the error it
 * stands for. A service or proxy that echoes the request ("Invalid key: Bearer sk_…", a header, a
 * 2xx page) must not put the key into anything the SDK hands back: the key is redacted here, once,
 * from the text, the headers and, when JSON escapes could spell it otherwise, the parsed body.
 */
function received(raw: Response, rawText: string, secrets: readonly string[]): Received {
  const text = redactSecrets(rawText, secrets);
  const response = withRedactedHeaders(raw, secrets);
  let body: unknown;
  // A 204 or 205 has no body (fetch and the Response constructor both see to it): its text is ''.
  if (text !== '') {
    try {
      body = parseJson(text);
    } catch {
      // A 2xx that is not JSON (retried by `send`).
      if (response.ok) throw new ResponseValidationError([{ path: [], message: 'the body is not valid JSON' }], text);
    }
    // An error status keeps its body as text unless it is a JSON object or array: an HTML 502 page,
    // a bare `Bad Gateway` or `502`.
    if (!response.ok && (typeof body !== 'object' || body === null)) body = text;
  }
  // Without a `\` in the text, every parsed string is a slice of it, already redacted. With one, a
  // JSON escape (`\/`, `\u0073`) may have spelled the key differently, in a value or in a property
  // name: the parsed body is redacted too.
  if (text.includes('\\')) body = redactDeep(body, secrets);
  if (!response.ok) throw makeAPIError({ status: response.status, body, headers: response.headers });
  return { response, body };
}

/**
 * How a failed attempt is named, to telemetry and in the retry log line: an error status as its
 * text (`'503'`), else the SDK error's class name (`'APITimeoutError'`, `'APIConnectionError'`,
 * `'APIUserAbortError'`, and `'ResponseValidationError'` for a 2xx whose body is not JSON).
 */
function attemptFailure(error: PaymentsError): Parameters<AttemptObserver['end']>[0] {
  return error instanceof APIError ? { status: error.status, errorType: String(error.status) } : { errorType: error.name };
}

/**
 * What a `fetch` threw, as an {@link APIConnectionError}, the key redacted from its message and its
 * cause. ky wraps fetch's own network errors: the SDK reports (and keeps, sanitised) what fetch threw.
 */
export function connectionError(error: unknown, method: string, url: string, secrets: readonly string[]): APIConnectionError {
  const thrown = error instanceof NetworkError ? error.cause : error;
  // undici: TypeError('fetch failed') whose cause is the socket's error, with a `code` (ECONNREFUSED...).
  const code = thrown instanceof Error && isRecord(thrown.cause) ? thrown.cause.code : undefined;
  const what =
    thrown instanceof Error ? `${thrown.name}: ${thrown.message}${typeof code === 'string' ? ` (${code})` : ''}` : safeString(thrown);
  return new APIConnectionError(redactSecrets(`Connection error on ${method} ${url}: ${what}`, secrets), {
    cause: sanitizeError(thrown, secrets),
  });
}

/**
 * The body as JSON text. Params passed their schema, but a `metadata` value may still be a BigInt or
 * hold a cycle: that is bad input, named as such before anything is sent, not a connection error.
 */
export function jsonBody(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    // First line only: V8 draws the cycle over several lines.
    const reason = (error instanceof Error ? error.message : safeString(error)).split('\n')[0];
    throw new InvalidParamsError([{ path: [], message: `cannot be sent as JSON (${reason})` }]);
  }
}

/** Settles as `work` does, or rejects as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The body as text (UTF-8, a leading BOM dropped, bad bytes replaced, as `Response.text()`), read
 * while counting its DECODED bytes: past `max`, the body is cancelled and the call fails.
 */
async function readText(response: Response, max: number, method: string, url: string): Promise<string> {
  // A length announced above the cap, not encoded, is refused before anything is read.
  if (Number(response.headers.get('content-length')) > max && !response.headers.has('content-encoding')) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(max, method, url);
  }
  const stream = response.body;
  if (!stream) return '';
  const decoder = new TextDecoder();
  let text = '';
  const whole = await readCapped(stream, max, (chunk) => {
    text += decoder.decode(chunk, { stream: true });
  });
  if (!whole) throw tooLarge(max, method, url);
  return text + decoder.decode();
}

function tooLarge(max: number, method: string, url: string): PaymentsError {
  return new PaymentsError(`The answer to ${method} ${url} is larger than maxResponseBytes (${max} bytes).`);
}

/** The response, or a copy without body whose header values no longer hold a secret. */
function withRedactedHeaders(raw: Response, secrets: readonly string[]): Response {
  let leaks = false;
  raw.headers.forEach((value) => {
    leaks ||= redactSecrets(value, secrets) !== value;
  });
  if (!leaks) return raw;
  const headers = new Headers();
  raw.headers.forEach((value, name) => {
    headers.append(name, redactSecrets(value, secrets));
  });
  // A received status is one a constructed Response takes (200–599); its `url` and `redirected` are
  // the received ones, not a constructed Response's empty defaults.
  const response = new Response(null, { status: raw.status, statusText: raw.statusText, headers });
  for (const key of ['url', 'redirected'] as const) Object.defineProperty(response, key, { value: raw[key] });
  return response;
}
