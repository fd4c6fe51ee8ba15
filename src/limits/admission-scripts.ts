import { LuaScript, PURGE_HOLDS_LUA } from './lua-script.js';

/**
 * Every money decision of one request in one atomic step: spend caps (spent + in-flight
 * holds of the key), balance (mirror − in-flight holds of the account), the hold itself
 * (the full worst-case estimate: a request whose worst case does not fit every cap and the
 * balance is refused, never admitted with a smaller hold), and the stream slot lease.
 * Replies `missing` with the names of mirrors that must be rebuilt from MongoDB first;
 * refusals carry the room that was left (`cap`, name, room / `balance`, room).
 *
 * KEYS: bal, holds, holdinfo, held, kheld, spend life, spend day, spend month, streams
 * ARGV: now, requestId, keyId, estimate, needsBalance, cap life, cap day, cap month
 *       (-1 = none), stream limit (-1 = not a stream), hold expiry, lease expiry, key TTL ms
 */
export const ADMIT = new LuaScript(`${PURGE_HOLDS_LUA}
local now = tonumber(ARGV[1])
local id = ARGV[2]
local keyId = ARGV[3]
purge_holds(KEYS[2], KEYS[3], KEYS[4], KEYS[5], now)
local prior = redis.call('HGET', KEYS[3], id)
if prior then
  return {'ok', string.sub(prior, 1, string.find(prior, ':', 1, true) - 1)}
end
local caps = {{ARGV[6], KEYS[6], 'lifetime'}, {ARGV[7], KEYS[7], 'day'}, {ARGV[8], KEYS[8], 'month'}}
local missing = {'missing'}
if ARGV[5] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then table.insert(missing, 'balance') end
for _, c in ipairs(caps) do
  if c[1] ~= '-1' and redis.call('EXISTS', c[2]) == 0 then table.insert(missing, c[3]) end
end
if #missing > 1 then return missing end
local need = tonumber(ARGV[4])
local keyHeld = tonumber(redis.call('HGET', KEYS[5], keyId) or '0')
for _, c in ipairs(caps) do
  if c[1] ~= '-1' then
    local left = tonumber(c[1]) - num(c[2]) - keyHeld
    if left <= 0 or left < need then return {'cap', c[3], string.format('%.0f', left)} end
  end
end
if ARGV[5] == '1' then
  local available = num(KEYS[1]) - num(KEYS[4])
  if available <= 0 or available < need then return {'balance', string.format('%.0f', available)} end
end
local limit = tonumber(ARGV[9])
if limit >= 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now)
  if redis.call('ZCARD', KEYS[9]) >= limit then return {'streams'} end
  redis.call('ZADD', KEYS[9], ARGV[11], id)
  redis.call('PEXPIRE', KEYS[9], ARGV[12])
end
if need > 0 then
  local amount = ARGV[4]
  redis.call('ZADD', KEYS[2], ARGV[10], id)
  redis.call('HSET', KEYS[3], id, amount .. ':' .. keyId)
  redis.call('INCRBY', KEYS[4], amount)
  redis.call('HINCRBY', KEYS[5], keyId, amount)
  for i = 2, 5 do redis.call('PEXPIRE', KEYS[i], ARGV[12]) end
  return {'ok', amount}
end
return {'ok', '0'}
`);

/**
 * Frees a request's hold and stream slot and, once per request id, applies what the ledger
 * charged to the tracked mirrors: an existing mirror takes it unless its rebuild already
 * counted it (baked set); for a missing one it is recorded as unapplied, for the rebuild to
 * add if its MongoDB snapshot predates the charge (see LOAD_MIRROR).
 *
 * KEYS: bal, holds, holdinfo, held, kheld, streams, spend life, spend day, spend month, applied,
 *       unapplied ×4 (bal, life, day, month), baked ×4 (same order)
 * ARGV: requestId, charged (-1 = nothing charged), cost, applied-marker TTL ms, charged at (ms),
 *       unapplied TTL ms, tracked flags ×4 ('1' = mirror in use; same order)
 */
