/**
 * The Lua scripts of `redisStore`: each store call is one script, so each is atomic in Redis, and
 * every time it compares is read inside the script from Redis's own clock (`TIME`), never sent by a
 * worker.
 *
 * A record is one hash under the key: `c` claims granted, `f` first claim (Redis ms), `d` data,
 * `s` settled ('1'), `r` result, `n` note, `o` the owner of the last claim until it settles or
 * releases, `e` the end of its lease (Redis ms). `d`, `r` and `n` are JSON text written and read
 * back byte for byte (never decoded in Lua), so values round-trip exactly.
 *
 * ARGV[1] of every writing script is a deadline in Redis ms ('' for none): past it the script
 * changes nothing and fails with `LATE`, so a call its caller already gave up on never lands later.
 * ARGV[2] is how long a record lives after its last write (ms).
 */

/** The error a writing script fails with when it runs past its caller's deadline. */
export const LATE = 'LATE';

// Redis's clock in ms, the deadline check, and the record as every script answers it:
// { claims, age, data, settled, result, note, live owner } (false where absent), or false.
const PRELUDE = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[1] ~= '' and now > tonumber(ARGV[1]) then return redis.error_reply('${LATE} the call ran past its deadline; nothing changed') end
local ttl = ARGV[2]
local function ms(n) return string.format('%.0f', n) end
local function record(k)
  local v = redis.call('HMGET', k, 'c', 'f', 'd', 's', 'r', 'n', 'o', 'e')
  if not v[1] then return false end
  local owner = false
  if v[7] and not v[4] and tonumber(v[8]) > now then owner = v[7] end
  return {v[1], now - tonumber(v[2]), v[3], v[4], v[5], v[6], owner}
end
local function holds(k, owner)
  local v = redis.call('HMGET', k, 's', 'o')
  return not v[1] and v[2] == owner
end
`;

/**
 * KEYS: the keys to claim, in order. ARGV[3..]: per key, owner, leaseMs, data ('' for none).
 * Answers per key { state, record }. Each claim sees the ones before it (a key twice in one call).
 */
export const CLAIM = `${PRELUDE}
local out = {}
for i, k in ipairs(KEYS) do
  local owner, lease, data = ARGV[3 * i], tonumber(ARGV[3 * i + 1]), ARGV[3 * i + 2]
  local v = redis.call('HMGET', k, 's', 'o', 'e', 'c')
  local state = 'claimed'
  if v[1] then state = 'settled'
  elseif v[2] and v[2] ~= owner and tonumber(v[3]) > now then state = 'busy'
  else
    if not v[4] then
      redis.call('HSET', k, 'f', ms(now), 'c', 0)
      if data ~= '' then redis.call('HSET', k, 'd', data) end
    end
    redis.call('HINCRBY', k, 'c', 1)
    redis.call('HSET', k, 'o', owner, 'e', ms(now + lease))
    redis.call('PEXPIRE', k, ttl)
  end
  out[i] = {state, record(k)}
end
return out
`;

/** KEYS: one key. ARGV[3]: owner, ARGV[4]: leaseMs. 1 when renewed. */
export const RENEW = `${PRELUDE}
local k = KEYS[1]
if not holds(k, ARGV[3]) or tonumber(redis.call('HGET', k, 'e')) <= now then return 0 end
redis.call('HSET', k, 'e', ms(now + tonumber(ARGV[4])))
redis.call('PEXPIRE', k, ttl)
return 1
`;

/** KEYS: one key. ARGV[3]: owner, ARGV[4]: result ('' for none). 1 when settled. */
export const SETTLE = `${PRELUDE}
local k = KEYS[1]
if not holds(k, ARGV[3]) then return 0 end
redis.call('HSET', k, 's', '1')
if ARGV[4] ~= '' then redis.call('HSET', k, 'r', ARGV[4]) end
redis.call('HDEL', k, 'o', 'e')
redis.call('PEXPIRE', k, ttl)
return 1
`;

/** KEYS: one key. ARGV[3]: owner, ARGV[4]: note ('' to keep the one recorded). 1 when released. */
export const RELEASE = `${PRELUDE}
local k = KEYS[1]
if not holds(k, ARGV[3]) then return 0 end
if ARGV[4] ~= '' then redis.call('HSET', k, 'n', ARGV[4]) end
redis.call('HDEL', k, 'o', 'e')
redis.call('PEXPIRE', k, ttl)
return 1
`;

/** KEYS: the keys to read. ARGV[1], ARGV[2]: ''. One record (or false) per key. */
export const READ = `${PRELUDE}
local out = {}
for i, k in ipairs(KEYS) do out[i] = record(k) end
return out
`;
