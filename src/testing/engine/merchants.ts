/** Merchants and their API keys: who a key belongs to, in which mode, and whether it may be used. */

import { modeOfKey } from '../../internal/config.js';
import { randomHex } from '../ids.js';
import { HttpAnswer, MockServiceError } from '../mock-errors.js';
import type { MockKycStatus, MockServiceOptions } from '../options.js';
import { emptyPartition, type KeyMode, type MerchantState, type MockKeyInfo, type Partition } from './model.js';

/** Every merchant by id, every key with its merchant and mode, and the keys as `mock.keys` lists them. */
export interface MerchantRegistry {
  readonly byId: Map<string, MerchantState>;
  readonly byKey: Map<string, { merchant: MerchantState; mode: KeyMode }>;
  readonly keys: readonly MockKeyInfo[];
}

/** Builds the merchants of the `merchants` option (one merchant with a sandbox and a live key when left out). */
export function createMerchants(options: MockServiceOptions): MerchantRegistry {
  const byId = new Map<string, MerchantState>();
  const byKey = new Map<string, { merchant: MerchantState; mode: KeyMode }>();
  const keys: MockKeyInfo[] = [];
  const merchants = options.merchants ?? [{}];
  if (merchants.length === 0) throw new MockServiceError('merchants: give at least one merchant (or leave the option out).');
  merchants.forEach((m, i) => {
    const id = m.id ?? `merchant_${i + 1}`;
    if (byId.has(id)) throw new MockServiceError(`merchants: the id ${JSON.stringify(id)} is used twice.`);
    const merchant: MerchantState = {
      id,
      kyc: m.kyc ?? 'approved',
      suspended: m.suspended ?? false,
      partitions: {} as Record<KeyMode, Partition>,
    };
    merchant.partitions.sandbox = emptyPartition(merchant, 'sandbox');
    merchant.partitions.live = emptyPartition(merchant, 'live');
    byId.set(id, merchant);
    const given = m.keys ?? [`sk_test_mock_${randomHex(12)}`, `sk_live_mock_${randomHex(12)}`];
    if (given.length === 0) throw new MockServiceError(`merchants[${i}].keys: give at least one key (or leave the option out).`);
    for (const k of given) {
      const key = typeof k === 'string' ? k : k.key;
      if (typeof key !== 'string' || key.trim() === '')
        throw new MockServiceError(`merchants[${i}].keys: every key must be a non-empty string.`);
      const read = modeOfKey(key);
      const mode = (typeof k === 'string' ? undefined : k.mode) ?? (read === 'unknown' ? undefined : read);
      // The client reads the mode from the key's text; a key whose text says nothing needs it stated.
      if (!mode)
        throw new MockServiceError(`merchants[${i}].keys: a key whose text says neither "live" nor "test"/"sandbox" needs { key, mode }.`);
      if (byKey.has(key)) throw new MockServiceError(`merchants[${i}].keys: a key is configured twice.`);
      byKey.set(key, { merchant, mode });
      keys.push(Object.freeze({ key, mode, merchant: id }));
    }
  });
  return { byId, byKey, keys: Object.freeze(keys) };
}

/** Every partition: each merchant's sandbox, then its live data. */
export function* allPartitions(registry: MerchantRegistry): Generator<Partition> {
  for (const m of registry.byId.values()) {
    yield m.partitions.sandbox;
    yield m.partitions.live;
  }
}

/**
 * The partition of an `Authorization: Bearer` header, or the answer the service gives: 401 for an
 * unknown key, 403 for a suspended merchant or a live key before KYC approval.
 */
export function authenticate(registry: MerchantRegistry, authorization: string | null): Partition {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const entry = match?.[1] ? registry.byKey.get(match[1]) : undefined;
  // Laravel's own message; the key itself is never echoed.
  if (!entry) throw new HttpAnswer(401, { message: 'Unauthenticated.' });
  if (entry.merchant.suspended) throw new HttpAnswer(403, { message: 'Ce compte marchand est suspendu.' });
  if (entry.mode === 'live' && entry.merchant.kyc !== 'approved') {
    throw new HttpAnswer(403, { message: 'Votre KYC doit être approuvé pour utiliser une clé live.' });
  }
  return entry.merchant.partitions[entry.mode];
}

/** The partition of a configured key, for the kit's own methods. */
export function partitionOfKey(registry: MerchantRegistry, key: string | undefined): Partition {
  const entry = key === undefined ? undefined : registry.byKey.get(key);
  if (!entry) throw new MockServiceError("apiKey: not one of the mock's keys (see mock.keys).");
  return entry.merchant.partitions[entry.mode];
}

/** Changes a merchant's KYC state or suspension, as the service's back office would. */
export function setMerchant(registry: MerchantRegistry, id: string, changes: { kyc?: MockKycStatus; suspended?: boolean }): void {
  const merchant = registry.byId.get(id);
  if (!merchant) throw new MockServiceError(`No merchant ${JSON.stringify(id)} (merchants: ${[...registry.byId.keys()].join(', ')}).`);
  if (changes.kyc !== undefined) merchant.kyc = changes.kyc;
  if (changes.suspended !== undefined) merchant.suspended = changes.suspended;
}

/** Gives every merchant empty sandbox and live partitions. */
export function emptyAllPartitions(registry: MerchantRegistry): void {
  for (const merchant of registry.byId.values()) {
    merchant.partitions.sandbox = emptyPartition(merchant, 'sandbox');
    merchant.partitions.live = emptyPartition(merchant, 'live');
  }
}
