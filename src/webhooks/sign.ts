/**
 * HMAC-SHA256 over the raw body bytes, keyed with the whole secret string (`whsec_…` included), as
 * lowercase hex. No `node:` import, so edge runtimes load this file: Web Crypto
 * everywhere, and `node:crypto` (much faster on Node) where `process.getBuiltinModule` offers it.
 */

import { PaymentsError } from '../core/errors.js';
import { kind } from '../internal/article.js';

/** A webhook body as received: text or raw bytes (a Node `Buffer` is a `Uint8Array`). */
export type RawPayload = string | Uint8Array | ArrayBuffer;

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();
const KEY_CACHE_MAX = 32;

/**
 * The payload as bytes, without copying when it already is bytes; `undefined` when it is not a raw
 * body at all (a parsed object, `null`...). Recognises typed arrays and `ArrayBuffer`s of another
 * realm too (`vm` contexts, edge-runtime sandboxes), where `instanceof` fails.
 */
export function rawBytes(payload: unknown): Uint8Array | undefined {
  if (typeof payload === 'string') return encoder.encode(payload);
  if (payload instanceof Uint8Array) return payload;
  if (ArrayBuffer.isView(payload)) return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  return Object.prototype.toString.call(payload) === '[object ArrayBuffer]' ? new Uint8Array(payload as ArrayBuffer) : undefined;
}

/** What is signed: a string body (hashed as its UTF-8 bytes, never copied into a `Uint8Array` on Node) or the body's bytes. */
export type SignedBody = string | Uint8Array;

/** The value cached for a secret, made on first use; the oldest entry goes once `KEY_CACHE_MAX` are held. */
function cachedKey<T>(cache: Map<string, T>, secret: string, make: (secret: string) => T): T {
  let key = cache.get(secret);
  if (key === undefined) {
    if (cache.size >= KEY_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    key = make(secret);
    cache.set(secret, key);
  }
  return key;
}

/** The Web Crypto HMAC key of a secret (importKey dominates the cost of small bodies, so it is imported once). */
function importHmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/** Lowercase hex HMAC-SHA256 of `body` under `secret`, with Web Crypto (every runtime). */
export async function hmacHexWeb(body: SignedBody, secret: string): Promise<string> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const key = await cachedKey(keyCache, secret, importHmacKey);
  return toHex(new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes as Uint8Array<ArrayBuffer>)));
}

/** The `node:crypto` functions used, when the runtime has them. */
interface NodeHmac {
  createHmac(algorithm: 'sha256', key: unknown): { update(data: SignedBody): { digest(encoding: 'hex'): string } };
  createSecretKey?(key: string, encoding: 'utf8'): unknown;
}

let nodeHmac: NodeHmac | null | undefined;

/**
 * `node:crypto`, reached through `process.getBuiltinModule` (Node ≥ 22.3, Bun, Deno) rather than an
 * import: edge runtimes never see a `node:` import and simply get `null` (Web Crypto then).
 * On Node, `crypto.subtle.sign` hands each call to the libuv thread pool, while `createHmac` runs
 * in place: for a small body the synchronous HMAC is several times faster.
 */
export function nodeCrypto(): NodeHmac | null {
  if (nodeHmac === undefined) {
    try {
      // biome-ignore lint/suspicious/noExplicitAny: feature detection on a global with no types here.
      const module = (globalThis as any).process?.getBuiltinModule?.('node:crypto');
      nodeHmac = typeof module?.createHmac === 'function' ? (module as NodeHmac) : null;
    } catch {
      nodeHmac = null;
    }
  }
  return nodeHmac;
}

/**
 * `node:crypto` secret keys (`KeyObject`s, which never show their bytes), one per secret: handing
 * `createHmac` a key object spares it encoding the secret string again on every delivery.
 */
const nodeKeyCache = new Map<string, unknown>();

function nodeKey(secret: string): unknown {
  return (nodeHmac as NodeHmac).createSecretKey?.(secret, 'utf8') ?? secret;
}

/**
 * Lowercase hex HMAC-SHA256 with `node:crypto`, synchronously; `undefined` where the runtime has no
 * `node:crypto` (then use {@link hmacHexWeb}). Verification on Node then needs no await at all. The
 * hex text comes straight from node:crypto, with no buffer made for the 32 bytes; a string body is
 * hashed as UTF-8 directly. Both paths encode the secret string as UTF-8 and sign the same bytes.
 */
export function hmacHexSync(body: SignedBody, secret: string): string | undefined {
  return nodeCrypto()
    ?.createHmac('sha256', cachedKey(nodeKeyCache, secret, nodeKey))
    .update(body)
    .digest('hex');
}

/** Lowercase hex of bytes (a MAC on edge runtimes, a random id of the testing kit: a few dozen bytes). */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The `X-Service-Signature` the service would send for `payload`: lowercase hex HMAC-SHA256 of the
 * raw body, keyed with the whole secret. For tests: sign a body, then POST it to your handler.
 */
export async function signWebhookPayload(payload: RawPayload, secret: string): Promise<string> {
  if (typeof secret !== 'string' || secret.trim() === '')
    throw new PaymentsError("signWebhookPayload: secret must be a non-empty string (the endpoint's whsec_… secret).");
  const body = typeof payload === 'string' ? payload : rawBytes(payload);
  // Signing `{}` as zero bytes would hand back a signature that never matches what is sent.
  if (body === undefined) {
    throw new PaymentsError(
      `signWebhookPayload: the payload must be the raw body (a string, Uint8Array/Buffer or ArrayBuffer), got ${kind(payload)}. ` +
        'To sign an object, JSON.stringify it once and send that exact string.',
    );
  }
  return hmacHexSync(body, secret) ?? hmacHexWeb(body, secret);
}
