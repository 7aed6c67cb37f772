/**
 * Deduplication of webhook deliveries on the event `id`: the service may deliver an event more than
 * once, and receivers deduplicate on `id`. The handlers of this entry claim an id
 * before calling `onEvent`, complete it once `onEvent` resolved, and release it when it threw so
 * the service's retry is processed.
 *
 * @module
 */
import { PaymentsError } from '../core/errors.js';
import { DAY_MS } from '../internal/durations.js';

/**
 * Where the handlers remember which event ids were handled. The default is a
 * {@link memoryDedupeStore} shared by the handlers of one process or isolate; {@link redisDedupeStore}
 * and `d1DedupeStore` (Cloudflare D1) serve several instances and survive a restart.
 * Any shared store works: implement `claim` and `release` (and, better, `complete` and `isComplete`).
 *
 * **Whose claim a release drops.** The handlers pass each delivery's own `token` to `claim` and
 * `release`. A store that keeps it with the claim, and releases only a claim made with the same
 * token, keeps an instance whose claim ran out (its `onEvent` outlived the lease, and another
 * instance claimed the id since) from dropping the newer claim when its `onEvent` finally throws:
 * a third delivery would then run `onEvent` while the second still does. The stores of this SDK do.
 *
 * **How atomic `claim` must be.** Two deliveries of one id may arrive at the same moment on two
 * instances. `claim` must be a single compare-and-set in the store: "record `id` unless it is already
 * there" and "was it already there?" decided in one indivisible step, so that exactly one of any
 * number of simultaneous claims wins, on every instance that shares the store. Redis `SET NX`, an SQL
 * `INSERT … ON CONFLICT DO NOTHING` (its count of changed rows says who won) and a unique constraint
 * give it. A read followed by a write does not: both instances read "absent", both write, both run
 * `onEvent`. That is why Cloudflare Workers KV cannot back a store: it has no conditional write, and
 * it is eventually consistent (a write can take a minute or more to be seen at other locations), so
 * a duplicate arriving meanwhile is not seen. On Workers, use D1 (`d1DedupeStore`) or a Durable Object.
 */
export interface WebhookDedupeStore {
  /**
   * Atomically marks `id` as being handled (see above). `true`: this delivery handles it. `false`:
   * it is already handled or in flight elsewhere, and `onEvent` is not called again. A claim that
   * rejects, or does not settle within the handler's `dedupeTimeoutMs`, is answered 503 (the
   * service retries). `token` is unique to the delivery claiming (the handlers always pass one):
   * keep it with the claim for {@link WebhookDedupeStore.release}.
   */
  claim(id: string, token?: string): Promise<boolean>;
  /**
   * Forgets a claim after `onEvent` threw, so the service's next attempt is processed. With a
   * `token`, only the claim made with that token (see above): a claim another delivery has made
   * since is kept. Without one, the id's claim in flight, whoever made it.
   */
  release(id: string, token?: string): Promise<void>;
  /**
   * Optional: marks `id` handled for good, after `onEvent` resolved. A store that implements it can
   * hold a claim only briefly while in flight (a lease), so an instance that dies in the middle of
   * `onEvent` does not swallow the service's retries; without it a claim lasts the store's full TTL.
   */
  complete?(id: string): Promise<void>;
  /**
   * Optional: `true` when `id` was completed, `false` while it is only in flight. When a claim fails
   * and this says `false`, the delivery is answered 409 rather than 200, so the service tries again
   * later instead of counting the event delivered while the first attempt may still fail.
   */
  isComplete?(id: string): Promise<boolean>;
}

/**
 * In-flight lease: three times the 10 s the service waits for an answer, and shorter than the one
 * minute between its attempts, so a retry after a crash always finds it gone.
 */
export const LEASE_MS = 30_000;

