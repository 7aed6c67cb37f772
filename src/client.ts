/**
 * `PaymentsClient` and the three request shapes every resource is built from:
 * {@link PaymentsClient.create}, {@link PaymentsClient.retrieve} and {@link PaymentsClient.list}.
 * All request behaviour (auth, headers, idempotency, validation, errors) lives here and in
 * `internal/http.ts`; resource methods are one call each (the two polling/walking helpers,
 * `waitForCompletion` and `findPayment`, are built on those calls).
 */

import type * as z from 'zod/mini';
import { APIPromise, type WithResponse } from './core/api-promise.js';
import { API_PREFIX, type ClientMode, modeOfKey, normalizeBaseUrl } from './internal/config.js';
import { MAX_TIMER_MS } from './internal/durations.js';
import { createTransport, DEFAULT_MAX_RESPONSE_BYTES, type RetryBackoff, type Send } from './internal/http.js';
import { isRecord } from './internal/is-record.js';
import { type Logger, type LogLevel, levelledLogger } from './internal/logger.js';
import { isBrowser, readEnv, runtimeName } from './internal/runtime.js';
import { checkData, checkParams, checkResponse, filterIssues, idempotencyKeyIssues, pathSegment } from './internal/validation.js';
import { CheckoutSessions } from './resources/checkout-sessions.js';
import { PaymentLinks } from './resources/payment-links.js';
import { Payments } from './resources/payments.js';
import { Payouts } from './resources/payouts.js';
import { Wallets } from './resources/wallets.js';
import { Webhooks } from './resources/webhooks.js';
import { listEnvelope } from './schemas/list-envelope.js';
import { VERSION } from './version.js';

export type { ClientMode };

import { APIError, PaymentsError } from './core/errors.js';
import { keepFilters, Page, PagePromise } from './core/pagination.js';
// --- telemetry wiring ---
import { type CallObserver, errorTypeOf, type Telemetry } from './core/telemetry.js';
// --- end telemetry wiring ---

/** Options of `new PaymentsClient()`. */
export interface ClientOptions {
  /** Secret API key. Default: env `PAYMENTS_API_KEY`. Missing → {@link PaymentsError} at construction. */
  apiKey?: string;
  /** Service root, e.g. `https://pay.example.com`. A trailing `/` or `/api/v1` is accepted. Default: env `PAYMENTS_BASE_URL`. */
  baseUrl?: string;
  /** Webhook signing secret(s) for `client.webhooks.verify`. Default: env `PAYMENTS_WEBHOOK_SECRET`. */
  webhookSecret?: string | string[];
  /** Milliseconds per attempt. Default 30 000. */
  timeout?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** A `fetch` to use instead of the global one (a mock, a proxy agent, instrumentation). */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Where log lines go (default `console`). `Authorization` is always redacted. */
  logger?: Logger;
  /** How much to log. Default `'off'`. */
  logLevel?: LogLevel;
  /** Backoff between retries. Default 500 ms doubling to 8 s, with jitter. */
  retryBackoff?: RetryBackoff;
  /**
   * Largest answer accepted, in bytes of its DECODED body (after gzip or brotli). Past it, reading
   * stops and the call fails with a {@link PaymentsError} naming the limit. Default 10 MiB
   * (10 485 760), some 240 full pages of 100 payments.
   */
  maxResponseBytes?: number;
  /**
   * Allows construction in a web browser. The API key is a secret: shipped to a browser, every
   * customer can read it. Only for trusted internal tools.
   */
  dangerouslyAllowBrowser?: boolean;
  /**
   * Where the client reports its calls and HTTP attempts: `openTelemetry()` from
   * `payments-sdk/opentelemetry`, or your own {@link Telemetry}. Default: nothing is measured.
   * See docs/telemetry.md.
   */
  telemetry?: Telemetry;
}

