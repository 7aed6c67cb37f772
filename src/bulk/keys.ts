/**
 * The Idempotency-Key of a row of a bulk payout: derived from the batch id and the row key alone,
 * so a rerun of the same batch (even without its store, even from another machine) sends the same
 * key for the same row, and the service replays the payout instead of paying it twice. Also the hash
 * of a row's content, which the store keeps to recognise the row at a position.
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
 * A row has this one key for good: every send of it, in any run, on any machine, with any store
 * (`retryFailed` included), uses it, so the service can never create the row twice. A row to be
 * paid again anyway needs a new batch id.
 *
 * Exported so that a key can be recomputed for reconciliation, e.g. in a shell:
 * `printf '%s' "7:payroll:emp-17" | sha256sum`.
 */
export async function bulkIdempotencyKey(batchId: string, rowKey: string): Promise<string> {
  return BULK_KEY_PREFIX + (await sha256Hex(`${encoder.encode(batchId).length}:${batchId}:${rowKey}`));
}

/**
 * The hash of a row's content: hex SHA-256 of its JSON with object keys in sorted order (so the
 * same row read twice hashes the same, whatever order its fields were built in).
 */
export function rowHash(row: unknown): Promise<string> {
  return sha256Hex(
    JSON.stringify(row, (_name, value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((name) => [name, (value as Record<string, unknown>)[name]]),
          )
        : value,
    ) ?? '',
  );
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