/** Options of {@link memoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** How long a handled id is remembered, in ms. Default 24 h (the service retries for less). */
  ttlMs?: number;
  /**
   * How many ids are kept at most, handled and in flight together. Default 10 000. When full, expired
   * ids go first, then the oldest handled ids (which shortens their dedupe window); an id in flight
   * is never forgotten, and when every slot holds one, a new delivery is answered 503 (the service
   * delivers it again later).
   */
  max?: number;
  /** How long an id stays claimed while `onEvent` runs, in ms. Default 30 s. */
  leaseMs?: number;
}

/** Thrown by a store's `claim` when it cannot take one more id; the handlers answer 503. */
export class DedupeStoreFullError extends PaymentsError {}

/**
 * The default store: a bounded map in this process's memory. Handled ids are remembered for
 * `ttlMs`, ids in flight for `leaseMs`; at most `max` ids in all (see
 * {@link MemoryDedupeStoreOptions.max}). Enough for one instance; behind a load balancer use
 * {@link redisDedupeStore}, since each instance has its own memory.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): WebhookDedupeStore {
  const ttlMs = positiveInt(options.ttlMs, DAY_MS, 'memoryDedupeStore: ttlMs');
  const max = positiveInt(options.max, 10_000, 'memoryDedupeStore: max');
  const leaseMs = Math.min(positiveInt(options.leaseMs, LEASE_MS, 'memoryDedupeStore: leaseMs'), ttlMs);
  // Two maps, id → expiry (and, in flight, the claiming delivery's token). Every entry of one map has
  // the same lifetime (leaseMs, or ttlMs) and is (re)inserted when it starts, so each map's order is
  // its expiry order: the expired entries are always at its front, and dropping them costs O(1) per entry.
  const inFlight = new Map<string, { expiresAt: number; token?: string }>();
  const handled = new Map<string, { expiresAt: number }>();

  const dropExpired = (map: Map<string, { expiresAt: number }>, now: number) => {
    for (const [key, { expiresAt }] of map) {
      if (expiresAt > now) break;
      map.delete(key);
    }
  };
  const live = (map: Map<string, { expiresAt: number }>, id: string, now: number) => {
    const entry = map.get(id);
    if (entry === undefined) return false;
    if (entry.expiresAt > now) return true;
    map.delete(id);
    return false;
  };
  /** Frees a slot for one more id: expired ids first, then the oldest handled one, never one in flight. */
  const makeRoom = (now: number) => {
    dropExpired(inFlight, now);
    dropExpired(handled, now);
    if (inFlight.size + handled.size < max) return true;
    const oldest = handled.keys().next();
    if (oldest.done) return false;
    handled.delete(oldest.value);
    return true;
  };

  return {
    async claim(id, token) {
      const now = Date.now();
      if (live(handled, id, now) || live(inFlight, id, now)) return false;
      if (!makeRoom(now)) {
        throw new DedupeStoreFullError(
          `memoryDedupeStore: all ${max} slots hold events still being handled; answered 503 so the service delivers again later (raise max, or use a shared store).`,
        );
      }
      inFlight.set(id, { expiresAt: now + leaseMs, token });
      return true;
    },
    async release(id, token) {
      if (token === undefined || inFlight.get(id)?.token === token) inFlight.delete(id);
    },
    async complete(id) {
      const now = Date.now();
      // The id's own slot moves from inFlight to handled; an id whose lease already ran out needs a new one.
      if (!inFlight.delete(id)) makeRoom(now);
      handled.delete(id);
      handled.set(id, { expiresAt: now + ttlMs });
    },
    async isComplete(id) {
      return live(handled, id, Date.now());
    },
  };
}

/** At most this many endpoints (distinct secrets) keep a shared default store; the least recently used goes first. */
const MAX_SHARED_STORES = 64;
const sharedStores = new Map<string, WebhookDedupeStore>();

