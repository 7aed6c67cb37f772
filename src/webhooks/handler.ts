/**
 * Ready-made webhook endpoints: verify, deduplicate
 * on `id`, dispatch, and answer with the status the service acts on. {@link webhookHandler} is the
 * fetch-style one; `expressWebhook` wraps the same core for Express and `node:http`.
 *
 * @module
 */
import { PaymentsError, WebhookVerificationError } from '../core/errors.js';
import { guardTelemetry } from '../core/guarded-telemetry.js';
import type { WebhookOutcome } from '../core/telemetry.js';
import { errorTypeOf, eventRecord, type StoreObserver, type Telemetry, type TelemetryWebhookResult } from '../core/telemetry.js';
import { readCapped } from '../internal/capped-stream.js';
import { missingSettingMessage, readEnv } from '../internal/runtime.js';
import { handleOnce, type OnceResult } from '../stores/handle-once.js';
import type { Store, StoreJsonObject } from '../stores/store.js';
import { deliveryKeys, sharedMemoryStore } from './delivery-key.js';
import type {
  PaymentEventType,
  PaymentWebhookEvent,
  PayoutEventType,
  PayoutWebhookEvent,
  UnknownWebhookEvent,
  WebhookEvent,
} from './events.js';
import { checkSecrets, RAW_BODY_WHY, verifyWebhook } from './verify.js';

/**
 * Handlers by event type. Each gets its event typed. `'payout.*'` receives every payout event
 * without a handler of its own (the service does not list its payout event types). With a
 * transactional store, each also gets the store's context (`{ tx }` with `postgresStore`) and
 * returns its effects (D1 statements with `d1Store`).
 */
export type WebhookEventHandlers<Context = undefined, Effects = unknown> = {
  [T in PaymentEventType]?: (event: PaymentWebhookEvent<T>, context: Context) => Effects | Promise<Effects>;
} & {
  [T in PayoutEventType]?: (event: PayoutWebhookEvent, context: Context) => Effects | Promise<Effects>;
};

/** What {@link WebhookHandlerCommonOptions.onError} is told about a delivery answered with an error. */
export interface WebhookErrorInfo {
  /**
   * The HTTP status answered: 400, 409, 413, 500 or 503 (the store failed, did not answer in time,
   * or is full); or 200 when the event was handled but the store failed to record it in time.
   */
  status: number;
  /** The verification failure, when the status is 400. */
  reason?: WebhookVerificationError['reason'];
  /** The event, when it was verified. */
  event?: WebhookEvent;
}

/** The options every webhook endpoint takes, whatever its store. */
export interface WebhookHandlerCommonOptions {
  /**
   * The endpoint's signing secret (`whsec_…`), or several (endpoints sharing this route, rotation).
   * Default: env `PAYMENTS_WEBHOOK_SECRET`, read when the handler is built. Without either, building
   * the handler throws a `PaymentsError` that says so (on Workers, pass `env.PAYMENTS_WEBHOOK_SECRET`
   * and build the handler inside `fetch`).
   */
  secret?: string | readonly string[];
  /**
   * Told about every delivery answered 400, 409, 413, 500 or 503, and about a 200 whose record
   * the store could not write, with the full reason (the answer itself stays terse). Not told
   * about a 405. Default: `console.error` for 500 and 503, `console.warn` for the others. Never given a secret.
   */
  onError?: (error: unknown, info: WebhookErrorInfo) => void;
  /** Largest body accepted, in bytes; a larger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Where each delivery is reported (event type and id, outcome, refusal reason): `openTelemetry()`
   * from `payments-sdk/opentelemetry`, or your own `Telemetry`. The handlers run inside the delivery's
   * span. Default: nothing is measured. See docs/telemetry.md.
   */
  telemetry?: Telemetry;
}

/**
 * Options of {@link webhookHandler} and `expressWebhook`. `Context` and `Effects` come from the
 * `store`: `postgresStore` gives `onEvent` its transaction as `{ tx }`; with `d1Store`, `onEvent`
 * returns the D1 statements of its effects.
 */
