/**
 * Identifiers and timestamps shaped like the service's: UUID v4 for payments,
 * ULID for checkout-session references, ISO 8601 with an offset for timestamps. Web APIs only, so
 * the kit runs on Node, Bun, Deno and edge runtimes.
 */
import { toHex } from '../webhooks/sign.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A UUID v4 (`payment.uuid`, `psp_reference`, payout and link identifiers). */
export function uuid(): string {
  return globalThis.crypto.randomUUID();
}

/** A ULID whose time part is `timeMs` (the mock's clock), as session references are. */
export function ulid(timeMs: number): string {
  let time = Math.max(0, Math.floor(timeMs));
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  return head + randomChars(CROCKFORD, 16);
}

/** A short lowercase slug: every payment link has one. */
export function slug(): string {
  return randomChars('abcdefghijkmnpqrstuvwxyz23456789', 10);
}

/** `count` random characters of `alphabet`. */
function randomChars(alphabet: string, count: number): string {
  let out = '';
  for (const byte of globalThis.crypto.getRandomValues(new Uint8Array(count))) out += alphabet[byte % alphabet.length];
  return out;
}

/** A random hex string, for generated keys and secrets. */
export function randomHex(bytes: number): string {
  return toHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** `2026-11-20T10:15:00+00:00`: ISO 8601 with an offset and no milliseconds, as the service writes it. */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The UTC calendar date `YYYY-MM-DD` of an instant: what the `from`/`to` filters compare. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
