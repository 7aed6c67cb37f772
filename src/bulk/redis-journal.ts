/**
 * `redisJournal(client)`: the journal of a bulk payout in Redis, shared by several processes that
 * run the same batch. Each row is a hash (`<prefix><batchId>:<rowKey>`) and its lease a separate key
 * set with `PX`; a claim, an outcome and a release are each one Lua script, so two processes never
 * both hold a row. A process that dies stops renewing its leases, and another process takes its rows
 * over when they expire: with the same Idempotency-Key, so a row it had sent is replayed, not paid
 * twice. An outcome is recorded only by the runner that made the row's last claim: a late answer
 * to a process whose row another took over changes nothing.
 *
 * node-redis (v4 to v6) and ioredis (v5, v6) clients are recognised by their shape (ioredis has
 * `call`, node-redis `sendCommand`); the SDK depends on neither.
 */
import { PaymentsError } from '../core/errors.js';
import type { BulkClaim, BulkErrorInfo, BulkJournal, BulkJournalRecord, BulkOutcome } from './journal.js';

/** The part of a node-redis client that {@link redisJournal} uses: `sendCommand(args)`. */
export interface NodeRedisCommandClient {
  /** Sends one raw command, e.g. `['EVAL', script, '2', key1, key2, ...args]`. */
  sendCommand(args: string[]): Promise<unknown>;
}

/** The part of an ioredis client that {@link redisJournal} uses: `call(command, ...args)`. */
export interface IORedisCommandClient {
  /** Sends one raw command, e.g. `call('EVAL', script, 2, key1, key2, ...args)`. */
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/** Options of {@link redisJournal}. */
export interface RedisJournalOptions {
  /** Prefix of every key. Default `'payments-sdk:bulk:'`. */
  prefix?: string;
  /**
   * How long a row's record is kept after its last change, in ms. Default 30 days. A record that
   * expires is forgotten: a rerun after that (and after the service's 24 h) would pay the row again.
   */
  ttlMs?: number;
}

const DAY_MS = 86_400_000;

// The fields of a row's hash, in the order every script answers them: first send, claims, outcome,
// last error, Idempotency-Key, index, row hash, generation. The hash also keeps the owner of the
// last claim ('o'), which only the scripts read.
const FIELDS = "'s', 'a', 'out', 'err', 'ik', 'i', 'h', 'g'";

// KEYS: row hash, lease. ARGV: owner, leaseMs, now, sentBefore, idempotencyKey, index, ttlMs,
// rowHash, retryGeneration, retryIdempotencyKey ('' when not given).
// Returns { state, ...FIELDS }.
const CLAIM = `
local h = KEYS[1]
local function answer(state) local r = redis.call('HMGET', h, ${FIELDS}); return {state, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]} end
local out = redis.call('HGET', h, 'out')
local restart = false
if out and ARGV[9] ~= '' then
  local o = cjson.decode(out)
  local g = tonumber(redis.call('HGET', h, 'g') or '0')
  restart = o.status == 'failed' and o.retryable == true and g + 1 == tonumber(ARGV[9])
end
if out and not restart then return answer('done') end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return answer('busy') end
local sent = redis.call('HGET', h, 's')
if not restart and sent and tonumber(sent) < tonumber(ARGV[4]) then return answer('expired') end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
if restart then
  redis.call('DEL', h)
  redis.call('HSET', h, 's', ARGV[3], 'ik', ARGV[10], 'i', ARGV[6], 'g', ARGV[9])
end
if not sent then redis.call('HSET', h, 's', ARGV[3], 'ik', ARGV[5], 'i', ARGV[6]) end
if (restart or not sent) and ARGV[8] ~= '' then redis.call('HSET', h, 'h', ARGV[8]) end
redis.call('HSET', h, 'o', ARGV[1])
redis.call('HINCRBY', h, 'a', 1)
redis.call('PEXPIRE', h, ARGV[7])
return answer('claimed')
`;

// KEYS: row hashes. Returns one { ...FIELDS } per key.
const READ = `
local rows = {}
for i, key in ipairs(KEYS) do rows[i] = redis.call('HMGET', key, ${FIELDS}) end
return rows
`;

/** Rows read per READ call. */
const READ_CHUNK = 500;

// KEYS: row hash, lease. ARGV: outcome, owner, ttlMs. Records the outcome and drops the claim only
// while owner made the row's last claim (its lease may have ended, but no other runner claimed the
// row since): a runner whose row another took over may be answering for an older generation's key,
// and its outcome must not overwrite the newer one (a stale retryable refusal would reopen a paid
// row). Returns 1 when recorded, 0 when not.
const SETTLE = `
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'out', ARGV[1])
redis.call('HDEL', KEYS[1], 'err', 'o')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1
`;

// KEYS: row hash, lease. ARGV: error ('' to keep the one recorded), owner, ttlMs. Keeps the last
// error of an existing row; drops the claim only if owner holds it.
const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'err', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('HGET', KEYS[1], 'o') == ARGV[2] then redis.call('HDEL', KEYS[1], 'o') end
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1
`;

// KEYS: lease. ARGV: owner, leaseMs. Extends the lease if still held by owner.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
`;

type Eval = (script: string, keys: string[], args: string[]) => Promise<unknown>;

function evaluator(client: unknown): Eval {
  const c = client as Partial<IORedisCommandClient & NodeRedisCommandClient> | null;
  if (c && typeof c === 'object' && typeof c.call === 'function') {
    const io = c as IORedisCommandClient;
    return (script, keys, args) => io.call('EVAL', script, keys.length, ...keys, ...args);
  }
  if (c && typeof c === 'object' && typeof c.sendCommand === 'function') {
    const node = c as NodeRedisCommandClient;
    return (script, keys, args) => node.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args]);
  }
  throw new PaymentsError('redisJournal: pass a connected node-redis (createClient()) or ioredis (new Redis()) client.');
}

