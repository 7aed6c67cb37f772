/**
 * Webhook verification. Web Crypto, or `node:crypto`
 * reached through `process.getBuiltinModule` where the runtime has it (see sign.ts); no `node:`
 * import: `payments-sdk/webhooks` runs on Node, Bun, Deno, Cloudflare Workers and Vercel Edge.
 *
 * @module
 */
import { PaymentsError, WebhookVerificationError } from '../core/errors.js';
import { kind } from '../internal/article.js';
import { parseJson } from '../internal/json.js';
import { toWebhookEvent, type WebhookEvent } from './events.js';
import { hmacHexSync, hmacSha256Web, nodeCrypto, type RawPayload, rawBytes, toHex } from './sign.js';

/** Header carrying the signature: lowercase hex HMAC-SHA256 of the raw body. */
export const SIGNATURE_HEADER = 'x-service-signature';
/** Header carrying the event type, which must equal the body's `type` when present. */
export const EVENT_HEADER = 'x-service-event';

/**
 * Request headers as frameworks hand them over: a Fetch `Headers` (Next.js, Hono, Bun, Deno,
 * Workers) or a Node headers object (`req.headers` of Express and `node:http`). Names are matched
 * in any case; array values (repeated headers) are accepted.
 */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | number | undefined>;

/** Input of {@link verifyWebhook}. */
export interface VerifyWebhookInput {
  /**
   * The raw body, byte for byte as received: a string, a `Uint8Array` (a Node `Buffer` is one) or an
   * `ArrayBuffer`. Not a parsed object: the signature covers the exact bytes, and
   * `JSON.stringify(JSON.parse(body))` rarely gives them back.
   */
  payload: RawPayload;
  /** The request headers; `X-Service-Signature` and `X-Service-Event` are read from them. */
  headers?: WebhookHeaders;
  /** The `X-Service-Signature` value, when you read it yourself. Wins over `headers`. */
  signature?: string | null;
  /**
   * The endpoint's signing secret (`whsec_…`, shown once when the endpoint is created), or several: one per endpoint
   * sharing this route, or the old and the new one while rotating. Any match is accepted.
   */
  secret: string | readonly string[];
}

/**
 * Verifies a webhook delivery and returns its typed event.
 *
 * - The signature is the HMAC-SHA256 of the raw body bytes keyed with the whole secret string,
 *   compared in constant time against every secret given. Its hex is read in either case (the
 *   service sends lowercase; the 32 bytes it encodes are what is compared).
 * - `X-Service-Event`, when present, must equal the body's `type`.
 * - `data` is validated: a `Payment` for `payment.succeeded` / `payment.failed`, a
 *   `Payout` for `payout.*`. A type the SDK does not know yet is returned untouched as
 *   `{ id, type, data }` (see {@link UnknownWebhookEvent}), never refused.
 *
 * @throws {@link WebhookVerificationError} with a `reason`: `missing_signature`,
 * `malformed_signature`, `signature_mismatch`, `invalid_payload` (not the raw body, not JSON, not
 * `{ id, type, data }`, or `data` of the wrong shape) or `event_type_mismatch`. Answer those with 400.
 * @throws `PaymentsError` when `secret` is missing or empty: a configuration error, not a bad
 * delivery (answer 500, so the service retries once it is fixed).
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const secrets = checkSecrets(input?.secret, 'verifyWebhook');
  const payload: unknown = input?.payload;
  // A string body stays a string: hashed as UTF-8 and parsed as is, never encoded then decoded back.
  const raw = typeof payload === 'string' ? payload : rawBytes(payload);
  // `String(req.body)` of a parsed body gives "[object Object]": refused for the same reason.
  if (raw === undefined || payload === '[object Object]') throw new WebhookVerificationError('invalid_payload', notRawBodyMessage(payload));

  const candidates = signatureCandidates(input);
  if (candidates.length === 0) {
    throw new WebhookVerificationError(
      'missing_signature',
      'No X-Service-Signature header: this request was not signed by the payments service, which signs every delivery. ' +
        'If you read the header yourself, pass it as { signature }.',
    );
  }
  const wellFormed = candidates.filter((candidate) => HEX64.test(candidate));
  if (wellFormed.length === 0) throw new WebhookVerificationError('malformed_signature', malformedMessage(candidates));

  // Every secret and every candidate is compared, with no early exit: the time taken says nothing
  // about which secret matched or how many bytes of a forged signature were right. The MACs are
  // compared as lowercase hex text: node:crypto hands that text over directly, with no buffer made
  // for the 32 bytes, and the candidates need no decoding.
  // node:crypto answers synchronously (no await on Node); Web Crypto is async (edge runtimes).
  const expected = nodeCrypto()
    ? secrets.map((secret) => hmacHexSync(raw, secret) as string)
    : (await Promise.all(secrets.map((secret) => hmacSha256Web(raw, secret)))).map(toHex);
  let matched = false;
  for (const mac of expected) for (const candidate of wellFormed) matched = sameHex(mac, candidate) || matched;
  if (!matched) throw new WebhookVerificationError('signature_mismatch', mismatchMessage(secrets));

  const body = parseBody(raw);
  const announced = headerValues(input.headers, EVENT_HEADER)[0];
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  if (announced && typeof type === 'string' && announced !== type) {
    throw new WebhookVerificationError(
      'event_type_mismatch',
      `The X-Service-Event header says ${quote(announced)} but the body's type is ${quote(type)}: the service sends the same value in both.`,
    );
  }
  return toWebhookEvent(body) as WebhookEvent;
}

/**
 * The secrets as a non-empty list of non-empty strings. A missing secret is a configuration error
 * (a `PaymentsError`), never a bad delivery. Messages never print a secret.
 */
