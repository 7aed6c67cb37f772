/**
 * `redisStore(client)`: the {@link Store} of `payments-sdk/stores` on Redis, shared by every process
 * that uses the same Redis. Each call is one Lua script (a `claim` of many keys too: one round trip),
 * and every time it compares is Redis's own (`TIME`, read inside the script).
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { DAY_MS, MAX_TIMER_MS } from '../internal/durations.js';
import { positiveInt } from '../internal/positive-int.js';
import { hexText, isWellFormed } from '../internal/well-formed.js';
import { withinTime } from '../internal/within-time.js';
import { StoreTimeoutError } from './errors.js';
import { type RedisScript, type RedisStoreClient, redisCommands, redisScript } from './redis-client.js';
import { redisDeadlines } from './redis-deadline.js';
import { CLAIM, LATE, READ, RELEASE, RENEW, SETTLE } from './redis-scripts.js';
import type { Store, StoreClaim, StoreClaimRequest, StoreJsonObject, StoreRecord } from './store.js';

export type { IORedisStoreClient, NodeRedisStoreClient, RedisStoreClient } from './redis-client.js';

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** Prepended to every key the store writes. Default `'payments-sdk:'`. */
  prefix?: string;
  /**
   * How long a call may take, in ms, before it fails with a {@link StoreTimeoutError}; a write
   * that has not run by then never runs. Default 2000.
   */
  timeoutMs?: number;
  /**
   * How long a record is kept after its last write, in ms. Default 7 days; at least 24 h, so that a
   * settled webhook key outlives the service's redeliveries.
   */
  ttlMs?: number;
}

const DEFAULT_PREFIX = 'payments-sdk:';
const DEFAULT_TIMEOUT_MS = 2000;
const DEFAULT_TTL_MS = 7 * DAY_MS;
/** Keys read per script call: a long `read` goes as several scripts, sent together. */
const READ_CHUNK = 500;

const scripts = {
  claim: redisScript(CLAIM),
  renew: redisScript(RENEW),
  settle: redisScript(SETTLE),
  release: redisScript(RELEASE),
  read: redisScript(READ),
};

/**
 * A store on Redis, for webhook handlers, bulk payouts and reconciliation running on several
 * processes or machines. Pass a connected node-redis (`await createClient().connect()`, v4 to v6) or
 * ioredis (`new Redis()`, v5 or v6) client; which one it is is recognised from the client, and the
 * SDK depends on neither. The store never closes it.
 *
 * ```ts
 * import { createClient } from 'redis';
 * import { redisStore } from 'payments-sdk/stores';
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * export const store = redisStore(redis, { prefix: 'shop:' });
 * ```
 *
 * - **One clock.** Lease expiry and a record's `age` come from Redis's `TIME`, read inside each
 *   script: workers whose clocks disagree still agree on who holds a key.
 * - **Bounded calls.** Every call fails within `timeoutMs` with a {@link StoreTimeoutError}
 *   when Redis does not answer, and a write Redis gets to after that (a paused server, a call
 *   queued by a reconnecting client) is refused by its script, so it never lands late. A client
 *   that is not open fails at once.
 * - **Records** are hashes under `prefix` + key, kept `ttlMs` after their last write.
 * - **Not transactional** with your own effects: Redis cannot commit a key together with your
 *   database's writes, so this store has no `transact`. A process that dies between its effect and
 *   `settle` leaves the key claimed until its lease ends; the next claim then runs the effect again,
 *   so make effects idempotent (or use `postgresStore`/`d1Store` with `transact`).
 * - **Durability** is Redis's: without AOF persistence a restart forgets recent records. One Redis
 *   server (with replicas if you like) only: Redis Cluster is not supported, as a `claim` of many
 *   keys is one script.
 */
