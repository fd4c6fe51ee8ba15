-- Sliding-window request logs (per key, and per account on the free tier) plus the
-- free-tier daily counter, checked and recorded together: a refused request counts nowhere.
-- Replies {admitted, keyCount, keyRetryAt, keyOldest, acctCount, acctRetryAt, acctOldest,
-- dayCount}; RetryAt is when enough entries have left the window for one more request.
--
-- KEYS: key log, account log, account day counter
-- ARGV: now, member, key limit, account limit, day limit (-1 = none), window ms, day TTL ms
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