export interface WebhookHandlerOptions<Context = undefined, Effects = unknown> extends WebhookHandlerCommonOptions {
  /**
   * Called once per event. Resolve when the event is durably handled: the answer is then 200.
   * Throw (or reject) to answer 500 and have the service deliver it again (up to 5 attempts in
   * all); with a transactional store, everything written through `tx` rolls back with it. The
   * service waits 10 s for the answer: hand long work to a queue. Receives every event without a
   * handler in `on`, including types the SDK does not know yet.
   */
  onEvent?: (event: WebhookEvent, context: NoInfer<Context>) => NoInfer<Effects> | Promise<NoInfer<Effects>>;
  /** Handlers by event type, each with its event typed; `onEvent` receives the others. */
  on?: WebhookEventHandlers<NoInfer<Context>, NoInfer<Effects>>;
  /**
   * Where handled deliveries are remembered (see `payments-sdk/stores`). Default: a memory store
   * shared by every handler of this process or isolate with the same secret(s), so that a handler
   * built per request (a Worker builds it inside `fetch`) still deduplicates, and two endpoints never
   * mix. It is lost on a restart and not shared between instances: behind a load balancer, give a
   * shared store; for effects in the same commit as the record, `postgresStore` or `d1Store`.
   *
   * Each event is remembered by its `id`; a payment's final event (`payment.succeeded`,
   * `payment.failed`) also by payment and type, so that `client.payments.reconcile` with the same
   * store and a late delivery of the same payment run the effect once between them. With a
   * transactional store, a payment's final event is recorded once per payment and type.
   */
  store?: Store<Context, Effects>;
  /** Keep each handled event's whole body in the store with its record. Default `false`: its id, type and time only. */
  storeBody?: boolean;
}