/**
 * The default store of the handlers: one {@link memoryDedupeStore} per endpoint, shared by every
 * handler built in this process or isolate for it. A Worker builds its handler inside `fetch` (its
 * `env` exists only there), so a store per handler would be a store per request, and every
 * duplicate would run `onEvent` again. The endpoint is told by its secrets (each endpoint has its
 * own), so that two endpoints served by one process never see each other's ids.
 */
export function sharedMemoryDedupeStore(secrets: readonly string[]): WebhookDedupeStore {
  // The key lives only in this module's map, which nothing outside it can reach or print.
  const key = [...new Set(secrets)].sort().join('\n');
  let store = sharedStores.get(key);
  if (store) {
    sharedStores.delete(key);
  } else {
    store = memoryDedupeStore();
    if (sharedStores.size >= MAX_SHARED_STORES) sharedStores.delete(sharedStores.keys().next().value as string);
  }
  sharedStores.set(key, store);
  return store;
}

/**
 * The `SET` options of node-redis v5/v6 (`expiration`, `condition`), with the v4 spelling (`PX`,
 * `NX`) alongside: v4 ignores the new keys and v6 prefers them, so one object works on both.
 */
export interface NodeRedisSetOptions {
  expiration: { type: 'PX'; value: number };
  condition?: 'NX';
  PX: number;
  NX?: true;
}

/** The part of a node-redis (v4–v6) client, or cluster, that {@link redisDedupeStore} uses. */
export interface NodeRedisLikeClient {
  /** `SET key value` with node-redis options (`NX`, `PX`). */
  set(key: string, value: string, options: NodeRedisSetOptions): Promise<unknown>;
  /** `GET key`. */
  get(key: string): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  sendCommand: unknown;
}

/** The part of an ioredis (v5–v6) client, or cluster, that {@link redisDedupeStore} uses. */
export interface IORedisLikeClient {
  /** `SET key value PX ms NX`: set only when absent, with an expiry. */
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<unknown>;
  /** `SET key value PX ms`: overwrite, with an expiry. */
  set(key: string, value: string, px: 'PX', milliseconds: number): Promise<unknown>;
  /** `GET key`. */
  get(key: string): Promise<unknown>;
  /** `DEL key`. */
  del(key: string): Promise<unknown>;
  call: unknown;
}

/** Options of {@link redisDedupeStore}. */
export interface RedisDedupeStoreOptions {
  /** Key prefix. Default `payments-sdk:webhook:`. */
  prefix?: string;
  /** How long a handled id is remembered, in ms. Default 24 h (the service retries for less). */
  ttlMs?: number;
  /** How long an id stays claimed while `onEvent` runs, in ms. Default 30 s. */
  leaseMs?: number;
}

/**
 * A store shared by every instance, on Redis. Pass a connected node-redis (`createClient()`) or
 * ioredis (`new Redis()`) client, or cluster; which one it is is recognised from the client itself
 * (ioredis has `call`, node-redis has `sendCommand`), and the SDK depends on neither.
 *
 * The handlers bound each call by their `dedupeTimeoutMs`, so a Redis that stops answering costs
 * a 503 (or, after `onEvent` succeeded, a reported failure), never an answer past the service's wait.
 *
 * Commands: `SET key processing:<token> NX PX leaseMs` to claim, `SET key done PX ttlMs` to
 * complete, `GET key` to tell a handled id from one in flight, and to release, one script that
 * deletes the key only while it still holds this delivery's claim (`EVAL`), so that a delivery
 * whose claim ran out never drops a newer delivery's claim. For another client (Upstash, a cluster
 * proxy...) implement {@link WebhookDedupeStore} with the same commands.
 */