export function checkSecrets(secret: unknown, where: string): string[] {
  const list: unknown[] = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
  const bad = list.findIndex((s) => typeof s !== 'string' || s.trim() === '');
  if (list.length > 0 && bad === -1) return list as string[];
  throw new PaymentsError(
    `${where}: \`secret\` must be the endpoint's signing secret ("whsec_…", shown once when the endpoint was created) ` +
      `or a non-empty array of them; got ${describeBadSecret(secret, list, bad)}.`,
  );
}

/** What was given instead of a secret, in words; never the value itself. */
function describeBadSecret(secret: unknown, list: unknown[], bad: number): string {
  if (secret === undefined) return 'nothing (is the environment variable set?)';
  if (!Array.isArray(secret)) return typeof secret === 'string' ? 'a blank string' : kind(secret);
  if (list.length === 0) return 'an empty array';
  return `${typeof list[bad] === 'string' ? 'a blank string' : kind(list[bad])} at index ${bad}`;
}

/** Every value of a header, split on commas (a repeated header arrives joined with ", "). */
function headerValues(headers: unknown, name: string): string[] {
  let value: unknown;
  let list: unknown[] | undefined;
  try {
    if (headers === null || typeof headers !== 'object') return [];
    if (headers instanceof Map) {
      list = [];
      for (const [key, entry] of headers) if (sameName(key, name)) list.push(entry);
    } else if (typeof (headers as { get?: unknown }).get === 'function') {
      // A Fetch `Headers` (or a look-alike), whose own lookup ignores case.
      value = (headers as Headers).get(name);
    } else {
      // Node lowercases header names: look the name up first, and scan the keys only when it is absent
      // (an object a merchant built with 'X-Service-Signature').
      const record = headers as Record<string, unknown>;
      value = Object.hasOwn(record, name) ? record[name] : undefined;
      if (value === undefined) {
        list = [];
        for (const key of Object.keys(record)) if (sameName(key, name)) list.push(record[key]);
      }
    }
    if (list) return splitValues(list);
    // The common case, one value and no comma, without the split below.
    if (typeof value === 'string' && !value.includes(',')) {
      const trimmed = value.trim();
      return trimmed === '' ? [] : [trimmed];
    }
    return splitValues([value]);
  } catch {
    // Headers that throw when read (a hostile getter, on the object or inside an array value) carry
    // no usable header.
    return [];
  }
}

/** Header values (strings, numbers, arrays of them) split on commas, trimmed, empty parts dropped. */
function splitValues(values: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const value of values.flat()) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    for (const part of String(value).split(',')) {
      const trimmed = part.trim();
      if (trimmed !== '') out.push(trimmed);
    }
  }
  return out;
}

function sameName(key: unknown, name: string): boolean {
  return typeof key === 'string' && key.toLowerCase() === name;
}

