// `PaymentsClient`: its settings, checked once; the resources; and the calls they are built from.
//
// The path of a read, top to bottom: `client.payments.retrieve(uuid)` (resources/payments.ts) calls
// `PaymentsClient.getObject('/payments/{uuid}', uuid, PaymentSchema)` here, which builds the path;
// `#call`, the one sender of every call, adds the headers and hands the call to the
// transport (internal/transport.ts: `send` is the call and its retries, `attempt` one HTTP attempt:
// ky over fetch, the body read, the key redacted, the JSON parsed). The answer comes back here as
// `{ response, body }`; `checkData` (internal/validation.ts) validates its `data` member against the
// resource's zod schema, and the caller gets an `APIPromise` (core/api-promise.ts).

import * as z from 'zod/mini';
import { APIPromise, type WithResponse } from './core/api-promise.js';
import { APIError, PaymentsError } from './core/errors.js';
// --- telemetry wiring ---
import { guardTelemetry } from './core/guarded-telemetry.js';
import { keepFilters, Page, PagePromise } from './core/pagination.js';
import type { RequestOptions } from './core/request-options.js';
import { type CallObserver, errorTypeOf, type Telemetry, type TelemetryCallInfo, type TelemetryCallResult } from './core/telemetry.js';
import { kind } from './internal/article.js';
import { API_PREFIX, type ClientMode, modeOfKey, normalizeBaseUrl } from './internal/config.js';
import { MAX_TIMER_MS } from './internal/durations.js';
import { isRecord } from './internal/is-record.js';
import { type Logger, type LogLevel, levelledLogger } from './internal/logger.js';
import { isBrowser, missingSettingMessage, readEnv, runtimeName } from './internal/runtime.js';
import { safeString } from './internal/safe-string.js';
import {
  type CallRequest,
  createTransport,
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpMethod,
  jsonBody,
  type RetryBackoff,
  type Transport,
} from './internal/transport.js';
import {
  checkData,
  checkOptions,
  checkParams,
  checkResponse,
  filterIssues,
  idempotencyKeyIssues,
  pathSegment,
  textProblem,
} from './internal/validation.js';
import { CheckoutSessions } from './resources/checkout-sessions.js';
import { PaymentLinks } from './resources/payment-links.js';
import { Payments } from './resources/payments.js';
import { Payouts } from './resources/payouts.js';
import { Wallets } from './resources/wallets.js';
import { Webhooks } from './resources/webhook-verifier.js';
import { listEnvelope } from './schemas/list-envelope.js';
import { milliseconds } from './schemas/primitives.js';
import { VERSION } from './version.js';

// --- end telemetry wiring ---

export type { ClientVerifyWebhookInput, Webhooks } from './resources/webhook-verifier.js';
export type { ClientMode, HttpMethod, RequestOptions, RetryBackoff };