export function redisDedupeStore(
  client: NodeRedisLikeClient | IORedisLikeClient,
  options: RedisDedupeStoreOptions = {},
): WebhookDedupeStore {
  const prefix = options.prefix ?? 'payments-sdk:webhook:';
  if (typeof prefix !== 'string') throw new PaymentsError('redisDedupeStore: prefix must be a string.');
  const ttlMs = positiveInt(options.ttlMs, DAY_MS, 'redisDedupeStore: ttlMs');
  const leaseMs = Math.min(positiveInt(options.leaseMs, LEASE_MS, 'redisDedupeStore: leaseMs'), ttlMs);
  const set = redisSet(client);
  const evaluate = redisEval(client);
  const key = (id: string) => `${prefix}${id}`;
  return {
    async claim(id, token) {
      // `SET … NX` answers OK when it set the key, null when the key exists: atomic across instances.
      return (await set(key(id), claimValue(token), leaseMs, true)) != null;
    },
    async release(id, token) {
      if (token === undefined) await client.del(key(id));
      else await evaluate(RELEASE_OWN_CLAIM, key(id), claimValue(token));
    },
    async complete(id) {
      await set(key(id), 'done', ttlMs, false);
    },
    async isComplete(id) {
      return String(await client.get(key(id))) === 'done';
    },
  };
}

/** What a claim in flight stores: `processing`, followed by the claiming delivery's token when it has one. */
export function claimValue(token: string | undefined): string {
  return token === undefined ? 'processing' : `processing:${token}`;
}

// KEYS: the id's key. ARGV: the claim's value. Deletes the key only while it holds that claim.
const RELEASE_OWN_CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type RedisEval = (script: string, key: string, arg: string) => Promise<unknown>;

/**
 * `EVAL script 1 key arg`, on a client {@link redisSet} accepted: ioredis through `call`; node-redis
 * through `eval` (a client or cluster), or `sendCommand` on a client without it.
 */
function redisEval(client: NodeRedisLikeClient | IORedisLikeClient): RedisEval {
  const c = client as { call?: unknown; eval?: unknown; sendCommand?: unknown };
  if (typeof c.call === 'function') {
    const io = c as { call(command: string, ...args: Array<string | number>): Promise<unknown> };
    return (script, key, arg) => io.call('EVAL', script, 1, key, arg);
  }
  if (typeof c.eval === 'function') {
    const node = c as { eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown> };
    return (script, key, arg) => node.eval(script, { keys: [key], arguments: [arg] });
  }
  const node = c as { sendCommand(args: string[]): Promise<unknown> };
  return (script, key, arg) => node.sendCommand(['EVAL', script, '1', key, arg]);
}

type RedisSet = (key: string, value: string, ttlMs: number, onlyIfAbsent: boolean) => Promise<unknown>;

function redisSet(client: unknown): RedisSet {
  const c = client as Partial<IORedisLikeClient & NodeRedisLikeClient> | null;
  const usable =
    c !== null && typeof c === 'object' && ['set', 'get', 'del'].every((m) => typeof (c as Record<string, unknown>)[m] === 'function');
  if (usable && typeof c.call === 'function') {
    const io = c as IORedisLikeClient;
    return (key, value, ttlMs, nx) => (nx ? io.set(key, value, 'PX', ttlMs, 'NX') : io.set(key, value, 'PX', ttlMs));
  }
  if (usable && typeof c.sendCommand === 'function') {
    const node = c as NodeRedisLikeClient;
    return (key, value, ttlMs, nx) =>
      node.set(
        key,
        value,
        nx
          ? { expiration: { type: 'PX', value: ttlMs }, condition: 'NX', PX: ttlMs, NX: true }
          : { expiration: { type: 'PX', value: ttlMs }, PX: ttlMs },
      );
  }
  // Guessing the calling convention of an unknown client could drop `NX` silently, and every
  // delivery would then be "first": refuse instead.
  throw new PaymentsError(
    'redisDedupeStore: pass a node-redis or ioredis client (or cluster). For another Redis client, implement ' +
      'WebhookDedupeStore ({ claim, release, complete, isComplete }) with SET NX PX, GET and DEL.',
  );
}

export function positiveInt(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new PaymentsError(`${name} must be a positive integer, got ${typeof value === 'number' ? value : typeof value}.`);
  }
  return value;
}