function signatureCandidates(input: VerifyWebhookInput): string[] {
  const given: unknown = input.signature;
  if (given !== undefined && given !== null) {
    // A value read from a header by hand may still carry a repeated header joined with ", ".
    if (typeof given !== 'string') {
      throw new WebhookVerificationError('malformed_signature', `Malformed signature: \`signature\` must be a string, got ${kind(given)}.`);
    }
    return splitValues([given]);
  }
  return headerValues(input.headers, SIGNATURE_HEADER);
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * Constant-time comparison of a well-formed candidate (64 hex digits, either case) with the lowercase
 * hex of the expected MAC: the same 32 bytes, compared digit by digit without decoding them, every
 * digit compared. `| 32` folds A-F into a-f and leaves 0-9 as they are.
 */
function sameHex(expected: string, candidate: string): boolean {
  let diff = 0;
  for (let i = 0; i < 64; i++) diff |= (candidate.charCodeAt(i) | 32) ^ expected.charCodeAt(i);
  return diff === 0;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function parseBody(raw: string | Uint8Array): unknown {
  let text: string;
  try {
    text = typeof raw === 'string' ? raw : decoder.decode(raw);
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Invalid webhook payload: the body is not UTF-8 text.');
  }
  try {
    return parseJson(text);
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Invalid webhook payload: the body is not JSON (the service sends JSON).');
  }
}

/** How to keep the raw body, framework by framework: the most common webhook integration bug. */
export const RAW_BODY_HELP =
  'Signature verification needs the raw request body, byte for byte as received: ' +
  "in Express, mount `express.raw({ type: 'application/json' })` on the webhook route (before any `express.json()`), " +
  'or use `expressWebhook()`, which reads the body itself; ' +
  'in Next.js (App Router) and other fetch-style handlers, pass `await request.text()` (never `request.json()`), ' +
  'or use `webhookHandler()`; in the Next.js Pages Router, export `config = { api: { bodyParser: false } }` from the route; ' +
  "in Fastify, register a content-type parser with `parseAs: 'buffer'` for the webhook route; in Koa, pass `ctx.request.rawBody` " +
  '(kept by @koa/bodyparser) or declare the route before the body parser; ' +
  'in Hono, pass `c.req.raw` to `webhookHandler()` or `await c.req.text()` to `verifyWebhook()`.';

function notRawBodyMessage(payload: unknown): string {
  if (payload === undefined || payload === null) return `No webhook payload was given (got ${String(payload)}). ${RAW_BODY_HELP}`;
  if (payload === '[object Object]')
    return `The webhook payload is the text "[object Object]": a parsed body was turned into a string. ${RAW_BODY_HELP}`;
  const payloadKind = kind(payload);
  const parsed =
    typeof payload === 'object'
      ? ' It looks like a body already parsed as JSON; re-serialising it would not give the signed bytes back.'
      : '';
  return `The webhook payload must be the raw body (string, Uint8Array/Buffer or ArrayBuffer), got ${payloadKind}.${parsed} ${RAW_BODY_HELP}`;
}

function malformedMessage(candidates: string[]): string {
  const first = candidates[0] ?? '';
  const shape =
    first.length !== 64
      ? `got ${candidates.length > 1 ? `${candidates.length} values, the first of ` : ''}${first.length} character${first.length === 1 ? '' : 's'}`
      : 'got 64 characters that are not all hexadecimal digits';
  const prefix = /^[a-z0-9]+=/i.test(first) ? ' Pass the value without a "name=" prefix.' : '';
  return `Malformed X-Service-Signature: it must be 64 hexadecimal characters, an HMAC-SHA256 in lowercase hex; ${shape}.${prefix}`;
}

function mismatchMessage(secrets: string[]): string {
  const tried = secrets.length > 1 ? ` under any of the ${secrets.length} secrets given` : ' under the secret given';
  const hints: string[] = [];
  secrets.forEach((secret, i) => {
    const which = secrets.length > 1 ? `secret #${i + 1}` : 'the secret';
    if (secret !== secret.trim()) {
      hints.push(
        `Note: ${which} has leading or trailing whitespace, often a newline copied into an environment variable; the whole string is the key, so trim it.`,
      );
    }
    const trimmed = secret.trim();
    if (!trimmed.startsWith('whsec_')) {
      const looksLikeKey = /^(sk|pk)_/.test(trimmed) || /_(live|test|sandbox)_/.test(trimmed);
      hints.push(
        looksLikeKey
          ? `Note: ${which} does not start with "whsec_" and looks like an API key; use the endpoint's signing secret instead.`
          : `Note: ${which} does not start with "whsec_": is it the endpoint's signing secret?`,
      );
    }
  });
  return (
    `Webhook signature mismatch: X-Service-Signature is not the HMAC-SHA256 of this body${tried}. ` +
    'Check that the payload is the raw body exactly as received (a parsed and re-serialised body never matches), ' +
    "and that the secret is this endpoint's own signing secret (each endpoint has its own)." +
    (hints.length > 0 ? ` ${hints.join(' ')}` : '')
  );
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}