/** An answer, independent of the framework. */
export interface WebhookResponse {
  /** What became of the delivery, for logs and telemetry. */
  outcome: WebhookOutcome;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Why a body could not be read: answered 400 (already consumed or parsed) or 413 (too large). */
export type BodyProblem = { status: 400; message: string } | { status: 413 };

const PUBLIC_REASON_MESSAGE: Record<WebhookVerificationError['reason'], string | undefined> = {
  missing_signature: 'Missing X-Service-Signature header.',
  malformed_signature: 'Malformed X-Service-Signature header.',
  // The full message may carry hints about the configured secret: they go to onError only.
  signature_mismatch: 'Webhook signature mismatch.',
  invalid_payload: undefined,
  event_type_mismatch: undefined,
};

const MAX_BODY_BYTES = 1024 * 1024;

/** The framework-independent core of both handlers. */
export interface WebhookCore {
  /** Largest body accepted, in bytes. */
  maxBodyBytes: number;
  /** Answers a delivery, given its method, raw body (or why it is missing) and headers. */
  handle(method: string | undefined, body: Uint8Array | BodyProblem, headers: unknown): Promise<WebhookResponse>;
}

/** Checks the options once and returns the core that answers deliveries. */
export function createWebhookCore<Context, Effects>(options: WebhookHandlerOptions<Context, Effects>, where: string): WebhookCore {
  if (options === null || typeof options !== 'object') throw new PaymentsError(`${where}: pass { secret, onEvent } or { secret, on }.`);
  const { onEvent, on } = options;
  if (onEvent !== undefined && typeof onEvent !== 'function') throw new PaymentsError(`${where}: onEvent must be a function.`);
  if (on !== undefined && (on === null || typeof on !== 'object'))
    throw new PaymentsError(`${where}: on must be an object of handlers by event type.`);
  const handlers = (on ?? {}) as Record<string, unknown>;
  for (const [type, fn] of Object.entries(handlers)) {
    if (typeof fn !== 'function') throw new PaymentsError(`${where}: on[${JSON.stringify(type)}] must be a function.`);
  }
  if (!onEvent && Object.keys(handlers).length === 0) {
    throw new PaymentsError(
      `${where}: give onEvent, or handlers by type in on, or both: an endpoint that handles nothing would acknowledge every event.`,
    );
  }
  // The secret, given or from the environment, is checked now: a handler without one would answer
  // every delivery 500, and a Worker, which builds its handler inside fetch, fails on the request
  // that built it, with the reason.
  // `next build` evaluates route modules, often without the runtime's secrets: there (and only
  // there) the check waits for the first delivery, which the built server evaluates anew anyway.
  const secret = options.secret ?? readEnv('PAYMENTS_WEBHOOK_SECRET');
  if (secret === undefined && readEnv('NEXT_PHASE') !== 'phase-production-build') {
    throw new PaymentsError(missingSettingMessage(`${where}: no webhook secret`, 'secret', 'PAYMENTS_WEBHOOK_SECRET', `${where}()`));
  }
  const secrets = secret === undefined ? [] : checkSecrets(secret, where);
  const { store, scope } = storeOf(options, where, secrets);
  const storeBody = options.storeBody === true;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new PaymentsError(`${where}: maxBodyBytes must be a positive integer.`);
  const report = options.onError ?? defaultOnError;
  const reportError = (error: unknown, info: WebhookErrorInfo) => {
    try {
      report(error, info);
    } catch {
      // A failing logger must not change the answer the service gets.
    }
  };

  // Own keys only: an event type such as "constructor" must not find Object.prototype's.
  const own = (type: string) => (Object.hasOwn(handlers, type) ? handlers[type] : undefined);
  const handlerOf = (event: WebhookEvent | UnknownWebhookEvent) =>
    (own(event.type) ?? (event.type.startsWith('payout.') ? own('payout.*') : undefined) ?? onEvent) as
      | ((event: unknown, context: unknown) => unknown)
      | undefined;

  const respond = async (
    method: string | undefined,
    body: Uint8Array | BodyProblem,
    headers: unknown,
    note: DeliveryNote,
  ): Promise<WebhookResponse> => {
    // The service delivers with POST. Anything else is not the service.
    if ((method ?? '').toUpperCase() !== 'POST') {
      note.reason = 'method_not_allowed';
      return answer('refused', 405, { error: 'Method not allowed: webhook deliveries are POST requests.' }, { allow: 'POST' });
    }
    if (!(body instanceof Uint8Array)) {
      if (body.status === 413) {
        note.reason = 'payload_too_large';
        reportError(new PaymentsError(`Webhook body larger than maxBodyBytes (${maxBodyBytes}).`), { status: 413 });
        return answer('refused', 413, { error: `Payload too large (over ${maxBodyBytes} bytes).` });
      }
      const error = new WebhookVerificationError('invalid_payload', body.message);
      note.reason = error.reason;
      reportError(error, { status: 400, reason: error.reason });
      return answer('refused', 400, { error: error.message, reason: error.reason });
    }

    let event: WebhookEvent;
    try {
      // Resolved when the handler was built; read here only while `next build` left it unresolved.
      const secret = secrets.length > 0 ? secrets : checkSecrets(readEnv('PAYMENTS_WEBHOOK_SECRET'), where);
      event = await verifyWebhook({ payload: body, headers: headers as Headers, secret });
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        note.reason = error.reason;
        reportError(error, { status: 400, reason: error.reason });
        return answer('refused', 400, { error: PUBLIC_REASON_MESSAGE[error.reason] ?? error.message, reason: error.reason });
      }
      // A configuration error (no secret): 500, so the service retries once it is fixed.
      note.errorType = errorTypeOf(error);
      reportError(error, { status: 500 });
      return answer('failed', 500, { error: 'Webhook endpoint misconfigured.' });
    }

    note.event = event;
    const handler = handlerOf(event);
    // No handler for this type: acknowledge, or the service would retry an event nobody wants.
    if (!handler) return answer('handled', 200, { received: true });

    const record: StoreJsonObject = { event_id: event.id, type: event.type, at: new Date().toISOString() };
    // The event is parsed JSON, and every store keeps its own copy of what it is given.
    if (storeBody) record.event = event as unknown as StoreJsonObject;
    const work = () => handleOnce(store, deliveryKeys(event, scope), (context) => handler(event, context), record);
    // The store's work (with onEvent inside it) as a child of the delivery, when observed.
    const observed = note.onStore?.(store.kind);
    const result = observed ? await observed.run(work) : await work();
    observed?.end(result.status === 503 ? { errorType: errorTypeOf(result.error) } : {});
    if (result.bookkeepingError !== undefined) reportError(result.bookkeepingError, { status: result.status, event });
    if (result.status !== 200) {
      note.errorType = errorTypeOf(result.error);
      reportError(result.error, { status: result.status, event });
    }
    return answerDelivery(result);
  };

