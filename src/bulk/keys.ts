/**
 * The Idempotency-Key of a row of a bulk payout: derived from the batch id and the row key alone,
 * so a rerun of the same batch (even without its journal, even from another machine) sends the same
 * key for the same row, and the service replays the payout instead of paying it twice.
 */

/** Prefix of every derived key: names the scheme, so another derivation can never collide with it. */
export const BULK_KEY_PREFIX = 'bulk1_';

const encoder = new TextEncoder();

/**
 * The Idempotency-Key of row `rowKey` of batch `batchId`:
 *
 * `"bulk1_" + hex(SHA-256(UTF-8(L + ":" + batchId + ":" + rowKey)))`, where `L` is the length of
 * `batchId` in UTF-8 bytes, written in decimal. The length prefix keeps the pair unambiguous
 * (`("a:b", "c")` and `("a", "b:c")` give different keys). The result is 70 characters of
 * `[a-z0-9_]`: a valid header value, well inside the service's 255.
 *
 * Exported so that a key can be recomputed for reconciliation, e.g. in a shell:
 * `printf '%s' "7:payroll:emp-17" | sha256sum`.
 */
export async function bulkIdempotencyKey(batchId: string, rowKey: string): Promise<string> {
  const text = `${encoder.encode(batchId).length}:${batchId}:${rowKey}`;
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return BULK_KEY_PREFIX + hex;
}