/** Options of `new PaymentsClient()`. */
export interface ClientOptions {
  /**
   * Secret API key: a string, or a function that returns it (or a promise of it), for a key kept in
   * a secret manager or rotated: the function is called once per SDK call, before anything is sent.
   * Default: env `PAYMENTS_API_KEY`. A missing key does not fail construction (a client built at
   * module level survives a framework's build step): the first call fails with a
   * {@link PaymentsError} that names `PAYMENTS_API_KEY`, and nothing is sent.
   *
   * ```ts
   * const client = new PaymentsClient({ apiKey: () => secrets.get('payments-api-key') });
   * ```
   */
  apiKey?: string | (() => string | Promise<string>);
  /**
   * A plugin or platform built on the SDK, added to the `User-Agent` of every request (as
   * `name/version (+url)`), so that the service can tell its traffic apart. Each part is a string
   * without spaces or line breaks.
   */
  appInfo?: {
    /** The plugin's name, e.g. `shop-plugin`. */
    name: string;
    /** Its version, e.g. `1.4.0`. */
    version?: string;
    /** Where to learn about it, e.g. `https://shop.example.com/plugin`. */
    url?: string;
  };
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

/**
 * What {@link PaymentsClient.withOptions} can change: the defaults of each call, and the API key (a
 * platform acting for one of its merchants). The base URL, the webhook secret, the `fetch` and the
 * telemetry stay the client's.
 */
export type ClientDefaults = Pick<
  ClientOptions,
  'apiKey' | 'timeout' | 'maxRetries' | 'headers' | 'retryBackoff' | 'maxResponseBytes' | 'logger' | 'logLevel'
>;

/**
 * A call to an endpoint of the service that the SDK does not model yet, for
 * {@link PaymentsClient.request}.
 */
export interface APIRequest<T = unknown> {
  /** The HTTP method. A `POST` carries an `Idempotency-Key`; a `PATCH` is never retried. */
  method: HttpMethod;
  /** The path under `/api/v1`, starting with `/`: `'/refunds'`, `` `/refunds/${encodeURIComponent(id)}` ``. */
  path: string;
  /** The JSON body (not on a `GET`). */
  body?: unknown;
  /** Query parameters: strings, finite numbers, booleans or Dates (sent as their UTC `YYYY-MM-DD`); `undefined`/`null` are left out. */
  query?: Record<string, string | number | boolean | Date | null | undefined>;
  /**
   * A zod schema (classic or mini) for the WHOLE answer body, `{ data: … }` included: the call
   * resolves to what it parses, or rejects with a `ResponseValidationError` naming every bad field.
   * Without one, the call resolves to the body as received, unchecked.
   */
  schema?: z.core.$ZodType<T>;
}

/** The payments service client. */
// The resources take it as their `ResourceClient` (core/resource.ts), structurally: not named here, so
// that the published class does not point merchants at an internal interface.
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
  /** Default milliseconds per attempt. */
  readonly timeout: number;
  /** Default retries. */
  readonly maxRetries: number;

  // Private fields: invisible to JSON.stringify, util.inspect and Object.keys.
  /** The options this client was built with, the key, base URL and secret resolved: what `withOptions` starts from. */
  readonly #options: ClientOptions;
  /**
   * Where the key comes from: the key itself (given or found in the environment), checked at
   * construction; a function read at each call; or, with no key at all, the environment, read again
   * at each call, so that construction never throws for a missing key.
   */
  readonly #keySource: string | (() => string | Promise<string>) | undefined;
  /** The kind of the key last read (`'unknown'` until a key function has been called). */
  #mode: ClientMode = 'unknown';
  readonly #webhookSecret: string | string[] | undefined;
  readonly #defaultHeaders: Record<string, string>;
  /** The headers the SDK sets on every call, last, so that no caller's header replaces them. */
  readonly #ownHeaders: [string, string][];
  /**
   * All the headers of a call without headers of its own: built once, copied per call. A `Headers`,
   * not a list of pairs: msw's patched `Headers` keeps a list it is built from as its own store, so
   * a header set on one call (an Idempotency-Key) would reach the next.
   */
  readonly #baseHeaders: Headers;
  readonly #transport: Transport;
  readonly #telemetry: Telemetry | undefined;
  /** Where the service is, as telemetry reports it: read from `baseUrl` once. */
  readonly #server: Pick<TelemetryCallInfo, 'serverAddress' | 'serverPort'>;