  // --- telemetry wiring: one observed delivery per request answered ---
  const telemetry = options.telemetry;
  if (
    telemetry !== undefined &&
    (telemetry === null || typeof telemetry !== 'object' || !['undefined', 'function'].includes(typeof telemetry.onWebhook))
  )
    throw new PaymentsError(
      `${where}: telemetry must be an object whose onWebhook is a function, such as openTelemetry() from payments-sdk/opentelemetry.`,
    );
  // A telemetry without onWebhook reports the client's calls only; a hook that throws is ignored.
  const onWebhook = telemetry && guardTelemetry(telemetry).onWebhook;
  if (onWebhook === undefined) return { maxBodyBytes, handle: (method, body, headers) => respond(method, body, headers, {}) };
  return {
    maxBodyBytes,
    async handle(method, body, headers) {
      const delivery = onWebhook();
      const note: DeliveryNote = { onStore: delivery.onStore?.bind(delivery) };
      let response: WebhookResponse;
      try {
        // Verification and the merchant's handler run inside the delivery's span.
        response = await delivery.run(() => respond(method, body, headers, note));
      } catch (error) {
        delivery.end({ outcome: 'failed', status: 500, errorType: errorTypeOf(error) });
        throw error;
      }
      delivery.end(deliveryResult(response, note));
      return response;
    },
  };
  // --- end telemetry wiring ---
}

// --- telemetry wiring ---

/** What answering a delivery learnt on the way, for its telemetry. */
interface DeliveryNote {
  event?: WebhookEvent;
  reason?: string;
  errorType?: string;
  /** Observes the store's work, when the telemetry does. */
  onStore?: (kind: string) => StoreObserver;
}

/** How a delivery is reported: the outcome and status answered, the event, and why it was refused or failed. */
function deliveryResult(response: WebhookResponse, note: DeliveryNote): TelemetryWebhookResult {
  const { outcome, status } = response;
  const result: TelemetryWebhookResult = { outcome, status };
  if (note.event) {
    result.eventType = note.event.type;
    result.eventId = note.event.id;
    const record = eventRecord(note.event.type, note.event.data);
    if (record) result.record = record;
  }
  if (outcome === 'refused' && note.reason !== undefined) result.reason = note.reason;
  if (outcome === 'failed' && note.errorType !== undefined) result.errorType = note.errorType;
  return result;
}

// --- end telemetry wiring ---

/** The store deliveries go through: the one given, or the memory store this process shares, scoped to the endpoint. */
function storeOf<Context, Effects>(
  options: WebhookHandlerOptions<Context, Effects>,
  where: string,
  secrets: readonly string[],
): { store: Store<unknown, unknown>; scope?: string } {
  const store = options.store;
  if (store === undefined) return sharedMemoryStore(secrets);
  if (store === null || typeof store !== 'object' || typeof store.claim !== 'function' || typeof store.settle !== 'function') {
    throw new PaymentsError(`${where}: store must be a Store from payments-sdk/stores, such as postgresStore(db) or redisStore(client).`);
  }
  return { store: store as Store<unknown, unknown> };
}

/** The answer to a delivery the store took. The merchant's error stays in the logs: its message may hold anything. */
function answerDelivery(result: OnceResult): WebhookResponse {
  switch (result.status) {
    case 200:
      return answer(result.outcome, 200, result.outcome === 'duplicate' ? { received: true, duplicate: true } : { received: true });
    case 409:
      return answer(result.outcome, 409, { error: 'This event is being handled; retry later.' }, { 'retry-after': '60' });
    case 500:
      return answer(result.outcome, 500, { error: 'The webhook handler failed; the service will retry.' });
    default:
      return answer(result.outcome, 503, { error: 'Store unavailable; retry later.' }, { 'retry-after': '60' });
  }
}