/**
 * A journal in Redis, for several processes running one batch (or one process that must survive
 * its machine). Each row is claimed atomically with a lease; a dead process's rows are taken over
 * when their lease expires, with the same Idempotency-Key. Pass a connected node-redis or ioredis
 * client; it is not closed by the journal.
 *
 * ```ts
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const batch = client.payouts.createMany(rows, { batchId: 'payroll-2026-11', journal: redisJournal(redis, { prefix: 'payroll:' }) });
 * ```
 */
export function redisJournal(client: NodeRedisCommandClient | IORedisCommandClient, options: RedisJournalOptions = {}): BulkJournal {
  const evaluate = evaluator(client);
  const prefix = options.prefix ?? 'payments-sdk:bulk:';
  if (typeof prefix !== 'string') throw new PaymentsError('redisJournal: prefix must be a string.');
  const ttlMs = options.ttlMs ?? 30 * DAY_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < DAY_MS)
    throw new PaymentsError('redisJournal: ttlMs must be an integer of at least 86400000 (one day).');
  // The batch id's length comes first, so that ("a:b", "c") and ("a", "b:c") name different rows.
  const rowKey = (batchId: string, key: string) => `${prefix}${batchId.length}:${batchId}:${key}`;
  const leaseKey = (batchId: string, key: string) => `${rowKey(batchId, key)}:lease`;
  const ttl = String(ttlMs);

  return {
    async claim(r) {
      const reply = await evaluate(
        CLAIM,
        [rowKey(r.batchId, r.rowKey), leaseKey(r.batchId, r.rowKey)],
        [
          r.owner,
          String(Math.max(1, Math.ceil(r.leaseMs))),
          String(r.now),
          String(r.sentBefore),
          r.idempotencyKey,
          String(r.index),
          ttl,
          r.rowHash ?? '',
          r.retry ? String(r.retry.generation) : '',
          r.retry?.idempotencyKey ?? '',
        ],
      );
      return toClaim(reply);
    },
    async read(batchId, keys) {
      const records: Array<BulkJournalRecord | undefined> = [];
      for (let at = 0; at < keys.length; at += READ_CHUNK) {
        const chunk = keys.slice(at, at + READ_CHUNK).map((key) => rowKey(batchId, key));
        const reply = await evaluate(READ, chunk, []);
        if (!Array.isArray(reply)) throw new PaymentsError('redisJournal: unexpected reply from Redis.');
        for (const fields of reply) records.push(toRecord(fields));
      }
      return records;
    },
    async settle(batchId, key, owner, outcome) {
      await evaluate(SETTLE, [rowKey(batchId, key), leaseKey(batchId, key)], [JSON.stringify(outcome), owner, ttl]);
    },
    async release(batchId, key, owner, error) {
      await evaluate(RELEASE, [rowKey(batchId, key), leaseKey(batchId, key)], [error ? JSON.stringify(error) : '', owner, ttl]);
    },
    async renew(batchId, key, owner, leaseMs) {
      return Number(await evaluate(RENEW, [leaseKey(batchId, key)], [owner, String(Math.max(1, Math.ceil(leaseMs)))])) === 1;
    },
  };
}

function toClaim(reply: unknown): BulkClaim {
  if (!Array.isArray(reply) || typeof reply[0] !== 'string') throw new PaymentsError('redisJournal: unexpected reply from Redis.');
  const state = reply[0];
  if (state !== 'claimed' && state !== 'done' && state !== 'busy' && state !== 'expired') {
    throw new PaymentsError('redisJournal: unexpected reply from Redis.');
  }
  const record = toRecord(reply.slice(1));
  return record ? { state, record } : { state };
}

/** A record from the hash's FIELDS, as HMGET answers them; `undefined` when the row has none. */
function toRecord(fields: unknown): BulkJournalRecord | undefined {
  if (!Array.isArray(fields)) throw new PaymentsError('redisJournal: unexpected reply from Redis.');
  const [sentAt, attempts, outcome, lastError, ik, index, rowHash, generation] = fields.map((v) =>
    v === null || v === undefined ? undefined : String(v),
  );
  if (ik === undefined) return undefined;
  const record: BulkJournalRecord = { idempotencyKey: ik, index: Number(index ?? 0), attempts: Number(attempts ?? 0) };
  if (rowHash !== undefined) record.rowHash = rowHash;
  if (generation !== undefined) record.generation = Number(generation);
  if (sentAt !== undefined) record.sentAt = Number(sentAt);
  if (outcome !== undefined) record.outcome = JSON.parse(outcome) as BulkOutcome;
  if (lastError !== undefined) record.lastError = JSON.parse(lastError) as BulkErrorInfo;
  return record;
}