  constructor(options: ClientOptions = {}) {
    if (isBrowser() && !options.dangerouslyAllowBrowser) {
      throw new PaymentsError(
        'PaymentsClient was constructed in a browser. The API key is a secret and would be readable by every customer: ' +
          'call the payments service from your server. (Pass dangerouslyAllowBrowser: true only for trusted internal tools.)',
      );
    }
    // Every bad option named in one error, before the key and the base URL are read.
    const checked = checkOptions(ClientOptionsSchema, options, 'PaymentsClient options');
    const apiKey = checked.apiKey ?? readEnv('PAYMENTS_API_KEY');
    this.#keySource = typeof apiKey === 'string' && apiKey.trim() === '' ? undefined : apiKey;
    if (typeof this.#keySource === 'string') {
      checkKeyText(this.#keySource);
      this.#mode = modeOfKey(this.#keySource);
    }
    const baseUrl = options.baseUrl ?? readEnv('PAYMENTS_BASE_URL');
    if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
      // Told as a missing key is: on Workers the variable is in the handler's env, on Deno it may be unreadable.
      throw new PaymentsError(missingSettingMessage('No base URL', 'baseUrl', 'PAYMENTS_BASE_URL', 'new PaymentsClient()'));
    }
    this.baseUrl = normalizeBaseUrl(baseUrl);
    this.#webhookSecret = options.webhookSecret ?? readEnv('PAYMENTS_WEBHOOK_SECRET');
    this.#options = { ...options, baseUrl: this.baseUrl, webhookSecret: this.#webhookSecret };
    this.timeout = checked.timeout ?? 30_000;
    this.maxRetries = checked.maxRetries ?? 2;
    this.#defaultHeaders = { ...checked.headers };
    // `authorization` is set by the transport, once the call has read the key.
    this.#ownHeaders = [
      ['accept', 'application/json'],
      // The runtime does not change under a client: read once.
      ['user-agent', `payments-sdk/${VERSION} (${runtimeName()})${appInfoText(checked.appInfo)}`],
    ];
    this.#baseHeaders = new Headers(this.#defaultHeaders);
    for (const [name, value] of this.#ownHeaders) this.#baseHeaders.set(name, value);
    this.#transport = createTransport({
      fetch: options.fetch,
      apiRoot: `${this.baseUrl}${API_PREFIX}`,
      apiKey: () => this.#readKey(),
      logger: levelledLogger(options.logger, options.logLevel),
      backoff: checked.retryBackoff,
      maxResponseBytes: checked.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    });
    this.#telemetry = checked.telemetry && guardTelemetry(checked.telemetry);
    this.#server = serverOf(this.baseUrl);

    this.payments = new Payments(this);
    this.checkoutSessions = new CheckoutSessions(this);
    this.payouts = new Payouts(this);
    this.paymentLinks = new PaymentLinks(this);
    this.wallets = new Wallets(this);
    this.webhooks = new Webhooks(() => this.#webhookSecret);
  }

  /**
   * `'live'`, `'sandbox'` or `'unknown'`, read from the key's text (`live` against `test` or
   * `sandbox`). With a key function, `'unknown'` until a call has read the key, then the kind of the
   * key last read.
   */
  get mode(): ClientMode {
    return this.#mode;
  }

  /**
   * The key of one call: the string given, or what the key function (or, when no key was given, the
   * environment) answers now, checked. Fails with a {@link PaymentsError} that never quotes it.
   */
  async #readKey(): Promise<string> {
    const source = this.#keySource;
    if (typeof source === 'string') return source;
    // What the function throws becomes the call's PaymentsError in the transport.
    const key: unknown = source === undefined ? readEnv('PAYMENTS_API_KEY') : await source();
    if (typeof key !== 'string' || key.trim() === '') {
      throw new PaymentsError(
        source === undefined
          ? missingSettingMessage('No API key', 'apiKey', 'PAYMENTS_API_KEY', 'new PaymentsClient()')
          : 'The apiKey function returned no key: nothing was sent.',
      );
    }
    checkKeyText(key);
    this.#mode = modeOfKey(key);
    return key;
  }

  /**
   * A client with other defaults (timeout, retries, headers, backoff, answer cap, logging) and the
   * same base URL, webhook secret, `fetch` and telemetry, so the same connection pool. `headers` are added
   * to this client's (a name given again replaces its value). This client is left as it is.
   * `apiKey` gives another key (a string or a function), for a platform acting for one of its
   * merchants; without it the client's key is kept.
   *
   * ```ts
   * const patient = client.withOptions({ timeout: 60_000, maxRetries: 5 });
   * const payments = await patient.payments.list({ per_page: 100 }).toArray();
   * const forSeller = client.withOptions({ apiKey: sellerKey });
   * ```
   */
  withOptions(defaults: ClientDefaults): PaymentsClient {
    const { headers } = checkOptions(ClientDefaultsSchema, defaults, 'withOptions defaults');
    // A key given as `undefined` keeps the client's, as leaving it out does.
    return new PaymentsClient({
      ...this.#options,
      ...defaults,
      apiKey: defaults.apiKey ?? this.#options.apiKey,
      headers: { ...this.#defaultHeaders, ...headers },
    });
  }

  /**
   * Calls an endpoint the SDK does not model yet, with every behaviour of a modelled call: the key,
   * the SDK's headers, an `Idempotency-Key` on a `POST` (yours in `options`, or a fresh UUID v4, the
   * same on every retry and on every error), retries, timeouts, the SDK's error classes, and the key
   * redacted from whatever comes back. Bad input (the method, the path, the query, a body that is not
   * JSON) is one `InvalidParamsError`, and nothing is sent.
   *
   * The call resolves to the WHOLE answer body, not unwrapped from `{ data }` (an endpoint the SDK
   * does not know may answer a list envelope, or something else): as `schema` parses it when one is
   * given, else as received, unchecked. `.withResponse()` gives the response and, on a `POST`, the
   * `idempotencyKey` and `replayed` (the service answered `200`: an earlier creation with that key).
   *
   * ```ts
   * // z: zod 4, classic or mini
   * const Refund = z.object({ data: z.object({ uuid: z.string(), amount: z.number() }) });
   * const { data: refund } = await client.request({ method: 'POST', path: '/refunds', body: { payment: uuid }, schema: Refund });
   * ```
   */
  request<T = unknown>(request: APIRequest<T>, options: RequestOptions = {}): APIPromise<T> {
    const idempotencyKey = request?.method === 'POST' ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : undefined;
    const run = async (): Promise<WithResponse<T>> => {
      const { method, path, query, body, schema } = checkRequest(request, idempotencyKey);
      // The path may hold identifiers: the call is reported by its method alone, without a path template.
      return this.#call(
        { operation: 'request', method },
        options,
        () => ({ path: `${path}${query}`, body }),
        // A classic zod schema and a zod/mini one both have the `safeParse` the check calls (checkRequest made sure).
        (received) =>
          schema === undefined ? (received as T) : checkResponse(schema as z.ZodMiniType<T>, received, `${method} ${path} response`),
        idempotencyKey,
      );
    };
    return new APIPromise(withIdempotencyKey(run(), idempotencyKey));
  }

  /**
   * A creation (`POST`) with an `Idempotency-Key`: the caller's or a fresh UUID v4, the same on every
   * retry. Params are validated first (nothing is sent on bad input). Every error, whatever its
   * class, carries the key, so the operation can be retried later without charging twice.
   * @internal Used by resources.
   */
  postCreation<P, T>(
    path: string,
    params: P,
    paramsSchema: z.ZodMiniType<P>,
    result: z.ZodMiniType<T>,
    options: RequestOptions = {},
  ): APIPromise<T> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const operation = operationOf('create', path);
    const call = this.#call(
      operation,
      options,
      // A bad key and bad params are named in one error: every bad field at once.
      () => ({ path, body: checkParams(paramsSchema, params, `${operation.operation} params`, idempotencyKeyIssues(idempotencyKey)) }),
      (received) => checkData(result, received, `${operation.operation} response`),
      idempotencyKey,
    );
    return new APIPromise(withIdempotencyKey(call, idempotencyKey));
  }

  /**
   * `GET` of one object by identifier, unwrapped from `{ data }`: `template` is its path with the
   * identifier's placeholder (`/payments/{uuid}`), which the identifier, URL-encoded, replaces.
   * @internal Used by resources.
   */
  getObject<T>(template: string, id: string | number, result: z.ZodMiniType<T>, options: RequestOptions = {}): APIPromise<T> {
    const operation = operationOf('retrieve', template);
    return new APIPromise(
      this.#call(
        operation,
        options,
        () => ({ path: template.replace(/\{\w+\}$/, pathSegment(id, operation.operation)) }),
        (body) => checkData(result, body, `${operation.operation} response`),
      ),
    );
  }

  /**
   * `GET` of a list that is not paginated (the wallet list): the list, unwrapped from `{ data }` (a
   * bare array is accepted too), goes to its schema; an error names the bad items by their path in
   * the body (`data.1`, or `1` in a bare array) and carries the whole body.
   * @internal Used by resources.
   */
  getUnpaginated<T>(path: string, result: z.ZodMiniType<T>, options: RequestOptions = {}): APIPromise<T> {
    const operation = operationOf('list', path);
    const label = `${operation.operation} response`;
    return new APIPromise(
      this.#call(
        operation,
        options,
        () => ({ path }),
        (body) => (isRecord(body) && 'data' in body ? checkData(result, body, label) : checkResponse(result, body, label)),
      ),
    );
  }

  /**
   * A paginated list: params validated, `Date` filters sent as their UTC date, and each next page
   * requested at the configured base URL with the path and query of `links.next`.
   * @internal Used by resources.
   */
  getPaginated<P extends object, T>(
    path: string,
    params: P | undefined,
    paramsSchema: z.ZodMiniType<P>,
    item: z.ZodMiniType<T>,
    options: RequestOptions = {},
  ): PagePromise<T> {
    const operation = operationOf('list', path);
    const envelopeSchema = listEnvelope(item);
    // Each page knows how to fetch the next: the path and query of its links.next, plus the first
    // request's filters when the link dropped them (keepFilters).
    // One observed call per page read.
    const fetchPage = (pathAndQuery: string, filters: string): Promise<WithResponse<Page<T>>> =>
      this.#call(
        operation,
        options,
        () => ({ path: pathAndQuery }),
        (body) =>
          new Page(checkResponse(envelopeSchema, body, `${operation.operation} page`), (next) =>
            fetchPage(keepFilters(next, filters), filters),
          ),
      );
    return new PagePromise(
      (async () => {
        const checked = checkParams(paramsSchema, params ?? {}, `${operation.operation} params`, filterIssues(params));
        const filters = toQueryString(checked as Record<string, unknown>);
        return fetchPage(`${path}${filters}`, filters);
      })(),
    );
  }

  /**
   * One HTTP call of the SDK, observed as `operation`: `prepare` checks the input (throwing before
   * anything is sent) and gives the path and the body, sent as JSON; `read` checks the answer's
   * body. A call with an `Idempotency-Key` (a creation) sends it, and tells a replay (`200`) from a
   * creation (`201`).
   */
  #call<T>(
    operation: ObservedOperation,
    options: RequestOptions,
    prepare: () => { path: string; body?: unknown },
    read: (body: unknown) => T,
    idempotencyKey?: string,
  ): Promise<WithResponse<T>> {
    return this.#observed(
      operation,
      async (observer) => {
        const { path, body } = prepare();
        const sent = this.#callOptions(options);
        if (idempotencyKey !== undefined) sent.headers.set('idempotency-key', idempotencyKey);
        const text = body === undefined ? undefined : jsonBody(body);
        if (text !== undefined) sent.headers.set('content-type', 'application/json');
        const { response, body: received } = await this.#transport.send({ method: operation.method, path, body: text, ...sent, observer });
        const data = read(received);
        // 201 is a creation; 200 is the service replaying an earlier one with the same key.
        return idempotencyKey === undefined
          ? { data, response, replayed: false }
          : { data, response, idempotencyKey, replayed: response.status === 200 };
      },
      idempotencyKey,
    );
  }

  // --- telemetry wiring: one observed call per SDK call (per page, for a list) ---

  /** The telemetry of this client, for bulk payouts and reconciliation. @internal */
  get telemetry(): Telemetry | undefined {
    return this.#telemetry;
  }

  /**
   * Runs `work` as the SDK call `operation`, reported to the client's telemetry when it has one
   * (`work` hands the observer to the transport, which reports each attempt to it); without one,
   * `work` runs as it is.
   */
  #observed<T>(
    operation: ObservedOperation,
    work: (call: CallObserver | undefined) => Promise<WithResponse<T>>,
    idempotencyKey?: string,
  ): Promise<WithResponse<T>> {
    const telemetry = this.#telemetry;
    if (telemetry === undefined) return work(undefined);
    const { record, ...info } = operation;
    const call = telemetry.onCall({ ...info, ...this.#server, mode: this.mode, idempotencyKey });
    return work(call).then(
      (result) => {
        const id = record && isRecord(result.data) ? result.data[record.field] : undefined;
        call.end({
          status: result.response.status,
          replayed: result.replayed,
          ...(record && (typeof id === 'string' || typeof id === 'number') ? { record: { type: record.type, id: String(id) } } : {}),
        });
        return result;
      },
      (error: unknown) => {
        call.end({ errorType: errorTypeOf(error), status: error instanceof APIError ? error.status : undefined });
        throw error;
      },
    );
  }

  // --- end telemetry wiring ---

  /**
   * What a call sends beside its method, path and body, its options checked: the headers (the
   * client's, then the call's, then the SDK's own), the timeout and retries (the call's or the
   * client's), and the signal.
   */
  #callOptions(options: RequestOptions): Pick<CallRequest, 'headers' | 'timeout' | 'maxRetries' | 'signal'> {
    const checked = checkOptions(RequestOptionsSchema, options, 'request options');
    // The common call has no headers of its own: its list is built once, at construction.
    const headers = new Headers(this.#baseHeaders);
    if (checked.headers !== undefined) {
      for (const [name, value] of [...Object.entries(checked.headers), ...this.#ownHeaders]) headers.set(name, value);
    }
    return { headers, timeout: checked.timeout ?? this.timeout, maxRetries: checked.maxRetries ?? this.maxRetries, signal: options.signal };
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

/** Puts the creation's key on whatever error the call ends with, so the operation can be finished later. */
function withIdempotencyKey<T>(call: Promise<T>, idempotencyKey: string | undefined): Promise<T> {
  if (idempotencyKey === undefined) return call;
  return call.catch((error: unknown) => {
    if (error instanceof PaymentsError) error.idempotencyKey = idempotencyKey;
    throw error;
  });
}

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A {@link PaymentsClient.request} call, as it is checked before anything is sent. */
const APIRequestSchema = z.looseObject({
  method: z.custom<HttpMethod>((method) => METHODS.includes(method as HttpMethod), {
    error: (issue) => `must be one of ${METHODS.join(', ')}, got ${safeString(issue.input)}`,
  }),
  path: z.custom<string>((path) => requestPathProblem(path) === undefined, { error: (issue) => requestPathProblem(issue.input) }),
  query: z.optional(z.custom<NonNullable<APIRequest['query']>>(isRecord, { error: 'must be an object of parameter names to values' })),
  // A classic zod schema and a zod/mini one both have the `safeParse` the answer is checked with.
  schema: z.optional(
    z.custom<z.ZodMiniType>((schema) => typeof (schema as { safeParse?: unknown } | null)?.safeParse === 'function', {
      error: 'must be a zod schema',
    }),
  ),
});

/**
 * Checks a {@link PaymentsClient.request} call before anything is sent, naming every bad field in one
 * `InvalidParamsError`: the method, the path (under `/api/v1`, no `..`, no query: that goes in
 * `query`), the query (as list filters are checked), a body on a `GET`, and the Idempotency-Key.
 */
function checkRequest<T>(request: APIRequest<T>, idempotencyKey: string | undefined) {
  // Read as they are for the checks that read several fields; the schema names a request that is not an object.
  const { method, body, query }: Partial<APIRequest<T>> = request ?? {};
  const more = filterIssues(query, ['query']);
  if (method === 'GET' && body !== undefined)
    more.push({ path: ['body'], message: 'must be left out on a GET (a GET has no body; use query)' });
  if (idempotencyKey !== undefined) more.push(...idempotencyKeyIssues(idempotencyKey));
  const checked = checkParams(APIRequestSchema, request, 'request', more);
  return { ...checked, body, query: toQueryString(checked.query ?? {}) };
}

/** What is wrong with the path of a {@link PaymentsClient.request} call, if anything. */
function requestPathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) {
    return `must be a path under /api/v1 starting with "/", such as "/refunds", got ${safeString(path)}`;
  }
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`))
    return `is already under ${API_PREFIX}: pass ${JSON.stringify(path.slice(API_PREFIX.length) || '/')}`;
  if (/[?#]/.test(path)) return 'must not hold a query or a fragment: pass query parameters in `query`';
  // Dot segments, plain or percent-encoded, are resolved by the URL parser: they would climb out of /api/v1.
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return 'must not hold "." or ".." segments (they would climb out of /api/v1)';
  }
  // RFC 3986 path characters only: a space, a control character or a non-ASCII letter goes encoded.
  if (!/^[\w\-.~!$&'()*+,;=:@%/]*$/.test(path)) return 'must hold URL path characters only: encode each segment with encodeURIComponent';
  return textProblem(path, 2048);
}

/**
 * Serialises list params or a query, checked by `filterIssues` first (one value per name, no array):
 * `Date` values become their UTC `YYYY-MM-DD`.
 */
function toQueryString(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    query.set(key, value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

// --- telemetry wiring ---

/** The kind of record a resource's calls read or create, and the field that identifies it. */
interface RecordOfCall {
  type: NonNullable<TelemetryCallResult['record']>['type'];
  field: string;
}

/** The field that identifies the record each resource's calls read or create, by the resource's name. */
const RECORD_FIELDS = {
  payments: 'uuid',
  checkoutSessions: 'reference',
  payouts: 'id',
  // A payment link is identified by its `uuid` (its `slug` can change).
  paymentLinks: 'uuid',
};

/**
 * What a call is: its name, which its errors name too (`payments.create`), its method and path
 * template for telemetry, and the record it reads or creates.
 */
type ObservedOperation = Pick<TelemetryCallInfo, 'operation' | 'method' | 'urlTemplate'> & { record?: RecordOfCall | undefined };

/**
 * The call `<resource>.<kind>` at `path`, the resource's path (`/checkout-sessions`) or, for a
 * retrieve, its template (`/checkout-sessions/{reference}`).
 */
function operationOf(kind: 'create' | 'retrieve' | 'list', path: string): ObservedOperation {
  const segment = path.split('/')[1] ?? '';
  // The resource as merchants call it: `checkout-sessions` → `checkoutSessions`.
  const name = segment.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const info: ObservedOperation = {
    operation: `${name}.${kind}`,
    method: kind === 'create' ? 'POST' : 'GET',
    urlTemplate: `${API_PREFIX}${path}`,
  };
  // A resource that creates or retrieves is one of these.
  const field = RECORD_FIELDS[name as keyof typeof RECORD_FIELDS];
  // The record's kind from the path: `payment-links` → `payment_link`.
  const type = segment.slice(0, -1).replace('-', '_') as RecordOfCall['type'];
  return kind === 'list' ? info : { ...info, record: { type, field } };
}

/** The host (an IPv6 address without its brackets) and port of the service root. */
function serverOf(baseUrl: string): Pick<TelemetryCallInfo, 'serverAddress' | 'serverPort'> {
  const url = new URL(baseUrl);
  const serverPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { serverAddress: url.hostname.replace(/^\[|\]$/g, ''), serverPort };
}

// --- end telemetry wiring ---

/** Checks that a key can be sent as it is, in words that never quote it. */
function checkKeyText(apiKey: string): void {
  if (apiKey !== apiKey.trim()) {
    throw new PaymentsError('The API key has leading or trailing whitespace: check how it is read from your environment or secret store.');
  }
  if (!isHeaderSafe(`Bearer ${apiKey}`)) {
    // Checked before any request: undici's TypeError for a bad header value quotes the value, and so
    // would print the whole key.
    throw new PaymentsError(
      'The API key contains a line break, a NUL or another character HTTP forbids in a header: ' +
        'check how it is read from your environment or secret store (a file with two lines, say).',
    );
  }
}

/** `appInfo` as the end of the `User-Agent` (` name/version (+url)`); `''` without one. */
function appInfoText(appInfo: ClientOptions['appInfo']): string {
  if (appInfo === undefined) return '';
  const { name, version, url } = appInfo;
  return ` ${name}${version ? `/${version}` : ''}${url ? ` (+${url})` : ''}`;
}

/** `true` when `Headers` accepts this value (and name); never lets its TypeError, which quotes the value, out. */
function isHeaderSafe(value: string, name = 'authorization'): boolean {
  try {
    new Headers([[name, value]]);
    return true;
  } catch {
    return false;
  }
}

// --- option schemas: each bad option named in one error ---

/** The headers `Headers` refuses, by their quoted names; `undefined` when `headers` is not an object. */
function badHeaderNames(headers: unknown): string[] | undefined {
  if (!isRecord(headers)) return undefined;
  return Object.keys(headers)
    .filter((name) => !isHeaderSafe(String(headers[name]), name))
    .map((name) => JSON.stringify(name));
}

/**
 * Header names and values, checked before anything is sent. `Headers` would throw a TypeError that
 * quotes the value (a token, say): the error names the bad headers only.
 */
const headersSchema = z.custom<Record<string, string>>((headers) => badHeaderNames(headers)?.length === 0, {
  error: (issue) => {
    const bad = badHeaderNames(issue.input);
    return bad
      ? `invalid HTTP header name or value for ${bad.join(', ')} (a line break or a character HTTP forbids)`
      : `must be an object of header names to string values, got ${kind(issue.input)}`;
  },
});

/** What a call's options may change, as the client's options set them. */
const callShape = {
  timeout: z.optional(milliseconds),
  maxRetries: z.optional(z.int().check(z.minimum(0), z.maximum(10))),
  headers: z.optional(headersSchema),
};

/** A call's {@link RequestOptions}; its `idempotencyKey` is checked with a creation's params. */
const RequestOptionsSchema = z.looseObject(callShape);

/** A part of `appInfo`: it goes into the `User-Agent` as it is, so no space and nothing `Headers` refuses. */
const appInfoPart = z.string().check(
  // A trailing line break would be trimmed by `Headers`, not refused: the `x` around it keeps it inside.
  z.refine((part) => !part.includes(' ') && isHeaderSafe(`x${part}x`), {
    error: (issue) => `must be a string without spaces or line breaks, got ${JSON.stringify(issue.input)}`,
  }),
);

/** A delay of `retryBackoff`, in milliseconds. */
const backoffDelay = z.optional(z.number().check(z.minimum(0), z.maximum(MAX_TIMER_MS)));

/** {@link ClientDefaults}: what `withOptions` can change. */
const defaultsShape = {
  ...callShape,
  // The key's kind; its text is checked by `checkKeyText`.
  apiKey: z.optional(
    z.custom<ClientOptions['apiKey']>((key) => key === null || typeof key === 'string' || typeof key === 'function', {
      error: (issue) => `must be a string or a function that returns one, got ${kind(issue.input)}`,
    }),
  ),
  retryBackoff: z.optional(z.looseObject({ initialMs: backoffDelay, maxMs: backoffDelay })),
  /** Bytes of a decoded answer: at least 1 KiB (a page of the service fits many times). */
  maxResponseBytes: z.optional(z.int().check(z.minimum(1024))),
  // Checked by `levelledLogger`.
  logger: z.optional(z.unknown()),
  logLevel: z.optional(z.unknown()),
};

/** The defaults `withOptions` takes: any other option is the client's own, named with what to do instead. */
const ClientDefaultsSchema = z.strictObject(defaultsShape, {
  error: (issue) =>
    issue.code === 'unrecognized_keys'
      ? 'is not one of the defaults withOptions changes: for another base URL, webhook secret or fetch, construct a new PaymentsClient'
      : undefined,
});

/** {@link ClientOptions}: the defaults, and what only the constructor sets. */
const ClientOptionsSchema = z.looseObject({
  ...defaultsShape,
  appInfo: z.optional(
    z.looseObject({ name: appInfoPart.check(z.minLength(1)), version: z.optional(appInfoPart), url: z.optional(appInfoPart) }),
  ),
  telemetry: z.optional(
    z.custom<Telemetry>((telemetry) => typeof (telemetry as Telemetry | null)?.onCall === 'function', {
      error: (issue) =>
        `must be an object with an onCall hook, such as openTelemetry() from payments-sdk/opentelemetry, got ${kind(issue.input)}`,
    }),
  ),
});