function answer(
  outcome: WebhookOutcome,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): WebhookResponse {
  return { outcome, status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

function defaultOnError(error: unknown, info: WebhookErrorInfo): void {
  const about = info.event ? ` (event ${info.event.id}, ${info.event.type})` : '';
  const message = error instanceof Error ? error.message : String(error);
  if (info.status >= 500) console.error(`[payments-sdk] webhook answered ${info.status}${about}:`, error);
  else console.warn(`[payments-sdk] webhook answered ${info.status}${about}: ${message}`);
}

/** Each framework's way to keep the raw body, for a handler that cannot tell which framework read it. */
const EVERY_FRAMEWORK_FIX =
  "In Express, mount `express.raw({ type: 'application/json' })` on the webhook route (before any `express.json()`), " +
  'or use `expressWebhook()`, which reads the body itself; ' +
  'in Next.js (App Router) and other fetch-style handlers, pass `await request.text()` (never `request.json()`), ' +
  'or use `webhookHandler()`; in the Next.js Pages Router, export `config = { api: { bodyParser: false } }` from the route; ' +
  "in Fastify, register a content-type parser with `parseAs: 'buffer'` for the webhook route; in Koa, pass `ctx.request.rawBody` " +
  '(kept by @koa/bodyparser) or declare the route before the body parser; ' +
  'in Hono, pass `c.req.raw` to `webhookHandler()` or `await c.req.text()` to `verifyWebhook()`.';

/** The message for a body that a framework already read or parsed. */
export function consumedBodyMessage(problem: string): string {
  return `${problem} ${RAW_BODY_WHY} ${EVERY_FRAMEWORK_FIX}`;
}

/**
 * A webhook endpoint for fetch-style frameworks: Next.js route handlers (App Router), Hono
 * (`c.req.raw`), Bun.serve, Deno.serve, Cloudflare Workers, Vercel Edge.
 *
 * ```ts
 * // app/api/webhooks/route.ts
 * export const POST = webhookHandler({
 *   secret: process.env.PAYMENTS_WEBHOOK_SECRET,
 *   store: postgresStore(pool),
 *   onEvent: async (event, { tx }) => {
 *     if (event.type !== 'payment.succeeded') return;
 *     const { rowCount } = await tx.query('UPDATE orders SET paid = true WHERE payment_uuid = $1', [event.data.uuid]);
 *     if (rowCount === 0) throw new Error('no order yet'); // 500: the service delivers it again later
 *   },
 * });
 * ```
 * Answers 200 once the handler resolved (or for an event already handled: the handler is not called
 * again), 400 `{ error, reason }` for a delivery that fails verification, 409 while the same event is
 * being handled elsewhere, 500 when the handler threw (the service retries), 503 when the store
 * failed or did not answer in time, 405 for a method other than POST, 413 beyond `maxBodyBytes`.
 * Pass the request untouched: the signature covers the raw body.
 */
export function webhookHandler<Context = undefined, Effects = unknown>(
  options: WebhookHandlerOptions<Context, Effects>,
): (request: Request) => Promise<Response>;
export function webhookHandler(options: WebhookHandlerOptions<unknown, unknown>): (request: Request) => Promise<Response> {
  const core = createWebhookCore(options, 'webhookHandler');
  return async (request) => {
    const method = request.method;
    const body = method.toUpperCase() === 'POST' ? await readRequestBody(request, core.maxBodyBytes) : new Uint8Array();
    const result = await core.handle(method, body, request.headers);
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
}

async function readRequestBody(request: Request, max: number): Promise<Uint8Array | BodyProblem> {
  if (request.bodyUsed) {
    return {
      status: 400,
      message: consumedBodyMessage(
        'The request body was already read (request.json(), request.text() or a validator ran before the webhook handler): pass the untouched request, or request.clone().',
      ),
    };
  }
  const declared = Number(request.headers.get('content-length'));
  if (declared > max) return { status: 413 };
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    const whole = await readCapped(request.body, max, (chunk) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    });
    if (!whole) return { status: 413 };
  } catch {
    // The sender went away mid-body: whatever is answered, nobody reads it.
    return { status: 400, message: 'The request body could not be read to its end.' };
  }
  return concat(chunks, size);
}

/** Joins chunks into one array. */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
