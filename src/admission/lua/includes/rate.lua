-- Sliding-window request logs (per key, per account: its own RPM or the free tier's, per end
-- user of a key) plus the free-tier daily counter. A limit of -1 means none. rate_check only reads (and trims the logs);
-- rate_record counts the request, so a refused request counts nowhere.
local function rate_window(key, limit, now, win)
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
-- Returns whether a limit blocks, and {keyCount, keyRetryAt, keyOldest, acctCount,
-- acctRetryAt, acctOldest, dayCount, userCount, userRetryAt, userOldest}; RetryAt is when
-- enough entries have left the window for one more request.
local function rate_check(keyLog, acctLog, day, userLog, now, kLimit, aLimit, dLimit, uLimit, win)
  local kn, kRetry, kOld = rate_window(keyLog, kLimit, now, win)
  local an, aRetry, aOld = rate_window(acctLog, aLimit, now, win)
  local un, uRetry, uOld = rate_window(userLog, uLimit, now, win)
  local dn = 0
  if dLimit >= 0 then dn = tonumber(redis.call('GET', day) or '0') end
  local blocked = kRetry > 0 or aRetry > 0 or uRetry > 0 or (dLimit >= 0 and dn >= dLimit)
  return blocked, {kn, kRetry, kOld, an, aRetry, aOld, dn, un, uRetry, uOld}
end
-- Counts the request under `member` and updates the figures rate_check returned.
local function rate_record(keyLog, acctLog, day, userLog, now, member, kLimit, aLimit, dLimit, uLimit, win, dayTtl, f)
  if kLimit >= 0 then
    redis.call('ZADD', keyLog, now, member)
    redis.call('PEXPIRE', keyLog, win)
    f[1] = f[1] + 1
  end
  if aLimit >= 0 then
    redis.call('ZADD', acctLog, now, member)
    redis.call('PEXPIRE', acctLog, win)
    f[4] = f[4] + 1
  end
  if uLimit >= 0 then
    redis.call('ZADD', userLog, now, member)
    redis.call('PEXPIRE', userLog, win)
    f[8] = f[8] + 1
  end
  if dLimit >= 0 then
    f[7] = redis.call('INCR', day)
    redis.call('PEXPIRE', day, dayTtl)
  end
end
