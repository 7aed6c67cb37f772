/**
 * Ready-made webhook endpoints: verify, deduplicate
 * on `id`, dispatch, and answer with the status the service acts on. {@link webhookHandler} is the
 * fetch-style one; `expressWebhook` wraps the same core for Express and `node:http`.
 *
 * @module
 */
import { PaymentsError, WebhookVerificationError } from '../core/errors.js';
import { guardTelemetry } from '../core/guarded-telemetry.js';
import { errorTypeOf, eventRecord, type Telemetry, type TelemetryWebhookResult } from '../core/telemetry.js';
import { readCapped } from '../internal/capped-stream.js';
import { missingSettingMessage, readEnv } from '../internal/runtime.js';
import { sharedMemoryDedupeStore, type WebhookDedupeStore } from './dedupe.js';
import { dedupeInbox } from './dedupe-inbox.js';
import type {
  PaymentEventType,
  PaymentWebhookEvent,
  PayoutEventType,
  PayoutWebhookEvent,
  UnknownWebhookEvent,
  WebhookEvent,
} from './events.js';
import type { WebhookDeliveryResult, WebhookInbox, WebhookInboxContext, WebhookOutcome } from './inbox.js';
import { checkSecrets, RAW_BODY_HELP, verifyWebhook } from './verify.js';

/**
 * Handlers by event type. Each gets its event typed. `'payout.*'` receives every payout event
 * without a handler of its own (the service does not list its payout event types). With an `inbox`,
 * each also gets the inbox's context (`{ tx }`) as its second argument.
 */
export type WebhookEventHandlers<Context = void> = {
  [T in PaymentEventType]?: (event: PaymentWebhookEvent<T>, context: Context) => unknown;
} & {
  [T in PayoutEventType]?: (event: PayoutWebhookEvent, context: Context) => unknown;
};

/** What {@link WebhookHandlerCommonOptions.onError} is told about a delivery answered with an error. */
export interface WebhookErrorInfo {
  /**
   * The HTTP status answered: 400, 409, 413, 500 or 503 (the dedupe store or the inbox's database
   * failed, timed out or is full); or 200 when the event was handled but the dedupe store failed to
   * record it in time.
   */
  status: number;
  /** The verification failure, when the status is 400. */
  reason?: WebhookVerificationError['reason'];
  /** The event, when it was verified. */
  event?: WebhookEvent;
}

