/**
 * The records of the in-process stores (memory, file): the whole {@link Store} contract over one
 * map, decided synchronously against the time the caller reads from the store's one clock, so that
 * each call is one indivisible step between two awaits.
 *
 * The map's order is the order of last writes: every write moves its record to the end, and every
 * record lives `ttlMs` after its last write, so the records past their time are always at the front
 * and dropping them costs O(1) each.
 */
import { PaymentsError } from '../core/errors.js';
import { StoreFullError } from './errors.js';
import type { StoreClaim, StoreClaimRequest, StoreJsonObject, StoreRecord } from './store.js';

/** A record as an in-process store holds it. */
export interface HeldRecord {
  key: string;
  data?: StoreJsonObject;
  claims: number;
  /** When the key was first claimed (store clock). */
  firstAt: number;
  settled: boolean;
  result?: StoreJsonObject;
  note?: StoreJsonObject;
  /** The last owner granted a claim, kept after its lease ended until it settles or releases, or another owner claims. */
  owner?: string;
  /** When the owner's lease ends (store clock). */
  leaseUntil?: number;
  /** The last write (store clock): the record is kept `ttlMs` after it. */
  writtenAt: number;
}

/** What a claim call changed: the answers, and the records it wrote (for a store that logs them). */
export interface ClaimOutcome {
  answers: StoreClaim[];
  written: HeldRecord[];
}

/** A copy of a JSON object (its `undefined` members left out), so that no caller shares the objects a store keeps. */
export function copyJson<T extends object | undefined>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The records of one in-process store. */
export class RecordTable {
  readonly #records = new Map<string, HeldRecord>();
  readonly #ttlMs: number;
  readonly #maxKeys: number;
  readonly #name: string;

  /**
   * @param name - the store's name, for messages (`memoryStore`).
   * @param ttlMs - how long a record is kept after its last write.
   * @param maxKeys - how many records at most (`Infinity`: unbounded).
   */
  constructor(name: string, ttlMs: number, maxKeys = Number.POSITIVE_INFINITY) {
    this.#name = name;
    this.#ttlMs = ttlMs;
    this.#maxKeys = maxKeys;
  }

  /** How many records are held (expired ones included until they are dropped). */
  get size(): number {
    return this.#records.size;
  }

  /**
   * Claims each key in order. Room for every new key is made first: when there is not enough, the
   * call throws {@link StoreFullError} and changes nothing.
   */
  claim(requests: readonly StoreClaimRequest[], now: number): ClaimOutcome {
    if (!Array.isArray(requests)) throw new PaymentsError(`${this.#name}: claim takes an array of requests.`);
    for (const r of requests) this.#check(r);
    const fresh = new Set<string>();
    for (const r of requests) if (this.#live(r.key, now) === undefined) fresh.add(r.key);
    if (!this.#makeRoom(fresh.size, now)) {
      throw new StoreFullError(
        `${this.#name}: all ${this.#maxKeys} keys hold live claims or settled records inside their retention: this claim is refused ` +
          '(a webhook endpoint answers 503 and the service delivers again later). Raise maxKeys, or use a shared store.',
      );
    }
    const answers: StoreClaim[] = [];
    const written: HeldRecord[] = [];
    for (const r of requests) {
      const found = this.#live(r.key, now);
      if (found?.settled) {
        answers.push({ state: 'settled', record: view(found, now) });
        continue;
      }
      if (found?.owner !== undefined && found.owner !== r.owner && (found.leaseUntil ?? 0) > now) {
        answers.push({ state: 'busy', record: view(found, now) });
        continue;
      }
      const record: HeldRecord = found ?? { key: r.key, data: copyJson(r.data), claims: 0, firstAt: now, settled: false, writtenAt: now };
      record.claims += 1;
      record.owner = r.owner;
      record.leaseUntil = now + r.leaseMs;
      this.#touch(record, now);
      answers.push({ state: 'claimed', record: view(record, now) });
      written.push(record);
    }
    return { answers, written };
  }

  /** Extends `owner`'s live lease; `undefined` when it holds no live lease on `key`. */
  renew(key: string, owner: string, leaseMs: number, now: number): HeldRecord | undefined {
    this.#checkLease(leaseMs);
    const found = this.#live(key, now);
    if (!found || found.settled || found.owner !== owner || (found.leaseUntil ?? 0) <= now) return undefined;
    found.leaseUntil = now + leaseMs;
    this.#touch(found, now);
    return found;
  }

  /** Settles `key` while `owner` is its last claimant (its lease may have ended); `undefined` otherwise. */
  settle(key: string, owner: string, result: StoreJsonObject | undefined, now: number): HeldRecord | undefined {
    return this.#endClaim(key, owner, now, { settled: true, result });
  }

  /** Ends `owner`'s claim, keeping `note`; `undefined` when `owner` is not the key's last claimant. */
  release(key: string, owner: string, note: StoreJsonObject | undefined, now: number): HeldRecord | undefined {
    return this.#endClaim(key, owner, now, { note });
  }

  /**
   * Ends the claim of `owner`, the key's last claimant, writing a copy of `change` (its `undefined`
   * members left out); `undefined` when it is not, or the key is settled.
   */
  #endClaim(key: string, owner: string, now: number, change: Partial<HeldRecord>): HeldRecord | undefined {
    const found = this.#live(key, now);
    if (!found || found.settled || found.owner !== owner) return undefined;
    Object.assign(found, copyJson(change));
    found.owner = undefined;
    found.leaseUntil = undefined;
    this.#touch(found, now);
    return found;
  }