export function redisStore(client: RedisStoreClient, options: RedisStoreOptions = {}): Store {
  const redis = redisCommands(client, 'redisStore');
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== 'string') throw new PaymentsError('redisStore: prefix must be a string.');
  const timeoutMs = Math.min(positiveInt(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'redisStore: timeoutMs'), MAX_TIMER_MS);
  const ttlMs = positiveInt(options.ttlMs, DEFAULT_TTL_MS, 'redisStore: ttlMs');
  if (ttlMs < DAY_MS) {
    throw new PaymentsError(
      `redisStore: ttlMs must be at least ${DAY_MS} (24 h), got ${ttlMs}: a settled webhook key must outlive the service's redeliveries.`,
    );
  }
  const ttl = String(ttlMs);
  const deadlines = redisDeadlines(redis);
  const redisKey = (key: string) => prefix + encodeText(key);

  /** `work` within `timeoutMs`, every failure a PaymentsError naming `what`. */
  const bounded = async <T>(what: string, writes: boolean, work: (end: number) => Promise<T>): Promise<T> => {
    const closed = redis.closed();
    if (closed) throw new PaymentsError(`redisStore: ${what} cannot be sent: ${closed}.`);
    const end = performance.now() + timeoutMs;
    const late = () => {
      const waiting = redis.waiting();
      return new StoreTimeoutError(
        `redisStore: Redis did not answer ${what} within ${timeoutMs} ms${waiting ? ` (${waiting})` : ''}` +
          (writes ? '; Redis refuses it if it arrives later.' : '.'),
      );
    };
    try {
      return await withinTime(work(end), timeoutMs, late);
    } catch (error) {
      if (isLate(error)) throw late();
      if (error instanceof PaymentsError) throw error;
      const gone = redis.closed();
      if (gone) throw new PaymentsError(`redisStore: ${what} cannot be sent: ${gone}.`, { cause: error });
      throw new PaymentsError(`redisStore: ${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };

  /**
   * Runs a writing script with the deadline `end` in Redis's clock; once more if Redis thought it
   * late too early. A settlement goes without one: it records what already happened (an effect ran,
   * a payout was answered), so landing after its caller gave up on it is better than never.
   */
  const write = (what: string, script: RedisScript, keys: string[], args: string[], refuseLate = true) =>
    bounded(what, refuseLate, async (end) => {
      if (!refuseLate) return redis.evalScript(script, keys, ['', ttl, ...args]);
      for (let attempt = 0; ; attempt++) {
        try {
          const deadline = await deadlines.toRedis(end);
          // Measuring the clock may itself have waited out the caller: then send nothing at all.
          if (performance.now() >= end) throw new PaymentsError(LATE);
          return await redis.evalScript(script, keys, [deadline, ttl, ...args]);
        } catch (error) {
          if (!isLate(error) || attempt > 0 || performance.now() >= end) throw error;
          deadlines.forget();
        }
      }
    });

  const owned = async (what: string, script: RedisScript, key: string, owner: string, arg: string, refuseLate = true) =>
    Number(await write(what, script, [redisKey(key)], [encodeText(owner), arg], refuseLate)) === 1;

  return {
    kind: 'redis',
    async claim(requests) {
      if (!Array.isArray(requests)) throw new PaymentsError('redisStore: claim takes an array of requests.');
      if (requests.length === 0) return [];
      const args = requests.map(checked).flatMap((r) => [encodeText(r.owner), leaseOf(r.leaseMs), json(r.data)]);
      const reply = await write(
        'the claim',
        scripts.claim,
        requests.map((r) => redisKey(r.key)),
        args,
      );
      if (!Array.isArray(reply) || reply.length !== requests.length) throw unexpected();
      return reply.map((answer, i): StoreClaim => {
        if (!Array.isArray(answer) || !['claimed', 'settled', 'busy'].includes(answer[0])) throw unexpected();
        const record = toRecord((requests[i] as StoreClaimRequest).key, answer[1]);
        if (!record) throw unexpected();
        return { state: answer[0], record };
      });
    },
    async renew(key, owner, leaseMs) {
      return owned('the renewal', scripts.renew, key, owner, leaseOf(leaseMs));
    },
    async settle(key, owner, result) {
      return owned('the settlement', scripts.settle, key, owner, json(result), false);
    },
    async release(key, owner, note) {
      return owned('the release', scripts.release, key, owner, json(note));
    },
    async read(keys) {
      if (keys.length === 0) return [];
      const chunks: string[][] = [];
      for (let at = 0; at < keys.length; at += READ_CHUNK) chunks.push(keys.slice(at, at + READ_CHUNK).map(redisKey));
      const replies = await bounded('the read', false, () =>
        Promise.all(chunks.map((chunk) => redis.evalScript(scripts.read, chunk, ['', ttl]))),
      );
      const records = replies.flatMap((reply) => {
        if (!Array.isArray(reply)) throw unexpected();
        return reply as unknown[];
      });
      if (records.length !== keys.length) throw unexpected();
      return records.map((fields, i) => toRecord(keys[i] as string, fields));
    },
  };
}

/** A claim request as Redis takes it, or a PaymentsError saying what is wrong with it. */
function checked(request: StoreClaimRequest): StoreClaimRequest {
  if (request === null || typeof request !== 'object') throw new PaymentsError('redisStore: each claim request must be an object.');
  if (typeof request.key !== 'string' || request.key === '')
    throw new PaymentsError("redisStore: a claim's key must be a non-empty string.");
  if (typeof request.owner !== 'string' || request.owner === '')
    throw new PaymentsError("redisStore: a claim's owner must be a non-empty string.");
  leaseOf(request.leaseMs);
  return request;
}

/** `leaseMs` as text, when it is a positive integer. */
function leaseOf(leaseMs: number): string {
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 1) {
    throw new PaymentsError(`redisStore: leaseMs must be a positive integer, got ${String(leaseMs)}.`);
  }
  return String(leaseMs);
}

/** JSON text of a value ('' for none). JSON.stringify escapes `\u0000` and lone surrogates, so the text is valid UTF-8 as Redis keeps it. */
function json(value: StoreJsonObject | undefined): string {
  return value === undefined ? '' : JSON.stringify(value);
}

/**
 * Text as Redis keeps it (keys and owners). Redis strings are bytes and the clients send UTF-8, where
 * a lone surrogate becomes U+FFFD: such a text (and one starting with `~`) is written as `~` and the
 * hex of its UTF-16 code units, so two texts never meet. The SDK's keys (`storeKey`) and owners never
 * need it.
 */
function encodeText(text: string): string {
  return !text.startsWith('~') && isWellFormed(text) ? text : hexText(text);
}

/** The text {@link encodeText} wrote. */
function decodeText(text: string): string {
  if (!text.startsWith('~')) return text;
  let decoded = '';
  for (let i = 1; i < text.length; i += 4) decoded += String.fromCharCode(Number.parseInt(text.slice(i, i + 4), 16));
  return decoded;
}

/** A record from a script's { claims, age, data, settled, result, note, owner }; `undefined` for none. */
function toRecord(key: string, fields: unknown): StoreRecord | undefined {
  if (fields === null || fields === undefined) return undefined;
  if (!Array.isArray(fields)) throw unexpected();
  const [claims, age, data, settled, result, note, owner] = fields as unknown[];
  const record: StoreRecord = { key, claims: Number(claims), age: Math.max(0, Number(age)), settled: settled != null };
  if (data != null) record.data = JSON.parse(String(data)) as StoreJsonObject;
  if (result != null) record.result = JSON.parse(String(result)) as StoreJsonObject;
  if (note != null) record.note = JSON.parse(String(note)) as StoreJsonObject;
  if (owner != null) record.owner = decodeText(String(owner));
  return record;
}

function isLate(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(LATE);
}

function unexpected(): PaymentsError {
  return new PaymentsError('redisStore: unexpected reply from Redis.');
}