/** The options of {@link webhookHandler} and `expressWebhook` with or without an inbox. */
export interface WebhookHandlerCommonOptions {
  /**
   * The endpoint's signing secret (`whsec_…`), or several (endpoints sharing this route, rotation).
   * Default: env `PAYMENTS_WEBHOOK_SECRET`, read when the handler is built. Without either, building
   * the handler throws a `PaymentsError` that says so (on Workers, pass `env.PAYMENTS_WEBHOOK_SECRET`
   * and build the handler inside `fetch`).
   */
  secret?: string | readonly string[];
  /**
   * Told about every delivery answered 400, 409, 413, 500 or 503, and about a 200 whose completion
   * the dedupe store could not record, with the full reason (the answer itself stays terse). Not told
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

/** Options of {@link webhookHandler} and `expressWebhook` that deduplicate with a {@link WebhookDedupeStore}. */
export interface WebhookDedupeHandlerOptions extends WebhookHandlerCommonOptions {
  /**
   * Called once per event (per `id`). Resolve when the event is durably handled: the answer is then
   * 200. Throw (or reject) to answer 500 and have the service deliver it again (up to 5 attempts
   * in all). The service waits 10 s for the answer: hand long work to a queue.
   * Receives every event without a handler in `on`, including types the SDK does not know yet.
   */
  onEvent?: (event: WebhookEvent) => unknown;
  /** Handlers by event type, each with its event typed; `onEvent` receives the others. */
  on?: WebhookEventHandlers;
  /**
   * Where handled ids are remembered. Default: a {@link memoryDedupeStore} shared by every handler of
   * this process or isolate with the same secret(s), so a handler built per request (a Worker builds
   * it inside `fetch`) still deduplicates, and two endpoints never mix. It is lost on a restart and
   * not shared between instances: for those, a {@link redisDedupeStore} or, on Cloudflare Workers,
   * `d1DedupeStore(env.DB)`. `false` turns deduplication off.
   */
  dedupe?: WebhookDedupeStore | false;
  /**
   * How long one call to the dedupe store may take, in ms, before it counts as failed. Default 2000.
   * A claim that fails or takes longer is answered 503 (the service delivers again later) without
   * calling `onEvent`; a completion or release that does is reported to `onError` and does not change
   * the answer (an event whose handler succeeded is answered 200 and never handled again). A
   * delivery makes at most two store calls besides `onEvent`, so with the default the store adds at
   * most 4 s, whatever the Redis client's own timeouts: the service waits 10 s for an answer.
   */
  dedupeTimeoutMs?: number;
  /** Only with the other form of these options: a handler has either an inbox or a dedupe store. */
  inbox?: undefined;
}

/**
 * Options of {@link webhookHandler} and `expressWebhook` with an `inbox` (`postgresInbox(db)` from
 * `payments-sdk/postgres`): each event is recorded and handled in one transaction, and `onEvent`
 * gets that transaction as `{ tx }`.
 */
export interface WebhookInboxHandlerOptions<Context = WebhookInboxContext> extends WebhookHandlerCommonOptions {
  /**
   * Records each event and runs `onEvent` in one transaction: the commit makes both durable
   * together, so the effect happens once even when the process dies or a duplicate arrives at the
   * same moment on another instance. Its own `timeoutMs` bounds the whole transaction: a database
   * that fails or does not answer in time is answered 503, with nothing recorded.
   */
  inbox: WebhookInbox<Context>;
  /**
   * Called once per event (per `id`) with the inbox's transaction as `{ tx }`: write your effect
   * through `tx` so it commits with the record of the event. Throw (or reject) to roll both back and
   * answer 500: the service delivers it again. Receives every event without a handler in `on`.
   */
  onEvent?: (event: WebhookEvent, context: NoInfer<Context>) => unknown;
  /** Handlers by event type, each with its event typed and the inbox's context; `onEvent` receives the others. */
  on?: WebhookEventHandlers<NoInfer<Context>>;
  /** Not with an inbox: the inbox is what remembers handled events. */
  dedupe?: undefined;
  /** Not with an inbox: the inbox's own `timeoutMs` bounds each delivery. */
  dedupeTimeoutMs?: undefined;
}

/**
 * Options of {@link webhookHandler} and `expressWebhook`: with a dedupe store (the default, in
 * memory), or with an `inbox` whose transaction `onEvent` receives as `{ tx }`. Not both.
 */
export type WebhookHandlerOptions<Context = WebhookInboxContext> = WebhookDedupeHandlerOptions | WebhookInboxHandlerOptions<Context>;

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
const DEDUPE_TIMEOUT_MS = 2000;

/** The framework-independent core of both handlers. */
export interface WebhookCore {
  /** Largest body accepted, in bytes. */
  maxBodyBytes: number;
  /** Answers a delivery, given its method, raw body (or why it is missing) and headers. */
  handle(method: string | undefined, body: Uint8Array | BodyProblem, headers: unknown): Promise<WebhookResponse>;
}

/** Checks the options once and returns the core that answers deliveries. */
export function createWebhookCore<Context>(options: WebhookHandlerOptions<Context>, where: string): WebhookCore {
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
  const inbox = deliveryOf(options, where, secrets);
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

    const result = await inbox.deliver(event, (context) => handler(event, context));
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
      const note: DeliveryNote = {};
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

/** The seam a delivery goes through: the inbox given, or the dedupe store (by default the endpoint's shared memory store) adapted to it. */
function deliveryOf<Context>(options: WebhookHandlerOptions<Context>, where: string, secrets: readonly string[]): WebhookInbox<unknown> {
  if (options.inbox !== undefined) {
    if (options.dedupe !== undefined || options.dedupeTimeoutMs !== undefined) {
      throw new PaymentsError(
        `${where}: give inbox or dedupe (and dedupeTimeoutMs), not both: the inbox itself remembers handled events, within its own timeoutMs.`,
      );
    }
    if (options.inbox === null || typeof options.inbox !== 'object' || typeof options.inbox.deliver !== 'function') {
      throw new PaymentsError(
        `${where}: inbox must be a WebhookInbox ({ deliver }), such as postgresInbox(db) from payments-sdk/postgres.`,
      );
    }
    return options.inbox as WebhookInbox<unknown>;
  }
  // One default store per endpoint for the whole process or isolate: a handler built per request
  // still deduplicates.
  const dedupe = options.dedupe === false ? undefined : (options.dedupe ?? sharedMemoryDedupeStore(secrets));
  if (dedupe && (typeof dedupe.claim !== 'function' || typeof dedupe.release !== 'function')) {
    throw new PaymentsError(`${where}: dedupe must be a WebhookDedupeStore ({ claim, release }) or false.`);
  }
  const dedupeTimeoutMs = options.dedupeTimeoutMs ?? DEDUPE_TIMEOUT_MS;
  if (!Number.isSafeInteger(dedupeTimeoutMs) || dedupeTimeoutMs < 1 || dedupeTimeoutMs > 60_000)
    throw new PaymentsError(`${where}: dedupeTimeoutMs must be an integer number of milliseconds from 1 to 60000.`);
  return dedupe ? dedupeInbox(dedupe, dedupeTimeoutMs) : EFFECT_ONLY;
}

/** Deduplication off: the effect runs for every delivery. */
const EFFECT_ONLY: WebhookInbox<undefined> = {
  async deliver(_event, effect) {
    try {
      await effect(undefined);
      return { outcome: 'handled', status: 200 };
    } catch (error) {
      return { outcome: 'failed', status: 500, error };
    }
  },
};

/** The answer to a delivery the inbox took. The merchant's error stays in the logs: its message may hold anything. */
function answerDelivery(result: WebhookDeliveryResult): WebhookResponse {
  switch (result.status) {
    case 200:
      return answer(result.outcome, 200, result.outcome === 'duplicate' ? { received: true, duplicate: true } : { received: true });
    case 409:
      return answer(result.outcome, 409, { error: 'This event is being handled; retry later.' }, { 'retry-after': '60' });
    case 500:
      return answer(result.outcome, 500, { error: 'The webhook handler failed; the service will retry.' });
    default:
      return answer(result.outcome, 503, { error: 'Deduplication store unavailable; retry later.' }, { 'retry-after': '60' });
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

/** The message for a body that a framework already read or parsed. */
export function consumedBodyMessage(problem: string): string {
  return `${problem} ${RAW_BODY_HELP}`;
}

/**
 * A webhook endpoint for fetch-style frameworks: Next.js route handlers (App Router), Hono
 * (`c.req.raw`), Bun.serve, Deno.serve, Cloudflare Workers, Vercel Edge.
 *
 * ```ts
 * // app/api/webhooks/route.ts
 * export const POST = webhookHandler({
 *   secret: process.env.PAYMENTS_WEBHOOK_SECRET,
 *   on: { 'payment.succeeded': async (event) => fulfil(event.data.uuid) },
 * });
 * ```
 * Answers 200 once the handler resolved (or for an `id` already handled: the handler is not called
 * again), 400 `{ error, reason }` for a delivery that fails verification, 500 when the handler threw
 * (the service retries), 503 when the dedupe store failed or did not answer
 * within `dedupeTimeoutMs`, 405 for a method other than POST, 413 beyond `maxBodyBytes`. Pass the request untouched: the signature covers the raw body.
 */
export function webhookHandler(options: WebhookDedupeHandlerOptions): (request: Request) => Promise<Response>;
/**
 * The same endpoint with an `inbox` (`postgresInbox(db)` from `payments-sdk/postgres`): each event is
 * recorded and handled in one transaction, which `onEvent` receives as `{ tx }`.
 *
 * ```ts
 * export const POST = webhookHandler({
 *   inbox,
 *   onEvent: async (event, { tx }) => {
 *     if (event.type === 'payment.succeeded') await tx.query('UPDATE orders SET paid = true WHERE payment_uuid = $1', [event.data.uuid]);
 *   },
 * });
 * ```
 * Answers as above; 503 when the database failed or did not answer within the inbox's `timeoutMs`.
 */
export function webhookHandler<Context = WebhookInboxContext>(
  options: WebhookInboxHandlerOptions<Context>,
): (request: Request) => Promise<Response>;
/** Either form of the options, for code that passes them through (a framework adapter, say). */
export function webhookHandler<Context = WebhookInboxContext>(
  options: WebhookHandlerOptions<Context>,
): (request: Request) => Promise<Response>;
export function webhookHandler(options: WebhookHandlerOptions<unknown>): (request: Request) => Promise<Response> {
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