/** Per-call options: the optional last argument of every method. */
export interface RequestOptions {
  /**
   * Key for a creation; default a fresh UUID v4. The same key is sent on every retry of the call.
   * 1 to 255 printable ASCII characters, without leading or trailing spaces (it travels in a header).
   */
  idempotencyKey?: string;
  /** Milliseconds per attempt, for this call. */
  timeout?: number;
  /** Retries for this call. */
  maxRetries?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** The payments service client. */
export class PaymentsClient {
  /** Direct mobile-money charges. */
  readonly payments: Payments;
  /** Hosted checkout sessions. */
  readonly checkoutSessions: CheckoutSessions;
  /** Payouts (live keys only). */
  readonly payouts: Payouts;
  /** Reusable payment links. */
  readonly paymentLinks: PaymentLinks;
  /** Wallet balances. */
  readonly wallets: Wallets;
  /** Webhook verification with the client's `webhookSecret`. */
  readonly webhooks: Webhooks;

  /** The normalised service root (without `/api/v1`). */
  readonly baseUrl: string;
  /** `'live'`, `'sandbox'` or `'unknown'`, from the key's text. */
  readonly mode: ClientMode;
  /** Default milliseconds per attempt. */
  readonly timeout: number;
  /** Default retries. */
  readonly maxRetries: number;

  // Private fields: invisible to JSON.stringify, util.inspect and Object.keys.
  readonly #apiKey: string;
  readonly #webhookSecret: string | string[] | undefined;
  readonly #defaultHeaders: Record<string, string>;
  /** The headers the SDK sets on every call, last, so that no caller's header replaces them. */
  readonly #ownHeaders: [string, string][];
  /** All the headers of a call without headers of its own: built once (a `Headers` is still made per call). */
  readonly #baseHeaders: [string, string][];
  readonly #send: Send;
  readonly #telemetry: Telemetry | undefined;
  /** Where the service is, as telemetry reports it: read from `baseUrl` once. */
  readonly #server: { address: string; port: number } | undefined;
  // Computed once: the runtime does not change under a client.
  readonly #userAgent = `payments-sdk/${VERSION} (${runtimeName()})`;

  constructor(options: ClientOptions = {}) {
    if (isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new PaymentsError(
        'PaymentsClient was constructed in a browser. The API key is a secret and would be readable by every customer: ' +
          'call the payments service from your server. (Pass dangerouslyAllowBrowser: true only for trusted internal tools.)',
      );
    }
    const apiKey = options.apiKey ?? readEnv('PAYMENTS_API_KEY');
    if (typeof apiKey !== 'string' || apiKey.trim() === '') {
      throw new PaymentsError('No API key: pass { apiKey } to new PaymentsClient() or set the PAYMENTS_API_KEY environment variable.');
    }
    if (apiKey !== apiKey.trim()) {
      throw new PaymentsError(
        'The API key has leading or trailing whitespace: check how it is read from your environment or secret store.',
      );
    }
    if (!isHeaderSafe(`Bearer ${apiKey}`)) {
      // Checked here, not left to the first request: undici's TypeError for a bad header value
      // quotes the value, and so would print the whole key.
      throw new PaymentsError(
        'The API key contains a line break, a NUL or another character HTTP forbids in a header: ' +
          'check how it is read from your environment or secret store (a file with two lines, say).',
      );
    }
    const baseUrl = options.baseUrl ?? readEnv('PAYMENTS_BASE_URL');
    if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
      throw new PaymentsError('No base URL: pass { baseUrl } (the service root, e.g. "https://pay.example.com") or set PAYMENTS_BASE_URL.');
    }
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.#apiKey = apiKey;
    this.#webhookSecret = options.webhookSecret ?? readEnv('PAYMENTS_WEBHOOK_SECRET');
    this.mode = modeOfKey(apiKey);
    this.timeout = checkTimeout(options.timeout ?? 30_000, 'timeout');
    this.maxRetries = checkRetries(options.maxRetries ?? 2, 'maxRetries');
    this.#defaultHeaders = checkHeaders(options.headers, 'headers');
    this.#ownHeaders = [
      ['authorization', `Bearer ${apiKey}`],
      ['accept', 'application/json'],
      ['user-agent', this.#userAgent],
    ];
    const owned = new Set(this.#ownHeaders.map(([name]) => name));
    this.#baseHeaders = [...Object.entries(this.#defaultHeaders).filter(([name]) => !owned.has(name.toLowerCase())), ...this.#ownHeaders];
    this.#send = createTransport({
      fetch: options.fetch,
      apiKey,
      logger: levelledLogger(options.logger, options.logLevel),
      backoff: checkBackoff(options.retryBackoff),
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      maxResponseBytes: checkMaxResponseBytes(options.maxResponseBytes),
      observed: options.telemetry !== undefined,
    });
    this.#telemetry = checkTelemetry(options.telemetry);
    this.#server = this.#telemetry && serverOf(this.baseUrl);