  /** The record of `key` as callers see it, or `undefined`. */
  read(key: string, now: number): StoreRecord | undefined {
    const found = this.#live(key, now);
    return found && view(found, now);
  }

  /** Puts a record read back from storage (the caller keeps the order of last writes). */
  load(record: HeldRecord): void {
    this.#records.delete(record.key);
    this.#records.set(record.key, record);
  }

  /** The records still inside their retention, oldest write first. */
  *live(now: number): Iterable<HeldRecord> {
    for (const record of this.#records.values()) if (!this.#expired(record, now)) yield record;
  }

  #check(r: StoreClaimRequest): void {
    // A request that is not an object has no key: the key's check names it.
    if (typeof r?.key !== 'string' || r.key === '') throw new PaymentsError(`${this.#name}: a claim's key must be a non-empty string.`);
    if (typeof r.owner !== 'string' || r.owner === '')
      throw new PaymentsError(`${this.#name}: a claim's owner must be a non-empty string.`);
    this.#checkLease(r.leaseMs);
  }

  #checkLease(leaseMs: number): void {
    if (!Number.isSafeInteger(leaseMs) || leaseMs < 1) {
      throw new PaymentsError(`${this.#name}: leaseMs must be a positive integer, got ${String(leaseMs)}.`);
    }
  }

  /** Past its retention, and not under a live lease (a lease longer than the retention still holds). */
  #expired(record: HeldRecord, now: number): boolean {
    return record.writtenAt + this.#ttlMs <= now && !((record.leaseUntil ?? 0) > now);
  }

  #live(key: string, now: number): HeldRecord | undefined {
    const found = this.#records.get(key);
    if (found === undefined || !this.#expired(found, now)) return found;
    this.#records.delete(key);
    return undefined;
  }

  #touch(record: HeldRecord, now: number): void {
    record.writtenAt = now;
    this.#records.delete(record.key);
    this.#records.set(record.key, record);
  }

  /**
   * Frees `count` slots: records past their retention first, then the oldest written records that
   * are neither settled nor under a live lease (released, or whose owner's lease ended). One pass in
   * the map's order (of last writes) meets them in that order, the records past their retention
   * being the oldest written. A live claim or a settled record inside its retention is never
   * dropped. `false`, and nothing dropped, when that is not enough.
   */
  #makeRoom(count: number, now: number): boolean {
    let excess = this.#records.size + count - this.#maxKeys;
    const droppable: string[] = [];
    for (const record of this.#records.values()) {
      if (excess <= 0) break;
      if (this.#expired(record, now) || !(record.settled || (record.leaseUntil ?? 0) > now)) {
        droppable.push(record.key);
        excess -= 1;
      }
    }
    if (excess > 0) return false;
    for (const key of droppable) this.#records.delete(key);
    return true;
  }
}

/** A record as callers see it: copies of its objects, its age, and its owner only while the lease is live. */
export function view(record: HeldRecord, now: number): StoreRecord {
  const { key, claims, settled, data, result, note, owner } = record;
  return {
    key,
    claims,
    age: Math.max(0, now - record.firstAt),
    settled,
    // One copy of the three objects; JSON leaves out those the record does not have.
    ...copyJson({ data, result, note }),
    ...(owner !== undefined && (record.leaseUntil ?? 0) > now && { owner }),
  };
}