export const FINISH = new LuaScript(`${PURGE_HOLDS_LUA}
local id = ARGV[1]
drop_hold(KEYS[2], KEYS[3], KEYS[4], KEYS[5], id)
redis.call('ZREM', KEYS[6], id)
local function settle(mirror, unapplied, baked, delta)
  if redis.call('EXISTS', mirror) == 1 then
    if redis.call('SISMEMBER', baked, id) == 0 then redis.call('INCRBY', mirror, delta) end
  else
    redis.call('HSET', unapplied, id, delta .. ':' .. ARGV[5])
    redis.call('PEXPIRE', unapplied, ARGV[6])
  end
end
if ARGV[2] ~= '-1' and redis.call('SET', KEYS[10], '1', 'NX', 'PX', ARGV[4]) then
  local mirrors = {KEYS[1], KEYS[7], KEYS[8], KEYS[9]}
  local deltas = {'-' .. ARGV[2], ARGV[3], ARGV[3], ARGV[3]}
  for i = 1, 4 do
    if ARGV[6 + i] == '1' and tonumber(deltas[i]) ~= 0 then settle(mirrors[i], KEYS[10 + i], KEYS[14 + i], deltas[i]) end
  end
end
return 1
`);

/**
 * Sliding-window request logs (per key, and per account on the free tier) plus the
 * free-tier daily counter, checked and recorded together: a refused request counts nowhere.
 * Replies {admitted, keyCount, keyRetryAt, keyOldest, acctCount, acctRetryAt, acctOldest,
 * dayCount}; RetryAt is when enough entries have left the window for one more request.
 *
 * KEYS: key log, account log, account day counter
 * ARGV: now, member, key limit, account limit, day limit (-1 = none), window ms, day TTL ms
 */
export const RATE = new LuaScript(`
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[6])
local function window(key, limit)
  if limit < 0 then return 0, 0, 0 end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - win)
  local n = redis.call('ZCARD', key)
  local oldest = 0
  if n > 0 then oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) end
  if n >= limit then
    local entry = redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')
    return n, tonumber(entry[2]) + win, oldest
  end
  return n, 0, oldest
end
local kLimit, aLimit, dLimit = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local kn, kRetry, kOld = window(KEYS[1], kLimit)
local an, aRetry, aOld = window(KEYS[2], aLimit)
local dn = 0
if dLimit >= 0 then dn = tonumber(redis.call('GET', KEYS[3]) or '0') end
local blocked = kRetry > 0 or aRetry > 0 or (dLimit >= 0 and dn >= dLimit)
if not blocked then
  if kLimit >= 0 then
    redis.call('ZADD', KEYS[1], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[1], win)
    kn = kn + 1
  end
  if aLimit >= 0 then
    redis.call('ZADD', KEYS[2], now, ARGV[2])
    redis.call('PEXPIRE', KEYS[2], win)
    an = an + 1
  end
  if dLimit >= 0 then
    dn = redis.call('INCR', KEYS[3])
    redis.call('PEXPIRE', KEYS[3], ARGV[7])
  end
end
local admitted = 1
if blocked then admitted = 0 end
return {admitted, kn, kRetry, kOld, an, aRetry, aOld, dn}
`);

/**
 * Live usage of a key for `GET /v1/key`: its in-flight holds (after dropping expired ones)
 * and the requests in its sliding window.
 *
 * KEYS: holds, holdinfo, held, kheld, key log, account log
 * ARGV: now, keyId, window ms
 */
export const LIVE = new LuaScript(`${PURGE_HOLDS_LUA}
local now = tonumber(ARGV[1])
purge_holds(KEYS[1], KEYS[2], KEYS[3], KEYS[4], now)
local held = redis.call('HGET', KEYS[4], ARGV[2]) or '0'
local since = '(' .. tostring(now - tonumber(ARGV[3]))
return {held, redis.call('ZCOUNT', KEYS[5], since, '+inf'), redis.call('ZCOUNT', KEYS[6], since, '+inf')}
`);