    this.payments = new Payments(this);
    this.checkoutSessions = new CheckoutSessions(this);
    this.payouts = new Payouts(this);
    this.paymentLinks = new PaymentLinks(this);
    this.wallets = new Wallets(this);
    this.webhooks = new Webhooks(() => this.#webhookSecret);
  }

  /**
   * A creation (`POST`) with an `Idempotency-Key`: the caller's or a fresh UUID v4, the same on every
   * retry. Params are validated first (nothing is sent on bad input). Every error, whatever its
   * class, carries the key, so the operation can be retried later without charging twice.
   * @internal Used by resources.
   */
  create<P, T>(
    path: string,
    params: P,
    spec: { params: z.ZodMiniType<P>; result: z.ZodMiniType<T>; label: string },
    options: RequestOptions = {},
  ): APIPromise<T> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const run = async (call?: CallObserver): Promise<WithResponse<T>> => {
      // A bad key and bad params are named in one error: every bad field at once.
      const body = checkParams(spec.params, params, `${spec.label} params`, idempotencyKeyIssues(idempotencyKey));
      const headers = this.#headers(options);
      headers.set('Idempotency-Key', idempotencyKey);
      const { response, body: received } = await this.#send({
        method: 'POST',
        url: this.#url(path),
        headers,
        body,
        ...this.#attemptOptions(options),
        call,
      });
      // 201 is a creation; 200 is the service replaying an earlier one with the same key.
      return {
        data: checkData(spec.result, received, `${spec.label} response`),
        response,
        idempotencyKey,
        replayed: response.status === 200,
      };
    };
    return new APIPromise(
      this.#observed('create', path, run, idempotencyKey).catch((error: unknown) => {
        if (error instanceof PaymentsError) error.idempotencyKey = idempotencyKey;
        throw error;
      }),
    );
  }

  /**
   * `GET` of one object by identifier (URL-encoded), unwrapped from `{ data }`.
   * @internal Used by resources.
   */
  retrieve<T>(
    pathPrefix: string,
    id: string | number,
    spec: { result: z.ZodMiniType<T>; label: string },
    options: RequestOptions = {},
  ): APIPromise<T> {
    return new APIPromise(
      this.#observed('retrieve', pathPrefix, async (call) => {
        const { response, body } = await this.#get(`${pathPrefix}/${pathSegment(id, spec.label)}`, options, call);
        return { data: checkData(spec.result, body, `${spec.label} response`), response, replayed: false };
      }),
    );
  }

  /**
   * `GET` of a list that is not paginated (the wallet list): the list, unwrapped from `{ data }` (a
   * bare array is accepted too), goes to its schema; an error names the bad items by their path in
   * the body (`data.1`, or `1` in a bare array) and carries the whole body.
   * @internal Used by resources.
   */
  getUnpaginated<T>(path: string, spec: { result: z.ZodMiniType<T>; label: string }, options: RequestOptions = {}): APIPromise<T> {
    return new APIPromise(
      this.#observed('list', path, async (call) => {
        const { response, body } = await this.#get(path, options, call);
        const data =
          isRecord(body) && 'data' in body ? checkData(spec.result, body, spec.label) : checkResponse(spec.result, body, spec.label);
        return { data, response, replayed: false };
      }),
    );
  }

  /**
   * A paginated list: params validated, `Date` filters sent as their UTC date, and each next page
   * requested at the configured base URL with the path and query of `links.next`.
   * @internal Used by resources.
   */
  list<P extends object, T>(
    path: string,
    params: P | undefined,
    spec: { params: z.ZodMiniType<P>; item: z.ZodMiniType<T>; label: string },
    options: RequestOptions = {},
  ): PagePromise<T> {
    const envelopeSchema = listEnvelope(spec.item);
    // Each page knows how to fetch the next: the path and query of its links.next, plus the first
    // request's filters when the link dropped them (keepFilters).
    // One observed call per page read.
    const fetchPage = (pathAndQuery: string, filters: string): Promise<WithResponse<Page<T>>> =>
      this.#observed('list', path, async (call) => {
        const { response, body } = await this.#get(pathAndQuery, options, call);
        const envelope = checkResponse(envelopeSchema, body, `${spec.label} page`);
        return { data: new Page(envelope, (next) => fetchPage(keepFilters(next, filters), filters)), response, replayed: false };
      });
    return new PagePromise(
      (async () => {
        const checked = checkParams(spec.params, params ?? {}, `${spec.label} list params`, filterIssues(params));
        const filters = toQueryString(checked as Record<string, unknown>);
        return fetchPage(`${path}${filters}`, filters);
      })(),
    );
  }

  #get(pathAndQuery: string, options: RequestOptions, call: CallObserver | undefined) {
    return this.#send({
      method: 'GET',
      url: this.#url(pathAndQuery),
      headers: this.#headers(options),
      ...this.#attemptOptions(options),
      call,
    });
  }

  // --- telemetry wiring: one observed call per SDK call (per page, for a list) ---

  /** The telemetry of this client, for the bulk runner. @internal */
  get telemetry(): Telemetry | undefined {
    return this.#telemetry;
  }

  /**
   * Runs `work` as the SDK call `<resource>.<kind>` on `path` (`/payments`), reported to the
   * client's telemetry when it has one; without one, `work` runs as it is.
   */
  #observed<T>(
    kind: 'create' | 'retrieve' | 'list',
    path: string,
    work: (call: CallObserver | undefined) => Promise<WithResponse<T>>,
    idempotencyKey?: string,
  ): Promise<WithResponse<T>> {
    const telemetry = this.#telemetry;
    const server = this.#server;
    if (telemetry === undefined || server === undefined) return work(undefined);
    const call = telemetry.onCall({
      operation: `${resourceName(path)}.${kind}`,
      method: kind === 'create' ? 'POST' : 'GET',
      urlTemplate: `${API_PREFIX}${path}${kind === 'retrieve' ? `/${idPlaceholder(path)}` : ''}`,
      serverAddress: server.address,
      serverPort: server.port,
      mode: this.mode,
      idempotencyKey,
    });
    return work(call).then(
      (result) => {
        call.end({ status: result.response.status, replayed: result.replayed });
        return result;
      },
      (error: unknown) => {
        call.end({ errorType: errorTypeOf(error), status: error instanceof APIError ? error.status : undefined });
        throw error;
      },
    );
  }

  // --- end telemetry wiring ---

  #url(pathAndQuery: string): string {
    return `${this.baseUrl}${API_PREFIX}${pathAndQuery}`;
  }

  #headers(options: RequestOptions): Headers {
    // The common call has no headers of its own: its list is built once, at construction.
    if (options.headers === undefined) return new Headers(this.#baseHeaders);
    const headers = new Headers(this.#defaultHeaders);
    for (const [k, v] of Object.entries(checkHeaders(options.headers, 'options.headers'))) headers.set(k, v);
    for (const [k, v] of this.#ownHeaders) headers.set(k, v);
    return headers;
  }

  #attemptOptions(options: RequestOptions) {
    return {
      timeout: options.timeout === undefined ? this.timeout : checkTimeout(options.timeout, 'options.timeout'),
      maxRetries: options.maxRetries === undefined ? this.maxRetries : checkRetries(options.maxRetries, 'options.maxRetries'),
      signal: options.signal,
    };
  }

  /** What `JSON.stringify(client)` shows: settings, never the key. */
  toJSON() {
    return { baseUrl: this.baseUrl, mode: this.mode, timeout: this.timeout, maxRetries: this.maxRetries };
  }

  /** What `util.inspect(client)` / `console.log(client)` shows: settings, never the key. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PaymentsClient ${JSON.stringify(this.toJSON())}`;
  }
}

/** Serialises list params; `Date` values become their UTC `YYYY-MM-DD`. */
export function toQueryString(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Date) query.set(key, value.toISOString().slice(0, 10));
    else if (Array.isArray(value)) for (const v of value) query.append(key, String(v));
    else query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

// --- telemetry wiring ---

/** The resource of a path, as merchants call it: `/checkout-sessions` → `checkoutSessions`. */
function resourceName(path: string): string {
  return (path.split('/')[1] ?? '').replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The placeholder of a resource's identifier in its path template, as the service documents it. */
function idPlaceholder(path: string): string {
  if (path === '/payments') return '{uuid}';
  if (path === '/checkout-sessions') return '{reference}';
  return '{id}';
}

/** The host (an IPv6 address without its brackets) and port of the service root. */
function serverOf(baseUrl: string): { address: string; port: number } {
  const url = new URL(baseUrl);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { address: url.hostname.replace(/^\[|\]$/g, ''), port };
}

/** `telemetry`: an object with the hooks the client calls. */
function checkTelemetry(telemetry: Telemetry | undefined): Telemetry | undefined {
  if (telemetry === undefined) return undefined;
  if (telemetry === null || typeof telemetry !== 'object' || typeof telemetry.onCall !== 'function') {
    throw new PaymentsError('telemetry must be an object with an onCall hook, such as openTelemetry() from payments-sdk/opentelemetry.');
  }
  return telemetry;
}

// --- end telemetry wiring ---

/** `true` when `Headers` accepts this value (and name); never lets its TypeError, which quotes the value, out. */
function isHeaderSafe(value: string, name = 'authorization'): boolean {
  try {
    new Headers([[name, value]]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks header names and values before anything is sent. `Headers` would throw a TypeError that
 * quotes the value (a token, say): the error names the bad headers only.
 */
function checkHeaders(headers: Record<string, string> | undefined, name: string): Record<string, string> {
  if (headers === undefined) return {};
  if (!isRecord(headers)) {
    throw new PaymentsError(`${name} must be an object of header names to string values.`);
  }
  const bad: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (!isHeaderSafe(String(value), key)) bad.push(JSON.stringify(key));
  }
  if (bad.length > 0) {
    throw new PaymentsError(`${name}: invalid HTTP header name or value for ${bad.join(', ')} (a line break or a character HTTP forbids).`);
  }
  return { ...headers };
}

function checkTimeout(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new PaymentsError(`${name} must be a number of milliseconds between 1 and ${MAX_TIMER_MS}, got ${String(value)}.`);
  }
  return value;
}

/** `retryBackoff`: each given delay a number of milliseconds from 0 to MAX_TIMER_MS; every bad one named. */
function checkBackoff(backoff: RetryBackoff | undefined): RetryBackoff | undefined {
  if (backoff === undefined) return undefined;
  if (backoff === null || typeof backoff !== 'object') {
    throw new PaymentsError(`retryBackoff must be an object { initialMs?, maxMs? }, got ${backoff === null ? 'null' : typeof backoff}.`);
  }
  const bad = (['initialMs', 'maxMs'] as const).filter((key) => {
    const value = backoff[key];
    return value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS);
  });
  if (bad.length > 0) {
    throw new PaymentsError(
      `retryBackoff: ${bad.map((key) => `${key} must be a number of milliseconds between 0 and ${MAX_TIMER_MS}, got ${String(backoff[key])}`).join('; ')}.`,
    );
  }
  return { ...backoff };
}

/** `maxResponseBytes`: a whole number of bytes, at least 1 KiB (a page of the service fits many times). */
function checkMaxResponseBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(value) || value < 1024) {
    throw new PaymentsError(`maxResponseBytes must be a whole number of bytes of at least 1024, got ${String(value)}.`);
  }
  return value;
}

function checkRetries(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 10) {
    throw new PaymentsError(`${name} must be an integer from 0 to 10, got ${String(value)}.`);
  }
  return value;
}
