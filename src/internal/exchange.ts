/**
 * The exchange contract: the `fetch` handed to ky. One call is one attempt: the request, then the
 * WHOLE body, read under ky's per-attempt timeout. A body cut short or stalled half-way then fails
 * the attempt, which ky retries with the same Idempotency-Key, instead of failing after the retries.
 *
 * What it hands back to ky is the received `Response` (its body read). The body, its key redacted
 * and parsed, is kept beside it in a `WeakMap` until {@link receivedBody} takes it: no second
 * `Response` is built per call.
 */
import { PaymentsError } from '../core/errors.js';
import { readCapped } from './capped-stream.js';
import { parseJson } from './json.js';
import { redactDeep, redactSecrets } from './logger.js';

/** What the exchange needs to know, fixed per client. */
export interface ExchangeConfig {
  /** The client's `fetch` option; the global `fetch` (read per call) when absent. */
  fetch?: typeof fetch;
  /** Secrets to redact from every answer. */
  secrets: readonly string[];
  /** Largest decoded body accepted, in bytes. */
  maxResponseBytes: number;
}

/** A 2xx whose body is not JSON (a proxy page, or a body cut short): retried, then reported. */
export class MalformedBodyError extends Error {
  /** The body as received, the key redacted. */
  readonly text: string;
  constructor(text: string) {
    super('The response body is not valid JSON.');
    this.text = text;
  }
}

/** The attempt's signal fired while fetch ran: the caller's abort or ky's timeout. Never retried. */
export class AttemptAbortedError extends Error {}

/** Something other than an `Error` thrown by a custom `fetch`, kept as thrown. */
export class ThrownValueError extends Error {
  /** What was thrown. */
  readonly value: unknown;
  constructor(value: unknown) {
    super('a non-Error value was thrown');
    this.value = value;
  }
}

const bodies = new WeakMap<Response, unknown>();

/**
 * Takes the parsed body of a response this exchange received (`undefined` when empty, or once
 * taken). Taken, not read: a `WeakMap` entry lives as long as its key, and a `Response` is kept by
 * the caller (`withResponse()`) and outlives a young-generation GC, so each page of a list walk
 * would hold its whole parsed body until a full GC (the heap climbing by the megabyte between them,
 * and every scavenge copying it).
 */
export function receivedBody(response: Response): unknown {
  const body = bodies.get(response);
  bodies.delete(response);
  return body;
}

/** The `fetch` ky calls for each attempt. */
export function exchange(config: ExchangeConfig): typeof fetch {
  const { secrets, maxResponseBytes } = config;
  // Resolved per call, not captured: a program (or msw) may replace globalThis.fetch at any time.
  const send = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const signal = input instanceof Request ? input.signal : init?.signal;
    let received: Response;
    let raw: string;
    try {
      // Checked first: an aborted signal sends nothing.
      signal?.throwIfAborted();
      const attempt = (async () => {
        const response = await send(input, init);
        return [response, await readText(response, maxResponseBytes, input instanceof Request ? input : undefined)] as const;
      })();
      [received, raw] = await (signal ? untilAborted(attempt, signal) : attempt);
    } catch (error) {
      if (error instanceof PaymentsError) throw error;
      if (signal?.aborted) throw new AttemptAbortedError('aborted', { cause: error });
      throw error instanceof Error ? error : new ThrownValueError(error);
    }
    // A service or proxy that echoes the request ("Invalid key: Bearer sk_…", a header, a 2xx page)
    // must not put the key into anything the SDK hands back: redacted here, once, for every status.
    const text = redactSecrets(raw, secrets);
    const response = withRedactedHeaders(received, secrets);
    let body: unknown;
    if (response.ok) {
      if (text !== '' && response.status !== 204 && response.status !== 205) {
        try {
          body = parseJson(text);
        } catch {
          throw new MalformedBodyError(text);
        }
      }
    } else if (text !== '') {
      body = reparse(text);
    }
    // Without a `\` in the text, every parsed string is a slice of it, already redacted. With one, a
    // JSON escape (`\/`, `\u0073`) may have spelled the key differently: the parsed strings are redacted too.
    if (typeof body === 'object' && body !== null && text.includes('\\')) body = redactDeep(body, secrets);
    bodies.set(response, body);
    return response;
  };
}

/** Settles as `work` does, or rejects as soon as `signal` aborts: a custom `fetch` may ignore its signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The body as text (UTF-8, a leading BOM dropped, bad bytes replaced, as `Response.text()`), read
 * while counting its DECODED bytes: past `max`, the body is cancelled and the call fails. A body
 * with its length announced, not encoded and within the cap, is read in one go.
 */
async function readText(response: Response, max: number, request: Request | undefined): Promise<string> {
  const declared = response.headers.get('content-length');
  const encoded = response.headers.has('content-encoding');
  if (declared !== null && !encoded && /^\d+$/.test(declared)) {
    if (Number(declared) <= max) return response.text();
    await response.body?.cancel().catch(() => {});
    throw tooLarge(max, request);
  }
  const stream = response.body;
  if (!stream) return '';
  const decoder = new TextDecoder();
  let text = '';
  const whole = await readCapped(stream, max, (chunk) => {
    text += decoder.decode(chunk, { stream: true });
  });
  if (!whole) throw tooLarge(max, request);
  return text + decoder.decode();
}

function tooLarge(max: number, request: Request | undefined): PaymentsError {
  const answer = request ? `The answer to ${request.method} ${request.url}` : 'The answer';
  return new PaymentsError(`${answer} is larger than maxResponseBytes (${max} bytes).`);
}

/** The response, or a copy without body whose header values no longer hold a secret. */
function withRedactedHeaders(received: Response, secrets: readonly string[]): Response {
  let leaks = false;
  received.headers.forEach((value) => {
    if (!leaks && redactSecrets(value, secrets) !== value) leaks = true;
  });
  if (!leaks) return received;
  const headers = new Headers();
  received.headers.forEach((value, name) => {
    headers.append(name, redactSecrets(value, secrets));
  });
  // A constructed Response holds only 200–599 and has an empty `url`: the received ones are kept.
  const response = new Response(null, { status: 200, statusText: received.statusText, headers });
  for (const key of ['url', 'redirected', 'status', 'ok'] as const) Object.defineProperty(response, key, { value: received[key] });
  return response;
}

/** An error body as JSON when it is JSON (whatever its content type says), else as text. */
function reparse(data: string): unknown {
  const trimmed = data.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return data;
  try {
    return parseJson(trimmed);
  } catch {
    return data;
  }
}
