/**
 * `Idempotency-Key` records: a creation repeated with the same key and content within 24 hours is
 * answered with the first answer; the same key with other content is a conflict.
 */

import { DAY_MS } from '../../internal/durations.js';
import { HttpAnswer } from '../mock-errors.js';
import type { Partition } from './model.js';

/** How long an idempotency key is remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = DAY_MS;

/**
 * Looks up an `Idempotency-Key`: `undefined` when new (or forgotten after 24 h), the stored body
 * when the content is the same (replayed with 200), or a 409 when it differs.
 */
export function idempotentReplay(partition: Partition, now: number, scope: string, key: string, fingerprint: string): unknown {
  const id = `${scope} ${key}`;
  const record = partition.idempotency.get(id);
  if (!record) return undefined;
  if (now - record.storedAt >= IDEMPOTENCY_TTL_MS) {
    partition.idempotency.delete(id);
    return undefined;
  }
  if (record.fingerprint !== fingerprint) {
    throw new HttpAnswer(409, { message: "Cette clé d'idempotence a déjà été utilisée avec un contenu différent." });
  }
  return structuredClone(record.body);
}

/** Remembers the 201 answer of a creation under its key. Errors are not remembered: a retry re-evaluates. */
export function rememberIdempotent(
  partition: Partition,
  now: number,
  scope: string,
  key: string,
  fingerprint: string,
  body: unknown,
): void {
  partition.idempotency.set(`${scope} ${key}`, { fingerprint, body: structuredClone(body), storedAt: now });
}
