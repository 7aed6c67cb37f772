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
import { invalidPayload, toWebhookEvent, type WebhookEvent } from './events.js';
import { hmacHexSync, hmacHexWeb, nodeCrypto, type RawPayload, rawBytes } from './sign.js';

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
  if (raw === undefined || payload === '[object Object]') {
    const got = raw === undefined ? kind(payload) : 'the text "[object Object]", a parsed body turned into a string';
    throw invalidPayload(`it must be the raw body (a string, Uint8Array/Buffer or ArrayBuffer), got ${got}. ${RAW_BODY_HELP}`);
  }

  // A value read from a header by hand is read as the header is: a repeated header joined with ", "
  // (or handed over as Node's array) gives several candidates.
  const given: unknown = input.signature;
  if (given != null && typeof given !== 'string' && !Array.isArray(given)) {
    throw new WebhookVerificationError('malformed_signature', `Malformed signature: \`signature\` must be a string, got ${kind(given)}.`);
  }
  const candidates = given != null ? splitValues(given) : headerValues(input.headers, SIGNATURE_HEADER);
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
    : await Promise.all(secrets.map((secret) => hmacHexWeb(raw, secret)));
  let matched = false;
  for (const mac of expected) for (const candidate of wellFormed) matched = sameHex(mac, candidate) || matched;
  if (!matched) throw new WebhookVerificationError('signature_mismatch', mismatchMessage(secrets));

  const body = parseBody(raw);
  // The header is compared with the body's type before the body is checked: a delivery whose two
  // types disagree is refused for that, whatever else is wrong with it.
  const type = (body as { type?: unknown } | null)?.type;
  const announced = headerValues(input.headers, EVENT_HEADER)[0];
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
  const several = Array.isArray(secret);
  const list: unknown[] = several ? secret : [secret];
  const bad = list.findIndex((s) => typeof s !== 'string' || s.trim() === '');
  if (list.length > 0 && bad === -1) return list as string[];
  // What was given instead, in words; never the value itself.
  const given = list[bad];
  const got =
    list.length === 0
      ? 'an empty array'
      : `${typeof given === 'string' ? 'a blank string' : kind(given)}${several ? ` at index ${bad}` : given === undefined ? ' (is the environment variable set?)' : ''}`;
  throw new PaymentsError(
    `${where}: \`secret\` must be the endpoint's signing secret ("whsec_…", shown once when the endpoint was created) ` +
      `or a non-empty array of them; got ${got}.`,
  );
}

/** Every value of a header, split on commas (a repeated header arrives joined with ", "). */
function headerValues(headers: unknown, name: string): string[] {
  try {
    if (headers === null || typeof headers !== 'object') return [];
    // A Fetch `Headers` (or a look-alike), whose own lookup ignores case.
    if (typeof (headers as Headers).get === 'function') return splitValues((headers as Headers).get(name));
    // Node lowercases header names: look the name up first, and scan the keys only when it is absent
    // (an object a merchant built with 'X-Service-Signature').
    const record = headers as Record<string, unknown>;
    return splitValues(
      record[name] ??
        Object.keys(record)
          .filter((key) => key.toLowerCase() === name)
          .map((key) => record[key]),
    );
  } catch {
    // Headers that throw when read (a hostile getter, on the object or inside an array value) carry
    // no usable header.
    return [];
  }
}

/** A header value (a string, a number, or an array of them) split on commas, trimmed, empty parts dropped. */
function splitValues(value: unknown): string[] {
  // The common case, one value and no comma, without a split.
  if (typeof value === 'string' && !value.includes(',')) {
    const trimmed = value.trim();
    return trimmed === '' ? [] : [trimmed];
  }
  if (Array.isArray(value)) return value.flatMap(splitValues);
  if (typeof value !== 'string' && typeof value !== 'number') return [];
  return String(value)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
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

/** The signed body as JSON; it is UTF-8 JSON text whenever the service sent it. */
function parseBody(raw: string | Uint8Array): unknown {
  try {
    return parseJson(typeof raw === 'string' ? raw : decoder.decode(raw));
  } catch {
    throw invalidPayload('the body is not JSON text in UTF-8 (the service sends JSON).');
  }
}

/** Why a webhook needs the raw body: the first sentence of every message about it. */
export const RAW_BODY_WHY =
  'Signature verification needs the raw request body, byte for byte as received (a parsed body, serialised again, never gives the signed bytes back).';

/**
 * How to keep the raw body: the most common webhook integration bug. The handlers and the two
 * commonest fixes are named here; the guide shipped in the package has every framework's.
 */
export const RAW_BODY_HELP =
  `${RAW_BODY_WHY} Use \`webhookHandler()\` (Next.js App Router, Hono, Workers, Bun, Deno) or \`expressWebhook()\` (Express, node:http), which read it themselves; ` +
  "or pass `await request.text()` (never `request.json()`), or in Express mount `express.raw({ type: 'application/json' })` on the webhook route " +
  'before any `express.json()`. Next.js Pages Router, Fastify, Koa: see "Keep the raw body" in node_modules/payments-sdk/docs/webhooks.md.';

function malformedMessage(candidates: string[]): string {
  const first = candidates[0] as string;
  const length = `${first.length} character${first.length === 1 ? '' : 's'}${first.length === 64 ? ', not all hexadecimal digits' : ''}`;
  return (
    'Malformed X-Service-Signature: it must be 64 hexadecimal characters, an HMAC-SHA256 in lowercase hex; ' +
    `got ${candidates.length > 1 ? `${candidates.length} values, the first of ` : ''}${length}.` +
    (/^\w+=/.test(first) ? ' Pass the value without a "name=" prefix.' : '')
  );
}

function mismatchMessage(secrets: string[]): string {
  const several = secrets.length > 1;
  let message =
    `Webhook signature mismatch: X-Service-Signature is not the HMAC-SHA256 of this body under ${several ? `any of the ${secrets.length} secrets` : 'the secret'} given. ` +
    'Check that the payload is the raw body exactly as received (a parsed body, serialised again, never gives the signed bytes back), ' +
    "and that the secret is this endpoint's own signing secret.";
  // Hints about a secret that cannot be right, naming it by its place, never by its value.
  secrets.forEach((secret, i) => {
    const which = several ? `secret #${i + 1}` : 'the secret';
    const trimmed = secret.trim();
    if (secret !== trimmed) {
      message += ` Note: ${which} has leading or trailing whitespace, often a newline copied into an environment variable; the whole string is the key, so trim it.`;
    }
    if (!trimmed.startsWith('whsec_')) {
      const apiKey = /^(sk|pk)_|_(live|test|sandbox)_/.test(trimmed) ? ' and looks like an API key' : '';
      message += ` Note: ${which} does not start with "whsec_"${apiKey}: is it the endpoint's signing secret?`;
    }
  });
  return message;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}
